"""The contract's glue around kopf: environment, JSON logs, /healthz and /readyz, metrics and
crash points (conformance/CONTRACT.md, "Process", "Crash points", "Metrics").

Nothing here decides what the operator does; ``handlers`` does, the kopf way. This module is
plain Python with no kopf import, so its parts are unit-tested without a cluster.
"""

from __future__ import annotations

import dataclasses
import functools
import http.server
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import prometheus_client as prom

CRASH_EXIT_CODE = 86
CRASH_AT_ENV = "MODELDOCK_CRASH_AT"
CONTROLLER = "modelservice"


class ConfigError(ValueError):
    """An environment value cannot be used; the message names it."""


@dataclasses.dataclass(frozen=True)
class Config:
    kubeconfig: str
    watch_namespace: str
    leader_election: bool
    metrics_bind_address: str
    health_probe_bind_address: str
    max_concurrent_reconciles: int


def config_from_env(env: Mapping[str, str]) -> Config:
    """The configuration from the contract's environment variables (defaults as CONTRACT.md).
    The Lease timings are read by nobody: kopf has no Lease election (see ``__init__``)."""

    def get(name: str, default: str) -> str:
        return env.get(name, "").strip() or default

    kubeconfig = get("KUBECONFIG", "")
    if not kubeconfig:
        raise ConfigError("KUBECONFIG is not set: set it to the operator's kubeconfig file")
    workers = get("MAX_CONCURRENT_RECONCILES", "4")  # CONTRACT.md, "Process"
    if not workers.isdigit() or int(workers) < 1:
        raise ConfigError(f"MAX_CONCURRENT_RECONCILES={workers!r}: must be a positive integer")
    election = get("LEADER_ELECTION", "false").lower()
    if election not in ("true", "false"):
        raise ConfigError(f"LEADER_ELECTION={election!r}: must be true or false")
    return Config(
        kubeconfig=kubeconfig,
        watch_namespace=get("WATCH_NAMESPACE", "modeldock-lab"),
        leader_election=election == "true",
        metrics_bind_address=get("METRICS_BIND_ADDRESS", ":8080"),
        health_probe_bind_address=get("HEALTH_PROBE_BIND_ADDRESS", ":8081"),
        max_concurrent_reconciles=int(workers),
    )


def split_address(address: str) -> tuple[str, int] | None:
    """``host:port`` (host may be empty) to (host, port); ``0`` means off (None)."""
    if address == "0":
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"bind address {address!r}: expected host:port or 0")
    return (host or "0.0.0.0"), int(port)


# --------------------------------------------------------------------------- logging
class JsonFormatter(logging.Formatter):
    """One JSON object per line with ``msg``; a line about an object (kopf's per-object
    logger puts ``k8s_ref`` on the record) carries ``modelservice: namespace/name``; extra
    fields passed as ``extra={"fields": {...}}`` are merged in."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        ref = getattr(record, "k8s_ref", None)
        if isinstance(ref, Mapping) and ref.get("name"):
            out["modelservice"] = f"{ref.get('namespace', '')}/{ref['name']}"
        fields = getattr(record, "fields", None)
        if isinstance(fields, Mapping):
            out.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            out["error"] = str(record.exc_info[1])
        return json.dumps(out, default=str)


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("aiohttp", "asyncio", "kubernetes", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


# --------------------------------------------------------------------------- crash points
def crash_point(name: str, env: Mapping[str, str] = os.environ) -> None:
    """Exit at once with code 86 when MODELDOCK_CRASH_AT names this point (no cleanup)."""
    if env.get(CRASH_AT_ENV) != name:
        return
    logging.getLogger("modeldock").info("crash point reached", extra={"fields": {"point": name}})
    for h in logging.getLogger().handlers:
        h.flush()
    sys.stderr.flush()
    os._exit(CRASH_EXIT_CODE)


# --------------------------------------------------------------------------- metrics
class Metrics:
    """The contract's metric names, counted around kopf's handlers (kopf has its own notion of
    neither a reconcile nor a work queue: a handler call is what is counted as a reconcile)."""

    def __init__(self, registry: prom.CollectorRegistry | None = None) -> None:
        self.registry = registry or prom.CollectorRegistry()
        r = self.registry
        self.total = prom.Counter(
            "controller_runtime_reconcile_total",
            "Reconciles by result",
            ["controller", "result"],
            registry=r,
        )
        self.errors = prom.Counter(
            "controller_runtime_reconcile_errors_total",
            "Reconcile errors",
            ["controller"],
            registry=r,
        )
        self.seconds = prom.Histogram(
            "controller_runtime_reconcile_time_seconds",
            "Reconcile duration",
            ["controller"],
            registry=r,
        )
        self.depth = prom.Gauge(
            "workqueue_depth", "Handlers running or waiting", ["name"], registry=r
        )
        self.adds = prom.Counter("workqueue_adds_total", "Handler calls", ["name"], registry=r)
        for result in ("success", "error", "requeue", "requeue_after"):
            self.total.labels(CONTROLLER, result)
        self.errors.labels(CONTROLLER)
        self.depth.labels(CONTROLLER).set(0)
        self.adds.labels(CONTROLLER)

    def observe(self, result: str, seconds: float) -> None:
        self.total.labels(CONTROLLER, result).inc()
        if result == "error":
            self.errors.labels(CONTROLLER).inc()
        self.seconds.labels(CONTROLLER).observe(seconds)


F = TypeVar("F", bound=Callable[..., Any])


def counted(
    metrics: Metrics,
    classify: Callable[[BaseException], str],
    on_error: Callable[[Any, BaseException], None] | None = None,
) -> Callable[[F], F]:
    """Wrap a handler: one ``controller_runtime_reconcile_total`` per call, with ``result``
    success, or ``classify(exc)`` for an exception (which is re-raised for kopf to handle).
    ``on_error(kwargs_logger, exc)`` is called for results "error"."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def handler(*args: Any, **kwargs: Any) -> Any:
            metrics.adds.labels(CONTROLLER).inc()
            metrics.depth.labels(CONTROLLER).inc()
            start = time.monotonic()
            try:
                out = fn(*args, **kwargs)
            except BaseException as exc:
                result = classify(exc)
                metrics.observe(result, time.monotonic() - start)
                if result == "error" and on_error is not None:
                    on_error(kwargs.get("logger"), exc)
                raise
            finally:
                metrics.depth.labels(CONTROLLER).dec()
            metrics.observe("success", time.monotonic() - start)
            return out

        return handler  # type: ignore[return-value]

    return wrap


# --------------------------------------------------------------------------- HTTP endpoints
def serve(
    address: tuple[str, int], routes: Mapping[str, Callable[[], tuple[int, bytes, str]]]
) -> http.server.ThreadingHTTPServer:
    """A daemon-thread HTTP server answering GET on ``routes`` (path -> () -> (code, body,
    content type)); anything else 404."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            route = routes.get(self.path.split("?")[0])
            code, body, ctype = route() if route else (404, b"not found\n", "text/plain")
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(address, Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True, name=f"http{address}").start()
    return server


def health_routes(ready: threading.Event) -> dict[str, Callable[[], tuple[int, bytes, str]]]:
    """/healthz: 200 while the process runs; /readyz: 200 once ``ready`` is set."""
    return {
        "/healthz": lambda: (200, b"ok\n", "text/plain"),
        "/readyz": lambda: (
            (200, b"ok\n", "text/plain") if ready.is_set() else (503, b"not ready\n", "text/plain")
        ),
    }


def metrics_routes(metrics: Metrics) -> dict[str, Callable[[], tuple[int, bytes, str]]]:
    return {
        "/metrics": lambda: (200, prom.generate_latest(metrics.registry), prom.CONTENT_TYPE_LATEST)
    }
