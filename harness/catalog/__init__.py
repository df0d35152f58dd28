"""The model catalog: an external service with durable effects, run as a real process.

The article that ModelDock teaches ends on this: replicas can be recomputed and written again,
but an effect outside the cluster (a ledger debited, a model registered in a catalog) cannot
rely on being run again; it needs a durable request identity. The catalog is that outside
world, in small: an HTTP service (``server.py``, stdlib only) whose registrations are kept in
SQLite, one row per effect, and which answers a request whose ``Idempotency-Key`` it has seen
with the original result and no new effect. The operators register each ModelService
generation with it when ``MODELDOCK_CATALOG_URL`` is set (CONTRACT.md, "The model catalog"),
and the check ``external-effect-once`` (conformance/test_catalog.py) counts its effects.

``Catalog`` is the harness's handle: it starts ``python -m harness.catalog`` on a free port,
and reads the effects and arms the hold fault over HTTP::

    with Catalog(tmp_path) as catalog:
        env = {CATALOG_URL_ENV: catalog.url}
        ...
        catalog.effects()            # [{"id": "reg-1", "key": "<uid>/1", ...}]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

#: The operators' environment variable naming the catalog (CONTRACT.md, "Process").
CATALOG_URL_ENV = "MODELDOCK_CATALOG_URL"
#: Seconds the catalog may take to start listening.
START_TIMEOUT = 30.0


class CatalogError(RuntimeError):
    """The catalog process did not start, or did not answer."""


class Catalog:
    """A catalog process with its SQLite file and log in ``workdir``."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.db = workdir / "catalog.sqlite"
        self.log_path = workdir / "catalog.log"
        self.url = ""
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Catalog:
        """Start the process and wait until it answers /healthz (at most START_TIMEOUT s).
        Raises CatalogError with the log's tail when it does not."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        url_file = self.workdir / "catalog.url"
        url_file.unlink(missing_ok=True)
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "harness.catalog",
                    "--db",
                    str(self.db),
                    "--url-file",
                    str(url_file),
                ],
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            if url_file.exists():
                self.url = url_file.read_text().strip()
                try:
                    self._call("GET", "/healthz")
                    return self
                except CatalogError:
                    pass
            time.sleep(0.05)
        tail = self.log_path.read_text(errors="replace")[-2000:]
        self.stop()
        raise CatalogError(f"the model catalog did not start within {START_TIMEOUT:.0f} s: {tail}")

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL after 5 s)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None

    def __enter__(self) -> Catalog:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _call(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        timeout: float = 10.0,
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")
        except (urllib.error.URLError, OSError) as exc:
            raise CatalogError(f"the model catalog at {self.url}: {method} {path}: {exc}") from exc

    def register(self, key: str, **fields: str) -> tuple[int, dict[str, Any]]:
        """POST /registrations with ``key`` as the Idempotency-Key: (HTTP code, document)."""
        return self._call("POST", "/registrations", fields, {"Idempotency-Key": key})

    def effects(self) -> list[dict[str, Any]]:
        """Every effect recorded, in order."""
        return list(self._call("GET", "/effects")[1]["effects"])

    def hold_answers(self, count: int = 1) -> None:
        """The next ``count`` registrations that record an effect hold their answer."""
        self._call("POST", "/faults/hold", {"count": count})

    def wait_held(self, timeout: float) -> list[str]:
        """Wait up to ``timeout`` s for an answer to be held: the keys held (empty: none)."""
        return list(
            self._call("GET", f"/faults/held?wait={timeout}", timeout=timeout + 10)[1]["held"]
        )

    def fail_registrations(self, count: int = 1) -> None:
        """The next ``count`` registrations are answered 500 with an id (``UNRECORDED_ID``)
        and record nothing."""
        self._call("POST", "/faults/fail", {"count": count})

    def failed(self) -> list[str]:
        """The keys whose registration was answered 500 by ``fail_registrations``, in order."""
        return list(self._call("GET", "/faults/failed")[1]["failed"])

    def release(self) -> None:
        """Release every held answer and disarm the hold."""
        self._call("POST", "/faults/release")
