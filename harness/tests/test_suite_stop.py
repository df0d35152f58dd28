"""harness.suite.run_suite after ``stop_suites``: a suite another thread stopped (Ctrl-C while
the implementations ran side by side) publishes no JUnit file, though pytest ends a SIGTERM
with exit code 2, one of the codes a finished run is published after."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness import suite
from harness.process import run_group


def _fake_pytest(stop: bool) -> Any:
    """A stand-in for ``run_group`` that writes the JUnit file pytest would, ``stop_suites()``
    meanwhile when ``stop``, and exits 2 (pytest's code for an interrupted session)."""

    def run_group(cmd: list[str], **_: Any) -> int:
        junit = next(a.split("=", 1)[1] for a in cmd if a.startswith("--junitxml="))
        Path(junit).write_text("<testsuites/>\n")
        if stop:
            suite.stop_suites()
        return 2

    return run_group


@pytest.mark.parametrize("stopped", [False, True])
def test_a_stopped_suite_publishes_no_junit(
    stopped: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suite, "run_group", _fake_pytest(stopped))
    code = suite.run_suite("go", tmp_path / "state.json", tmp_path, [], [])
    assert code == 2
    assert (tmp_path / "junit-go.xml").exists() is not stopped


def test_run_together_kills_a_suite_that_ignores_sigterm(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One suite fails at once; the other's pytest ignores SIGTERM (a teardown that hangs):
    run_together SIGKILLs it after PYTEST_STOP_TIMEOUT instead of waiting for ever."""
    monkeypatch.setattr(suite, "PYTEST_STOP_TIMEOUT", 1.0)
    up = tmp_path / "up"
    stubborn = (
        "import pathlib, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"pathlib.Path({str(up)!r}).touch(); time.sleep(120)"
    )
    codes: dict[str, int] = {}

    def run(impl_id: str) -> None:
        if impl_id == "python":
            # fail once the other suite's pytest ignores SIGTERM (its handler is set before it
            # touches the file), however long a loaded machine takes to start it
            deadline = time.monotonic() + 60
            while not up.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            raise RuntimeError("control plane lost")
        codes[impl_id] = run_group([sys.executable, "-c", stubborn, "pytest"], stop_timeout=1.0)

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="control plane lost"):
        suite.run_together(run, ["go", "python"])
    assert time.monotonic() - started < 90
    assert codes == {"go": -signal.SIGKILL}


def test_run_together_runs_no_more_suites_at_once_than_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three implementations with MODELDOCK_SUITES_AT_ONCE=2: never more than two suites run
    at the same time, and all three run."""
    monkeypatch.setenv("MODELDOCK_SUITES_AT_ONCE", "2")
    lock = threading.Lock()
    running: list[int] = [0, 0]  # now, most seen
    ran: list[str] = []

    def run(impl_id: str) -> None:
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1
            ran.append(impl_id)

    suite.run_together(run, ["go", "python", "kopf"])
    assert sorted(ran) == ["go", "kopf", "python"]
    assert running[1] == 2


@pytest.mark.parametrize("raw", ["0", "two", "-1"])
def test_suites_at_once_refuses_what_is_not_a_count(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("MODELDOCK_SUITES_AT_ONCE", raw)
    with pytest.raises(ValueError, match="MODELDOCK_SUITES_AT_ONCE"):
        suite.suites_at_once()
