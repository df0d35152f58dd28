"""Stop a run at once, with one line, when its control plane is gone.

Without it every remaining check would time out, one after another, against a dead API server.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.envtest.controlplane import state_lost
from harness.plugin import options

#: pytest's exit code when the session stopped because its control plane was lost (pytest
#: itself uses 0-5).
CONTROL_PLANE_LOST = 6


class ControlPlaneWatchdog:
    """Stops the pytest session at once, with one line, when its control plane is gone.

    A daemon thread calls ``probe()`` every ``interval`` seconds (``ControlPlane.lost`` or
    ``controlplane.state_lost``: a reason string, or None while the plane runs). On the first
    reason it: SIGTERMs this process's children, the pytest-xdist workers, if ``workers``
    (they unwind: operators and private control planes stopped); in a worker, sets
    ``session.shouldstop`` (its controller then stops the whole run); and raises
    ``pytest.exit("control plane lost: <reason>; stopping the run", CONTROL_PLANE_LOST)`` in
    the main thread, through SIGUSR1 so that a sleep or a blocking read there is cut short
    too. pytest prints that as the session's last line.

    ``start()`` and ``stop()`` must be called from the main thread (they set and restore the
    SIGUSR1 handler); ``stop()`` before the plane is stopped on purpose.
    """

    def __init__(
        self,
        probe: Callable[[], str | None],
        session: pytest.Session,
        *,
        workers: bool = False,
        interval: float = 1.0,
    ) -> None:
        self.probe = probe
        self.session = session
        self.workers = workers
        self.interval = interval
        self.reason: str | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._previous: Any = None

    def start(self) -> ControlPlaneWatchdog:
        self._previous = signal.signal(signal.SIGUSR1, self._raise_exit)
        self._thread = threading.Thread(target=self._run, name="modeldock-watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            signal.signal(signal.SIGUSR1, self._previous)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                reason = self.probe()
            except Exception:
                continue
            if reason is None:
                continue
            with self._lock:
                if self._stop.is_set():
                    return
                self.reason = reason
                if hasattr(self.session.config, "workerinput"):  # the controller stops the run
                    self.session.shouldstop = f"control plane lost: {reason}"
                if self.workers:
                    for pid in _children():
                        try:
                            os.kill(pid, signal.SIGTERM)
                        except OSError:
                            pass
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)
            return

    def _raise_exit(self, signum: int, frame: Any) -> None:
        if self.reason is not None and not self._stop.is_set():
            self._stop.set()
            # The run is stopping already: a SIGTERM now (the harness stopping the other suites
            # of a run whose control plane is gone) would only turn into a KeyboardInterrupt
            # inside pytest's own exit path, a traceback on the harness's terminal.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            pytest.exit(
                f"control plane lost: {self.reason}; stopping the run",
                returncode=CONTROL_PLANE_LOST,
            )


def _children() -> list[int]:
    """The pids of this process's children (``/proc/self/task/*/children``, Linux ≥ 3.5)."""
    pids: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


class _SessionWatchdog:
    """Runs a ``ControlPlaneWatchdog`` on the ``--modeldock-control-plane-state`` plane in the controlling
    process (or the only one), from session start to session finish."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.watchdog: ControlPlaneWatchdog | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        state = options.value(self.config, "control-plane-state")
        if (
            not state
            or not Path(state).exists()
            or hasattr(self.config, "workerinput")
            or self.config.getoption("--collect-only")
        ):
            return
        self.watchdog = ControlPlaneWatchdog(
            lambda: state_lost(state),
            session,
            workers=self.config.pluginmanager.has_plugin("dsession"),
        ).start()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        if self.watchdog is not None:
            self.watchdog.stop()
            self.watchdog = None
