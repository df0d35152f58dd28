"""A killed harness leaves no run behind (issue 8, item 4).

Whatever ends ``python -m harness conformance`` (SIGKILL, SIGTERM, Ctrl-C) and wherever it is
(starting its control plane, running pytest, in a check on a private control plane): no
process it started survives, the next start leaves no temp dir of it, and the dead run writes
no report. A pytest run whose control plane dies stops at once with one line.

Real processes, real signals, the real binaries and a minimal conformance run (one check, one
xdist worker). Each harness runs with its own ``TMPDIR``, so "no leftover dir" means exactly
the dirs of that run. Every bound is a generous wait for a condition, never a timing. The
test watches processes through ``/proc`` itself (black box: it does not trust the harness's
own bookkeeping); ``test_runs.py`` tests that bookkeeping.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.envtest.controlplane import ControlPlane
from harness.tests.signals import as_from_a_terminal

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Generous bounds (seconds) for a loaded 2-core machine shared with other test runs.
REACH_POINT = 300
ALL_GONE = 90
HARNESS_EXIT = 150
#: The environment variable with which the harness marks the processes of a run.
RUN_ENV = "MODELDOCK_RUN"


# --------------------------------------------------------------------------- process helpers
@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    identity: str
    cmd: str

    @property
    def name(self) -> str:
        return Path(self.cmd.split(" ", 1)[0]).name


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _proc(pid: int) -> Proc | None:
    """A live process (zombies are dead) with its identity ``pid:start time`` (proc(5) stat
    fields 4 and 22), or None."""
    stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
    if ")" not in stat:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None
    cmd = _read(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode(errors="replace").strip()
    return Proc(pid, int(fields[1]), f"{pid}:{fields[19]}", cmd)


def alive(identity: str) -> bool:
    p = _proc(int(identity.split(":")[0]))
    return p is not None and p.identity == identity


def tree(root: int) -> list[Proc]:
    """``root``'s live descendants (not ``root``), from ``/proc/<pid>/task/*/children``."""
    found: list[Proc] = []
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        try:  # a process may exit between finding it and reading its tasks
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            for child in _read(f"/proc/{pid}/task/{task}/children").split():
                p = _proc(int(child))
                if p is not None:
                    found.append(p)
                    frontier.append(p.pid)
    return found


def marked(identities: set[str]) -> list[Proc]:
    """Live processes whose ``MODELDOCK_RUN`` names one of ``identities``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        env = _read(f"/proc/{entry.name}/environ").split(b"\0")
        mark = next(
            (v.split(b"=", 1)[1].decode() for v in env if v.startswith(RUN_ENV.encode() + b"=")),
            None,
        )
        if mark in identities:
            p = _proc(int(entry.name))
            if p is not None:
                found.append(p)
    return found


def wait_for(
    what: str,
    predicate: Callable[[], bool],
    timeout: float,
    explain: Callable[[], str] = lambda: "",
) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f}s: {what}\n{explain()}")
        time.sleep(0.2)


# --------------------------------------------------------------------------- a harness run
class HarnessRun:
    """``python -m harness conformance`` in its own session, with its own TMPDIR and reports
    folder; remembers every process it has seen under it."""

    def __init__(self, tmp_path: Path, pytest_args: list[str]) -> None:
        self.tmpdir = tmp_path / "tmp"
        self.reports = tmp_path / "reports"
        self.log = tmp_path / "harness.log"
        self.tmpdir.mkdir()
        self.env = {**os.environ, "TMPDIR": str(self.tmpdir)}
        cmd = [
            sys.executable,
            "-m",
            "harness",
            "conformance",
            "--impl",
            "go",
            "--reports",
            str(self.reports),
            "--",
            *pytest_args,
        ]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                cmd,
                cwd=REPO_ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=as_from_a_terminal,  # Ctrl-C reaches it even from a background job
            )
        me = _proc(self.proc.pid)
        assert me is not None, self.log_tail()
        self.identity = me.identity
        self.seen: dict[str, Proc] = {}

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "--- harness log (tail):\n" + "\n".join(text.splitlines()[-lines:])

    def snapshot(self) -> list[Proc]:
        now = tree(self.proc.pid)
        self.seen.update({p.identity: p for p in now})
        return now

    def wait_until(self, what: str, predicate: Callable[[list[Proc]], bool]) -> list[Proc]:
        """Poll the process tree until ``predicate(tree)``; fail if the harness ends first."""
        deadline = time.monotonic() + REACH_POINT
        while True:
            now = self.snapshot()
            if predicate(now):
                return now
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"the harness exited ({self.proc.returncode}) before {what}\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"not within {REACH_POINT}s: {what}\n{self.log_tail()}")
            time.sleep(0.2)

    def survivors(self) -> list[Proc]:
        """Processes of this run still alive: seen under the harness, or marked with the
        harness's or a pytest controller's run identity (reparented ones included)."""
        found = {p.identity: p for p in self.seen.values() if alive(p.identity)}
        owners = {self.identity} | set(self.seen)
        while True:  # the marks of marked processes too (a pytest started after a snapshot)
            more = {p.identity: p for p in marked(owners)}
            found.update(more)
            if set(more) <= owners:
                return list(found.values())
            owners |= set(more)

    def leftover_dirs(self) -> list[str]:
        return sorted(p.name for p in self.tmpdir.iterdir() if p.name.startswith("modeldock-"))

    def reports_written(self) -> list[str]:
        if not self.reports.exists():
            return []
        return sorted(
            p.name
            for p in self.reports.iterdir()
            if p.name.startswith(("junit-", "comparison.", ".junit-"))
        )

    def next_start(self) -> subprocess.CompletedProcess[str]:
        """Another harness command with the same TMPDIR: it cleans up after dead runs."""
        return subprocess.run(
            [sys.executable, "-m", "harness", "report", "--reports", str(self.reports)],
            cwd=REPO_ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def cleanup(self) -> None:
        """After a failed assertion: end what is left of this run, by pid."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for p in self.survivors():
            try:
                os.kill(p.pid, signal.SIGKILL)
            except OSError:
                pass


def is_etcd(p: Proc) -> bool:
    return p.name == "etcd"


def is_apiserver(p: Proc) -> bool:
    return p.name == "kube-apiserver"


def is_worker(p: Proc) -> bool:
    return "exec(eval(sys.stdin.readline()))" in p.cmd


def is_operator(p: Proc) -> bool:
    return p.name == "modeldock-go"


def control_plane_starting(now: list[Proc]) -> bool:
    """The harness's own etcd runs, pytest does not yet."""
    return any(is_etcd(p) for p in now) and not any("-m pytest" in p.cmd for p in now)


def pytest_worker_running(now: list[Proc]) -> bool:
    return any(is_worker(p) for p in now)


def check_on_private_plane(now: list[Proc]) -> bool:
    """A worker runs an operator against a control plane of its own."""
    workers = {p.pid for p in now if is_worker(p)}
    with_plane = {p.ppid for p in now if is_etcd(p) and p.ppid in workers}
    return any(is_operator(p) and p.ppid in with_plane for p in now)


@pytest.fixture
def binaries_ready() -> None:
    from harness.envtest import binaries

    binaries.ensure(binaries.ENVTEST_BINARIES)


def _kill_and_check(run: HarnessRun, sig: int, *, group: bool) -> None:
    if group:
        os.killpg(run.proc.pid, sig)  # Ctrl-C: the terminal signals the foreground group
    else:
        run.proc.send_signal(sig)
    if sig == signal.SIGKILL:
        assert run.proc.wait(HARNESS_EXIT) == -signal.SIGKILL
    else:
        try:
            code = run.proc.wait(HARNESS_EXIT)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"the harness did not exit within {HARNESS_EXIT}s of "
                f"{signal.Signals(sig).name}\n{run.log_tail()}"
            ) from None
        assert code == 128 + sig, run.log_tail()  # harness.exitcodes: 130 SIGINT, 143 SIGTERM
    wait_for(
        "every process of the killed run is gone",
        lambda: not run.survivors(),
        ALL_GONE,
        lambda: (
            "survivors:\n"
            + "\n".join(f"  {p.pid} {p.cmd[:150]}" for p in run.survivors())
            + "\n"
            + run.log_tail()
        ),
    )
    # Nothing of the run is left that could still write: no report may exist now or later.
    assert run.reports_written() == [], run.log_tail()
    if sig != signal.SIGKILL:
        # An interrupted harness cleans up itself, before any next start.
        assert run.leftover_dirs() == [], run.log_tail()
    print(f"left before the next start: {run.leftover_dirs() or 'nothing'}")
    nxt = run.next_start()
    print(f"next start: {nxt.stderr.strip()}")
    assert nxt.returncode == 2, nxt.stderr  # `report` finds no JUnit file: none was written
    assert run.leftover_dirs() == [], nxt.stderr
    assert run.reports_written() == []


@pytest.mark.parametrize(
    ("sig", "group", "point", "pytest_args"),
    [
        pytest.param(
            signal.SIGKILL,
            False,
            control_plane_starting,
            ["-n", "1", "-k", "test_create_converges"],
            id="sigkill-control-plane-start",
        ),
        pytest.param(
            signal.SIGKILL,
            False,
            check_on_private_plane,
            ["-n", "1", "-k", "test_connection_stall"],
            id="sigkill-check-on-private-plane",
        ),
        pytest.param(
            signal.SIGTERM,
            False,
            pytest_worker_running,
            ["-n", "1", "-k", "test_create_converges"],
            id="sigterm-pytest-running",
        ),
        pytest.param(
            signal.SIGINT,
            True,
            pytest_worker_running,
            ["-n", "1", "-k", "test_create_converges"],
            id="ctrl-c-pytest-running",
        ),
    ],
)
def test_killed_harness_leaves_no_run_behind(
    binaries_ready: None,
    tmp_path: Path,
    sig: int,
    group: bool,
    point: Callable[[list[Proc]], bool],
    pytest_args: list[str],
) -> None:
    run = HarnessRun(tmp_path, pytest_args)
    try:
        now = run.wait_until(point.__name__.replace("_", " "), point)
        print(
            f"{signal.Signals(sig).name}{' (group)' if group else ''} at "
            f"{point.__name__}: " + ", ".join(sorted(p.name for p in now))
        )
        _kill_and_check(run, sig, group=group)
    finally:
        run.cleanup()


# --------------------------------------------------------------------------- watchdog
WAITING_SUITE = """
import time

def test_waits_for_a_long_time(control_plane):
    open({started!r}, "w").close()
    time.sleep(600)

def test_never_reached(control_plane):
    pass
"""


@pytest.fixture
def plane(binaries_ready: None) -> Iterator[ControlPlane]:
    with ControlPlane() as cp:
        yield cp


@pytest.mark.parametrize("victim", ["etcd", "kube-apiserver"])
def test_lost_control_plane_stops_the_run_with_one_line(
    plane: ControlPlane, tmp_path: Path, victim: str
) -> None:
    started = tmp_path / "started"
    suite = tmp_path / "test_waiting.py"
    suite.write_text(WAITING_SUITE.format(started=str(started)))
    junit = tmp_path / "junit.xml"
    with open(tmp_path / "pytest.log", "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                str(suite),
                f"--modeldock-control-plane-state={plane.state_path}",
                "-n",
                "1",
                "-p",
                "no:cacheprovider",
                f"--junitxml={junit}",
                "-q",
            ],
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        wait_for(
            "the check runs",
            started.exists,
            REACH_POINT,
            lambda: (tmp_path / "pytest.log").read_text(),
        )
        victim_proc = plane.etcd if victim == "etcd" else plane.apiserver
        assert victim_proc is not None
        victim_proc.kill()
        code = proc.wait(ALL_GONE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out = (tmp_path / "pytest.log").read_text()
    from harness.plugin.watchdog import CONTROL_PLANE_LOST

    assert code == CONTROL_PLANE_LOST, out
    lines = [line for line in out.splitlines() if "control plane lost" in line]
    assert len(lines) == 1, out
    assert f"{victim} (pid {victim_proc.pid}) is gone" in lines[0], out
