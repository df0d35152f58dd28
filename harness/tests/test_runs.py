"""Runs and what they own (``harness.runs``, ``harness.process``): process identities, owner
files, reaping after dead runs (only what they left), atomic publishing, children that die
with their parent. Real processes; no Kubernetes binaries needed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness import runs
from harness.process import identity_alive, process_identity, run_group


def _dead_identity() -> str:
    proc = subprocess.Popen(["sleep", "60"])
    identity = process_identity(proc.pid)
    proc.kill()
    proc.wait()
    assert identity is not None and not identity_alive(identity)
    return identity


def _wait(predicate, timeout: float = 60) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_identity_tells_a_zombie_and_a_reused_pid_from_the_living() -> None:
    me = process_identity()
    assert me is not None and me.startswith(f"{os.getpid()}:") and identity_alive(me)
    proc = subprocess.Popen(["sleep", "60"])
    identity = process_identity(proc.pid)
    assert identity is not None and identity_alive(identity)
    proc.kill()
    assert _wait(lambda: process_identity(proc.pid) is None)  # a zombie until reaped: dead
    proc.wait()
    assert not identity_alive(identity)
    assert not identity_alive(f"{os.getpid()}:1")  # this pid, another start time
    assert not identity_alive("not-an-identity")


def test_reap_removes_only_what_dead_runs_left(tmp_path: Path) -> None:
    dead = _dead_identity()
    mine = runs.temp_dir("live", root=tmp_path)  # this process owns it: alive
    assert runs.dir_owner(mine) == process_identity()
    gone = runs.temp_dir("gone", root=tmp_path)
    (gone / runs.OWNER_FILE).write_text(f'{{"owner": "{dead}"}}')
    (gone / "etcd").mkdir()
    unmarked = tmp_path / "modeldock-cp-older"  # an older ModelDock's, or a live run's
    unmarked.mkdir()
    foreign = tmp_path / "other-gone"  # not ModelDock's prefix
    foreign.mkdir()
    (foreign / runs.OWNER_FILE).write_text(f'{{"owner": "{dead}"}}')
    link = tmp_path / "modeldock-link"  # a symlink to a dead run's dir is not followed
    link.symlink_to(foreign)
    orphan = subprocess.Popen(["sleep", "600"], env={**os.environ, runs.RUN_ENV: dead})
    bystander = subprocess.Popen(
        ["sleep", "600"], env={**os.environ, runs.RUN_ENV: str(process_identity())}
    )
    try:
        reaped = runs.reap(root=tmp_path)
        assert orphan.wait(30) == -signal.SIGKILL
        assert bystander.poll() is None
        assert reaped.dirs == [gone]
        assert [pid for pid, _ in reaped.processes] == [orphan.pid]
        assert "sleep" in reaped.describe() and str(gone) in reaped.describe()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [mine.name, unmarked.name, foreign.name, link.name]
        )
        assert not runs.reap(root=tmp_path)
    finally:
        for p in (orphan, bystander):
            p.kill()
            p.wait()


MAKE_A_DIR_FOR_THE_RUN = """
import sys
from harness import runs
print(runs.temp_dir("job", root=__import__("pathlib").Path(sys.argv[1])))
"""


def test_a_dir_of_a_live_run_stays_when_the_process_that_made_it_has_ended(
    tmp_path: Path,
) -> None:
    """The bug seen: a run's job made a temp dir for its run to use and ended; another
    worktree's ``make generate`` then reaped the dir while the run still used it, since the
    owner file named only the process that made it. It names the run too now, and a dir is
    reaped only once both are gone."""
    run = process_identity()
    assert run is not None
    job = subprocess.run(
        [sys.executable, "-c", MAKE_A_DIR_FOR_THE_RUN, str(tmp_path)],
        env={**os.environ, runs.RUN_ENV: run},
        capture_output=True,
        text=True,
        check=True,
    )
    made = Path(job.stdout.strip())
    maker = runs.dir_owner(made)
    assert maker is not None and not identity_alive(maker), "the job that made it has ended"
    assert runs.dir_keepers(made) == [maker, run]
    assert not runs.reap(root=tmp_path), "its run is alive: nothing to reap"
    assert made.exists()
    dead_run = _dead_identity()
    (made / runs.OWNER_FILE).write_text(f'{{"owner": "{maker}", "run": "{dead_run}"}}')
    assert runs.reap(root=tmp_path).dirs == [made], "its run has ended too: reaped"


def test_a_process_that_owns_a_live_run_is_no_orphan(tmp_path: Path) -> None:
    """A command started by a run that has ended, which claimed a run of its own (its
    ``/proc/<pid>/environ`` still names the first run): it and what it started live on."""
    dead = _dead_identity()
    owner = subprocess.Popen(["sleep", "600"], env={**os.environ, runs.RUN_ENV: dead})
    leftover = subprocess.Popen(["sleep", "600"], env={**os.environ, runs.RUN_ENV: dead})
    identity = process_identity(owner.pid)
    assert identity is not None
    child = subprocess.Popen(["sleep", "600"], env={**os.environ, runs.RUN_ENV: identity})
    try:
        reaped = runs.reap(root=tmp_path)
        assert [pid for pid, _ in reaped.processes] == [leftover.pid]
        assert owner.poll() is None and child.poll() is None
    finally:
        for p in (owner, leftover, child):
            p.kill()
            p.wait()


def test_publish_and_write_replace_atomically(tmp_path: Path) -> None:
    src = tmp_path / "scratch.xml"
    src.write_text("<new/>")
    dest = tmp_path / "reports" / "junit-go.xml"
    dest.parent.mkdir()
    dest.write_text("<old/>")
    assert runs.publish(src, dest) == dest
    assert dest.read_text() == "<new/>"
    runs.write_text_atomic(tmp_path / "reports" / "comparison.md", "# ok\n")
    assert sorted(p.name for p in dest.parent.iterdir()) == ["comparison.md", "junit-go.xml"]


CHILD_OF_A_THREAD = """
import sys, threading, time
from harness.process import popen
out = {}
t = threading.Thread(target=lambda: out.update(p=popen(["sleep", "600"])))
t.start(); t.join()
print(out["p"].pid, flush=True)
time.sleep(600)
"""


def test_child_started_from_a_thread_lives_until_the_process_dies() -> None:
    """PR_SET_PDEATHSIG fires when the forking *thread* ends: popen() forks from a thread that
    lives as long as the process, so the child outlives the short thread but not the process."""
    parent = subprocess.Popen(
        [sys.executable, "-c", CHILD_OF_A_THREAD], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        identity = process_identity(child)
        assert identity is not None
        time.sleep(0.5)  # the thread has ended; the child must still run
        assert identity_alive(identity)
        parent.kill()
        parent.wait()
        assert _wait(lambda: not identity_alive(identity))
    finally:
        parent.kill()
        parent.wait()


def test_run_group_stops_the_whole_group_when_interrupted(tmp_path: Path) -> None:
    """A group leader that leaves a grandchild behind: the grandchild is SIGKILLed when the
    leader exits; an interrupted wait SIGTERMs the group and then SIGKILLs it."""
    pidfile = tmp_path / "grandchild"
    script = (
        f"import subprocess; p = subprocess.Popen(['sleep', '600']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))"
    )
    assert run_group([sys.executable, "-c", script]) == 0
    grandchild = int(pidfile.read_text())
    assert _wait(lambda: process_identity(grandchild) is None)

    def interrupt() -> None:
        assert _wait(pidfile.exists)
        os.kill(os.getpid(), signal.SIGUSR1)

    pidfile.unlink()
    stubborn = (
        f"import signal, subprocess, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"p = subprocess.Popen(['sleep', '600']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(600)"
    )

    class Interrupted(Exception):
        pass

    def raise_interrupted(signum: int, frame: object) -> None:
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, raise_interrupted)
    threading.Thread(target=interrupt, daemon=True).start()
    try:
        started = time.monotonic()
        try:
            run_group([sys.executable, "-c", stubborn], stop_timeout=1)
        except Interrupted:
            pass
        else:
            raise AssertionError("the interrupt did not propagate")
        assert time.monotonic() - started < 120
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert _wait(lambda: process_identity(int(pidfile.read_text())) is None)


def test_popen_child_dies_when_its_parent_is_killed() -> None:
    script = (
        "import time; from harness.process import popen; "
        "print(popen(['sleep', '600']).pid, flush=True); time.sleep(600)"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        identity = process_identity(int(parent.stdout.readline()))
        assert identity is not None
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _wait(lambda: not identity_alive(identity))
    finally:
        parent.kill()
        parent.wait()


def test_a_run_started_with_sigint_ignored_stops_on_ctrl_c_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A harness started in the background from a script inherits SIGINT ignored; owning the
    run gives it Python's handler back, so Ctrl-C raises KeyboardInterrupt (exit 130)."""
    monkeypatch.setattr(runs, "claim", lambda: "1:1")  # not this test process's environment
    monkeypatch.setattr(runs, "reap", lambda: None)
    before = signal.signal(signal.SIGINT, signal.SIG_IGN), signal.getsignal(signal.SIGTERM)
    try:
        runs.own(lambda line: None)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])


def test_reports_dir_problem_is_one_line_naming_the_option(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert runs.reports_dir_problem(tmp_path / "new" / "reports") is None
    assert (tmp_path / "new" / "reports").is_dir()
    assert f"--reports {afile}: is a file" in str(runs.reports_dir_problem(afile))
    assert "cannot make it" in str(runs.reports_dir_problem(afile / "under"))


#: Delegated commands that start no process (they read files only), so own no run.
_STARTS_NOTHING = {"accounting-check": "reads the JUnit files of a --reports folder"}


def test_every_delegated_command_that_starts_processes_owns_its_run() -> None:
    """A command whose own module parses its arguments (``cli.DELEGATED``) must own the run
    (``runs.own``) as ``cli.main`` does for the others, or one started in the background with
    SIGINT ignored cannot be stopped with Ctrl-C, and SIGTERM ends it without stopping its
    control plane or removing its temp dirs (seen in stop 50: `mutation-score` ignored two
    SIGINTs and died on SIGTERM). Read from the source of the module that defines each
    command's ``main``: ``runs.own(`` or the generator's ``_owned(`` wrapper."""
    import importlib
    import inspect

    from harness import cli

    missing = []
    for command, (module_name, _help) in cli.DELEGATED.items():
        if command in _STARTS_NOTHING:
            continue
        main = importlib.import_module(module_name).main
        source = inspect.getsource(inspect.getmodule(main))  # type: ignore[arg-type]
        if "runs.own(" not in source and "_owned(" not in source:
            missing.append(f"{command} ({main.__module__}.{main.__name__})")
    assert not missing, f"delegated commands that do not own their run: {missing}"
    assert set(_STARTS_NOTHING) <= set(cli.DELEGATED)
