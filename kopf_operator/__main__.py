"""python -m kopf_operator: the ModelService operator on kopf, run with the contract's
environment (conformance/CONTRACT.md, "Process")."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

import kopf
from kubernetes import config as k8s_config

from kopf_operator import glue, handlers

EXIT_BAD_CONFIG = 2
#: Exit code of a second SIGTERM/SIGINT during a graceful stop (as the other implementations).
EXIT_SECOND_SIGNAL = 1
#: Exit code when kopf itself stopped with an error.
EXIT_KOPF_FAILED = 1


def install_signal_handlers(stop: Callable[[], None]) -> None:
    """SIGTERM or SIGINT: ``stop()`` (kopf's stop flag: a graceful stop). A second signal: exit
    at once with ``EXIT_SECOND_SIGNAL`` (conformance/CONTRACT.md, "Process"). kopf's own
    handlers only set its stop flag, and ignore a second signal; so kopf runs in a worker
    thread (where it installs none) and the main thread owns the signals."""
    received: list[int] = []

    def handle(signum: int, frame: FrameType | None) -> None:
        if received:
            sys.stderr.flush()
            os._exit(EXIT_SECOND_SIGNAL)
        received.append(signum)
        stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def main() -> int:
    glue.configure_logging()
    log = logging.getLogger("modeldock")
    try:
        cfg = glue.config_from_env(os.environ)
        metrics_at = glue.split_address(cfg.metrics_bind_address)
        health_at = glue.split_address(cfg.health_probe_bind_address)
    except glue.ConfigError as exc:
        log.error("invalid configuration", extra={"fields": {"error": str(exc)}})
        return EXIT_BAD_CONFIG
    # The handlers write children with the official client; kopf logs in by itself (it reads
    # the same KUBECONFIG).
    k8s_config.load_kube_config(config_file=cfg.kubeconfig)  # type: ignore[no-untyped-call]
    handlers.OPTIONS["workers"] = cfg.max_concurrent_reconciles
    if cfg.leader_election:
        log.info("LEADER_ELECTION=true: kopf has no Lease election; running standalone")
    ready = threading.Event()
    if metrics_at:
        glue.serve(metrics_at, glue.metrics_routes(handlers.METRICS))
    if health_at:
        glue.serve(health_at, glue.health_routes(ready))
    log.info(
        "starting kopf",
        extra={
            "fields": {
                "namespace": cfg.watch_namespace,
                "kopf": kopf.__version__ if hasattr(kopf, "__version__") else "",
            }
        },
    )
    stop = threading.Event()
    failed: list[BaseException] = []

    def run_kopf() -> None:
        try:
            kopf.run(
                namespaces=[cfg.watch_namespace], standalone=True, ready_flag=ready, stop_flag=stop
            )
        except BaseException as exc:  # reported below: the process exits 1
            failed.append(exc)

    install_signal_handlers(stop.set)
    runner = threading.Thread(target=run_kopf, name="kopf")
    runner.start()
    runner.join()  # interruptible: the signal handlers run in this (the main) thread
    if failed:
        log.error("kopf stopped with an error", extra={"fields": {"error": repr(failed[0])}})
        return EXIT_KOPF_FAILED
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
