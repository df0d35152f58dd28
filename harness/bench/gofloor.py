"""The floor client as a process: ``harness/bench/floorclient`` (Go, client-go, no informer, no
work queue, no client-side rate limit), built once into ``build/floor/<hash>/modeldock-floor``
like the API proxy, and driven by the bench through its stdin and stdout (the protocol is in
the Go program's doc comment).

``floor_binary`` finds or builds the binary; ``GoFloor`` runs one measured batch: start (the
process connects and handles one unmeasured warm-up ModelService), ``go`` (the bench's clock at
the start line, the zero of every time in the outcome), ``outcome`` (the JSON the process
prints once every write is answered).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from harness import process
from harness.gocache import cached_build
from harness.paths import BUILD_DIR

#: The Go module of the floor client.
SOURCE_DIR = Path(__file__).resolve().parent / "floorclient"
#: Built binaries: ``build/floor/<hash of the sources and the Go version>/modeldock-floor``.
FLOOR_BUILD_DIR = BUILD_DIR / "floor"


class FloorError(RuntimeError):
    """The floor client could not be built, did not get ready, or printed no outcome; the
    message says which, with its stderr."""


def floor_binary(progress: Callable[[str], None] = lambda line: None) -> Path:
    """The floor client's binary for the current sources (``*.go``, ``go.mod``, ``go.sum``,
    ``go version``), built under a lock if absent. Raises FloorError if Go is missing or the
    build fails."""
    return cached_build(
        SOURCE_DIR, FLOOR_BUILD_DIR, "modeldock-floor", "the floor client", FloorError, progress
    )


class GoFloor:
    """One run of the floor client: N ModelServices ``<prefix>0000..`` created by the admin
    (``create_threads`` goroutines) in ``namespace``, each create's answer written by one of
    ``workers`` goroutines as the floor user. ``pid`` is the process's (for its CPU)."""

    def __init__(
        self,
        binary: Path,
        *,
        admin_kubeconfig: Path,
        kubeconfig: Path,
        namespace: str,
        objects: int,
        workers: int,
        create_threads: int,
        prefix: str = "tp-",
        stderr_path: Path | None = None,
    ) -> None:
        self.args = [
            str(binary),
            f"-admin-kubeconfig={admin_kubeconfig}",
            f"-kubeconfig={kubeconfig}",
            f"-namespace={namespace}",
            f"-objects={objects}",
            f"-workers={workers}",
            f"-create-threads={create_threads}",
            f"-prefix={prefix}",
        ]
        self.stderr_path = stderr_path
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: IO[str] | None = None

    @property
    def pid(self) -> int | None:
        """The process id, once started."""
        return None if self._proc is None else self._proc.pid

    def _line(self, timeout: float, what: str) -> dict[str, Any]:
        assert self._proc is not None and self._proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(self._proc.stdout, selectors.EVENT_READ)
        try:
            if not sel.select(timeout):
                raise FloorError(f"the floor client printed no {what} within {timeout:.0f}s")
        finally:
            sel.close()
        line = self._proc.stdout.readline()
        if not line:
            self._proc.wait(10)
            raise FloorError(
                f"the floor client exited (code {self._proc.returncode}) before its {what}: "
                f"{self._stderr_tail()}"
            )
        return dict(json.loads(line))

    def _stderr_tail(self) -> str:
        if self.stderr_path is None or not self.stderr_path.exists():
            return "(no stderr kept)"
        return self.stderr_path.read_text(errors="replace")[-2000:].strip() or "(stderr empty)"

    def start(self, timeout: float = 120.0) -> GoFloor:
        """Start the process; return once it has handled its warm-up ModelService. Raises
        FloorError when it exits or says nothing within ``timeout`` s."""
        self._stderr = open(self.stderr_path or os.devnull, "w")  # noqa: SIM115 (closed in stop)
        self._proc = process.popen(
            self.args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        self._line(timeout, "ready line")
        return self

    def go(self) -> float:
        """Send the start line; return ``time.monotonic()`` just before it was sent (the zero
        of the outcome's times)."""
        assert self._proc is not None and self._proc.stdin is not None
        t0 = time.monotonic()
        self._proc.stdin.write("go\n")
        self._proc.stdin.flush()
        return t0

    def outcome(self, timeout: float) -> dict[str, Any]:
        """The process's outcome (``objects``, ``workers``, ``creates_done_s``,
        ``last_write_done_s``, ``writes_ok``, ``writes_failed``, ``failed_by_kind``, ``cpu_s``,
        ``writes_per_s``; seconds from the start line) once every write is answered."""
        out = self._line(timeout, "outcome")
        assert self._proc is not None
        self._proc.wait(30)
        return out

    def stop(self) -> None:
        """Kill the process if it still runs; close its pipes."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait(10)
            for pipe in (self._proc.stdin, self._proc.stdout):
                if pipe is not None:
                    pipe.close()
        if self._stderr is not None:
            self._stderr.close()
