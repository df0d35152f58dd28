"""Child processes the harness owns: started with a log file, stopped for sure.

Every process the harness starts (etcd, kube-apiserver, an operator) is a ``ManagedProcess``:
its stdout and stderr go to a log file; it gets ``PR_SET_PDEATHSIG(SIGKILL)`` so that it dies
with the harness even when the harness itself is SIGKILLed; and ``stop()`` sends SIGTERM, waits,
then SIGKILLs. Errors carry the tail of the log, so a failed start explains itself.
"""

from __future__ import annotations

import ctypes
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


#: Ports handed out come from below Linux's ephemeral range (32768-60999), so they cannot be
#: taken in the meantime by an outgoing connection's local port, the usual cause of
#: "address already in use" when a port is picked first and bound later by another process.
_PORT_RANGE = (20000, 32767)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that was free a moment ago, from below the ephemeral range."""
    for _ in range(200):
        port = random.randint(*_PORT_RANGE)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def log_tail(path: Path, lines: int = 30) -> str:
    """The last ``lines`` lines of a log file, or a note that it is empty or missing."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return f"(no log at {path})"
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else f"(log {path} is empty)"


class ProcessError(RuntimeError):
    """A managed process failed to start or died; the message includes the tail of its log."""


class ManagedProcess:
    """One child process with a log file.

    ``args``: argv; ``log_path``: where stdout+stderr go (appended, so a restart keeps the
    earlier run's lines); ``env``: the full environment (None: inherit). Not started until
    ``start()``.
    """

    def __init__(self, name: str, args: Sequence[str], log_path: Path,
                 env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.name = name
        self.args = list(args)
        self.log_path = log_path
        self.env = env
        self.cwd = cwd
        self._proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def start(self) -> ManagedProcess:
        """Start the process. Raises ProcessError if it is already running or cannot be executed."""
        if self.running():
            raise ProcessError(f"{self.name} is already running (pid {self.pid})")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            if self.starts:
                log.write(f"\n----- {self.name} restarted -----\n".encode())
                log.flush()
            try:
                self._proc = subprocess.Popen(
                    self.args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    env=self.env, cwd=self.cwd, preexec_fn=_die_with_parent,
                )
            except OSError as exc:
                raise ProcessError(f"cannot start {self.name} ({self.args[0]}): {exc}") from exc
        self.starts += 1
        return self

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def returncode(self) -> int | None:
        """The exit code once the process ended (negative: killed by that signal), else None."""
        return self._proc.poll() if self._proc else None

    def wait(self, timeout: float) -> int:
        """Wait up to ``timeout`` seconds for the process to end; return its exit code.

        Raises subprocess.TimeoutExpired if it is still running.
        """
        assert self._proc is not None, f"{self.name} was never started"
        return self._proc.wait(timeout)

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the process if it runs."""
        if self.running():
            assert self._proc is not None
            self._proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL the process and reap it."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, wait up to ``timeout`` seconds, then SIGKILL. Returns the exit code."""
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        return self._proc.returncode

    def check_alive(self) -> None:
        """Raise ProcessError with the log tail if the process has exited."""
        if self._proc is not None and self._proc.poll() is not None:
            raise ProcessError(f"{self.name} exited with code {self._proc.returncode}; "
                               f"last lines of {self.log_path}:\n{log_tail(self.log_path)}")


def wait_until(predicate, timeout: float, interval: float = 0.1, what: str = "condition",
               alive: Sequence[ManagedProcess] = ()) -> None:  # type: ignore[no-untyped-def]
    """Poll ``predicate()`` until it is truthy; raise TimeoutError naming ``what`` after ``timeout`` s.

    ``alive``: processes that must stay up while waiting; if one exits, its ProcessError is
    raised at once instead of waiting out the timeout.
    """
    deadline = time.monotonic() + timeout
    last_exc: Exception | None = None
    while True:
        for p in alive:
            p.check_alive()
        try:
            if predicate():
                return
        except Exception as exc:
            last_exc = exc
        if time.monotonic() > deadline:
            detail = f" (last error: {last_exc})" if last_exc else ""
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}{detail}")
        time.sleep(interval)


def pid_alive(pid: int) -> bool:
    """True if a process with ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
