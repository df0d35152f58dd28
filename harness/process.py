"""Child processes the harness owns: started with a log file, stopped for sure, dead with us.

Every process the harness starts (etcd, kube-apiserver, an operator, pytest, kubectl, a build)
goes through ``popen()``: it gets ``PR_SET_PDEATHSIG(SIGKILL)``, so it dies with the harness
even when the harness itself is SIGKILLed. The kernel sends that signal when the *thread* that
forked the child exits, not the process (prctl(2)), so ``popen()`` forks from the main thread
or from one spawner thread that lives as long as the process: a child started from a short-lived
worker thread is not killed when that thread ends. A child whose parent died before the signal
was armed kills itself at once.

``ManagedProcess`` adds a log file (stdout and stderr), ``stop()`` (SIGTERM, wait, SIGKILL) and
errors that carry the tail of the log, so a failed start explains itself.

``process_identity()`` names a process by its pid and start time, so that a pid reused by a
later process is not mistaken for the one that was meant (``harness.runs`` marks what a run
owns with it).
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import os
import queue
import random
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from harness.paths import cache_root

_T = TypeVar("_T")

_PR_SET_PDEATHSIG = 1

try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL("libc.so.6", use_errno=True)
except OSError:  # not glibc Linux: children are still stopped by stop() and by process groups
    _LIBC = None


def set_death_signal(sig: int = signal.SIGKILL, parent: int | None = None) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent thread exits
    (``prctl(PR_SET_PDEATHSIG)``); return False where that is not available.

    ``parent``: the pid the parent is expected to have. If the parent is already gone (this
    process was reparented before the signal was armed), the signal can never come, so this
    process sends it to itself now. Safe between fork and exec (no allocation beyond ctypes).
    """
    if _LIBC is None:
        return False
    _LIBC.prctl(_PR_SET_PDEATHSIG, int(sig))
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)
    return True


class _Spawner:
    """One daemon thread that forks children for threads other than the main thread, so that a
    child's PR_SET_PDEATHSIG is tied to a thread that lives as long as the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None

    def call(self, fn: Callable[[], _T]) -> _T:
        if threading.current_thread() is threading.main_thread():
            return fn()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="modeldock-spawner", daemon=True
                )
                self._thread.start()
        future: concurrent.futures.Future[_T] = concurrent.futures.Future()
        self._queue.put((fn, future))
        return future.result()

    def _run(self) -> None:
        while True:
            fn, future = self._queue.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)


_SPAWNER = _Spawner()


def popen(args: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **kwargs)`` for a child that dies with this process.

    The child gets PR_SET_PDEATHSIG(SIGKILL), armed between fork and exec; it is forked from
    the main thread or from the spawner thread (see the module docstring), never from a thread
    that may end first. ``kwargs`` are Popen's, except ``preexec_fn`` (taken). Raises what
    Popen raises (OSError if ``args[0]`` cannot be executed).
    """
    if "preexec_fn" in kwargs:
        raise TypeError("popen() sets preexec_fn itself")
    parent = os.getpid()

    def start() -> subprocess.Popen[Any]:
        return subprocess.Popen(list(args), preexec_fn=lambda: _die_with(parent), **kwargs)

    return _SPAWNER.call(start)


def _die_with(parent: int) -> None:  # runs in the child between fork and exec
    try:
        set_death_signal(signal.SIGKILL, parent)
    except OSError:
        pass


def run(
    args: Sequence[str],
    *,
    input: str | bytes | None = None,
    timeout: float | None = None,
    check: bool = False,
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` through ``popen()``: the child dies with this process.

    Same arguments and result as ``subprocess.run`` (``capture_output``, ``text``, ``cwd``,
    ``env``, ...); on ``timeout`` (seconds) the child is killed and subprocess.TimeoutExpired
    raised; ``check`` raises subprocess.CalledProcessError on a non-zero exit.
    """
    if kwargs.pop("capture_output", False):
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with popen(args, **kwargs) as proc:
        try:
            stdout, stderr = proc.communicate(input, timeout=timeout)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        code = proc.poll()
        assert code is not None
    if check and code:
        raise subprocess.CalledProcessError(code, list(args), stdout, stderr)
    return subprocess.CompletedProcess(list(args), code, stdout, stderr)


#: Ports handed out come from below Linux's ephemeral range (32768-60999), so they cannot be
#: taken in the meantime by an outgoing connection's local port, the usual cause of
#: "address already in use" when a port is picked first and bound later by another process.
_PORT_RANGE = (20000, 32767)


#: Where handed-out ports are reserved, one empty file per port, shared by every harness process
#: using the same cache (pytest-xdist workers, parallel mutant suites): two picks, in one
#: process or in two, never return the same port while its reservation lasts. In the cache,
#: not the temp dir: it belongs to no run, so no run's cleanup removes it. None: the cache's.
PORT_RESERVATIONS: Path | None = None

#: How long a handed-out port stays reserved, in seconds: a picked port is bound within
#: seconds; an older reservation is stale (its process is done with it, or gone).
PORT_RESERVATION_S = 600.0


def reserve_port(port: int, now: float | None = None) -> bool:
    """Reserve ``port`` in ``PORT_RESERVATIONS`` (default ``<cache>/ports``): True when it was not reserved, or its
    reservation is older than ``PORT_RESERVATION_S`` (then renewed); False when another pick
    holds it. ``now``: epoch seconds (default: the clock)."""
    folder = PORT_RESERVATIONS or cache_root() / "ports"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / str(port)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        return True
    except FileExistsError:
        pass
    t = time.time() if now is None else now
    try:
        if t - path.stat().st_mtime < PORT_RESERVATION_S:
            return False
        os.utime(path, (t, t))
    except FileNotFoundError:
        return reserve_port(port, now)
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that was free a moment ago, from below the ephemeral range, and
    handed out by no other pick in the last ``PORT_RESERVATION_S`` (``reserve_port``): an
    operator's metrics and health ports, picked one after the other, once came out equal,
    and the operator could not bind the second."""
    for _ in range(400):
        port = random.randint(*_PORT_RANGE)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
        if reserve_port(port):
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


def run_group(args: Sequence[str], *, stop_timeout: float = 30.0, **kwargs: Any) -> int:
    """Run ``args`` through ``popen()`` as the leader of a new session and process group, wait
    for it and return its exit code (negative: killed by that signal).

    Whatever it started that is still in its group when it exits is SIGKILLed (the group is
    signalled while the exited leader is not yet reaped, so its id cannot have been reused).
    If the wait is interrupted (KeyboardInterrupt, SIGTERM turned into one, any exception),
    the group gets SIGTERM, ``stop_timeout`` seconds for the leader to exit, then SIGKILL, and
    the exception propagates. ``kwargs`` are Popen's (not ``start_new_session``).
    """
    proc = popen(args, start_new_session=True, **kwargs)
    try:
        _wait_unreaped(proc.pid, None)
    except BaseException:
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            _wait_unreaped(proc.pid, stop_timeout)
        finally:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        raise
    _signal_group(proc.pid, signal.SIGKILL)
    return proc.wait()


def _wait_unreaped(pid: int, timeout: float | None) -> bool:
    """Wait until child ``pid`` has exited, leaving it unreaped (a zombie keeps its process
    group id taken); True if it did within ``timeout`` seconds (None: no limit)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        flags = os.WEXITED | os.WNOWAIT | (os.WNOHANG if deadline is not None else 0)
        try:
            if os.waitid(os.P_PID, pid, flags) is not None:
                return True
        except ChildProcessError:
            return True
        if deadline is not None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class ProcessError(RuntimeError):
    """A managed process failed to start or died; the message includes the tail of its log."""


class ManagedProcess:
    """One child process with a log file.

    ``args``: argv; ``log_path``: where stdout+stderr go (appended, so a restart keeps the
    earlier run's lines); ``env``: the full environment (None: inherit); ``own_session``:
    start it as the leader of a session of its own, so that a terminal's Ctrl-C (SIGINT to the
    foreground process group) reaches only the harness, which then stops it in order (the
    control plane's processes: a SIGINT straight to etcd made an interrupted run end as "control
    plane lost", exit 3, instead of 130). It still dies with this process (``popen``). Not
    started until ``start()``.
    """

    def __init__(
        self,
        name: str,
        args: Sequence[str],
        log_path: Path,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        own_session: bool = False,
    ) -> None:
        self.name = name
        self.own_session = own_session
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
                self._proc = popen(
                    self.args,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=self.env,
                    cwd=self.cwd,
                    start_new_session=self.own_session,
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
        if self._proc is None:
            raise ProcessError(f"{self.name} was never started")
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
            raise ProcessError(
                f"{self.name} exited with code {self._proc.returncode}; "
                f"last lines of {self.log_path}:\n{log_tail(self.log_path)}"
            )


def wait_until(
    predicate: Callable[[], object],
    timeout: float,
    interval: float = 0.1,
    what: str = "condition",
    alive: Sequence[ManagedProcess] = (),
) -> None:
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
    """True if a process with ``pid`` exists (a zombie, dead but not yet reaped, counts as
    gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _proc_stat(pid)
    return fields is None or fields[0] not in ("Z", "X")


def _proc_stat(pid: int, path: str | None = None) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` (or of ``path``, a thread's) after the command name
    (index 0 is field 3, the state), or None if there is no such process (proc(5))."""
    try:
        with open(path or f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return raw[raw.rindex(")") + 2 :].split()


def thread_states(pid: int) -> set[str]:
    """The state letters of the threads of process ``pid`` (field 3 of each
    ``/proc/<pid>/task/<tid>/stat``, proc(5): ``R`` running, ``S`` sleeping, ``T`` stopped by
    a signal, ``Z`` zombie, ...); empty if there is no such process."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return set()
    states = set()
    for tid in tids:
        fields = _proc_stat(int(tid), f"/proc/{pid}/task/{tid}/stat")
        if fields:
            states.add(fields[0])
    return states


def process_identity(pid: int | None = None) -> str | None:
    """``"<pid>:<start time>"`` for a live process (default: this one), or None if no live
    process has that pid (gone, or a zombie).

    The start time is field 22 of ``/proc/<pid>/stat`` (clock ticks after boot, proc(5)): a
    later process that reuses the pid has another, so an identity never names a newcomer.
    """
    pid = os.getpid() if pid is None else pid
    fields = _proc_stat(pid)
    if fields is None or fields[0] in ("Z", "X"):
        return None
    return f"{pid}:{fields[19]}"


def identity_alive(identity: str) -> bool:
    """True if the process named by ``identity`` (from ``process_identity``) still runs."""
    pid, _, _ = identity.partition(":")
    return pid.isdigit() and process_identity(int(pid)) == identity
