"""A control plane in the background, for a person at a terminal: ``python -m harness up``
starts one detached from the terminal (its own session, its own run), prints
``export KUBECONFIG=...``; ``down`` stops it, finding the state folder the last ``up`` used
(``LAST_UP``). ``serve`` is the detached process itself.

State lives in ``<state-dir>/state.json`` (``ControlPlane.state_path``), which checks attach to
with ``--modeldock-control-plane-state``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from harness import runs, say, tiers
from harness.envtest import binaries
from harness.envtest.controlplane import ControlPlane
from harness.paths import BUILD_DIR, REPO_ROOT
from harness.process import pid_alive

#: Where ``up`` keeps its control plane by default.
DEFAULT_STATE_DIR = BUILD_DIR / "up"

#: Where ``up`` writes the state folder it used (one absolute path and a newline), so that
#: ``down`` without ``--state-dir`` stops that one (``state_dir_to_stop``); ``down`` removes it.
LAST_UP = BUILD_DIR / "up.last"


_say = say.to("modeldock")


def serve(state_dir: Path, watch_cache: bool = True, cluster: str = tiers.DEFAULT) -> int:
    """Run a control plane of tier ``cluster`` in ``state_dir`` in the foreground until SIGTERM
    or SIGINT, or until one of its processes exits; then stop it and remove ``state_dir``.
    Returns 0."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    cp = ControlPlane(workdir=state_dir, watch_cache=watch_cache, tier=cluster)
    try:
        cp.start()
        while not stop.wait(1):
            for proc in (cp.etcd, cp.apiserver, *cp.extras.values()):
                if proc is not None and not proc.running() and not stop.is_set():
                    _say(f"{proc.name} exited; see {proc.log_path}")
                    stop.set()
    finally:
        cp.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
    return 0


def read_state(state_dir: Path) -> dict[str, object] | None:
    """The ``state.json`` of the control plane in ``state_dir``, or None if there is none."""
    try:
        return dict(json.loads((state_dir / "state.json").read_text()))
    except (OSError, ValueError):
        return None


def state_dir_to_stop(
    given: Path | None, last_up: Path = LAST_UP, default: Path = DEFAULT_STATE_DIR
) -> Path:
    """The state folder ``down`` stops: ``given`` (``--state-dir``) when given; else the folder
    ``last_up`` names when a control plane has its ``state.json`` there (the last ``up``, with
    whatever ``--state-dir`` it had); else ``default``. Reads files only; raises nothing."""
    if given is not None:
        return given
    try:
        named = Path(last_up.read_text().strip())
    except OSError:
        return default
    return named if named.parts and read_state(named) is not None else default


def up(state_dir: Path, cluster: str = tiers.DEFAULT, watch_cache: bool = True) -> int:
    """Start a control plane of tier ``cluster`` in the background (``serve`` in a detached
    process), wait up to 240 s for its state file (written once every process is up), print ``export KUBECONFIG=...``. Exit code:
    0 up (or already up), 1 failed to start, 2 tier not available here."""
    state = read_state(state_dir)
    if state and pid_alive(int(str(state.get("supervisor_pid", 0) or 0))):
        _say(
            f"a control plane is already up (pid {state['supervisor_pid']}); "
            f"`python -m harness down` stops it"
        )
        print(f"export KUBECONFIG={state['admin_kubeconfig']}")
        _remember(state_dir)
        return 0
    if cluster not in tiers.names(started=True):
        _say(
            f"--cluster {cluster} is not something `up` starts: `existing` is a cluster you "
            f"already have (KUBECONFIG); use {' or '.join(tiers.names(started=True))}"
        )
        return 2
    started = time.monotonic()
    # progress on this terminal, not in the log
    binaries.ensure(tiers.spec(cluster).binaries)
    shutil.rmtree(state_dir, ignore_errors=True)
    state_dir.mkdir(parents=True)
    cmd = [
        sys.executable,
        "-m",
        "harness",
        "serve",
        "--state-dir",
        str(state_dir),
        "--cluster",
        cluster,
    ]
    if not watch_cache:
        cmd.append("--no-watch-cache")
    # The one process meant to outlive us: its own session, and its own run (no mark of ours).
    env = {k: v for k, v in os.environ.items() if k != runs.RUN_ENV}
    with open(state_dir / "supervisor.log", "ab") as log:
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=REPO_ROOT,
        )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        state = read_state(state_dir)
        if state:
            break
        if proc.poll() is not None:
            _say(
                f"the control plane failed to start:\n{(state_dir / 'supervisor.log').read_text()}"
            )
            return 1
        time.sleep(0.2)
    else:
        proc.terminate()
        _say("the control plane did not start within 240s")
        return 1
    _say(
        f"{cluster} control plane up at {state['server']} in {time.monotonic() - started:.1f}s "
        f"(supervisor pid {proc.pid}); CRD installed"
    )
    _say(f"admin kubeconfig: {state['admin_kubeconfig']}; state: {state_dir / 'state.json'}")
    _remember(state_dir)
    _say(f"stop it with: {down_command(state_dir)}")
    print(f"export KUBECONFIG={state['admin_kubeconfig']}")
    return 0


def _remember(state_dir: Path) -> None:
    """Write ``state_dir`` into ``LAST_UP`` for ``down`` (best effort: a read-only build
    folder only costs ``down`` its default)."""
    try:
        LAST_UP.parent.mkdir(parents=True, exist_ok=True)
        LAST_UP.write_text(f"{state_dir.resolve()}\n")
    except OSError:
        pass


def down(given: Path | None = None) -> int:
    """Stop the control plane ``up`` started in ``given`` (None: the folder the last ``up``
    used, ``state_dir_to_stop``): SIGTERM to its supervisor, up to 60 s, then remove the
    folder (and ``LAST_UP`` when it names it). Returns 0, also when none was up (said in one
    line, with the ``--state-dir`` to pass for a folder ``up`` was given elsewhere)."""
    state_dir = state_dir_to_stop(given)
    state = read_state(state_dir)
    if not state:
        hint = (
            ""
            if given is not None
            else "; a control plane started with `up --state-dir DIR` stops with "
            "`python -m harness down --state-dir DIR`"
        )
        _say(f"no control plane is up (no {state_dir / 'state.json'}){hint}")
        return 0
    pid = int(str(state.get("supervisor_pid", 0) or 0))
    if pid and pid_alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
    shutil.rmtree(state_dir, ignore_errors=True)
    try:
        if Path(LAST_UP.read_text().strip()) == state_dir.resolve():
            LAST_UP.unlink()  # it named the folder just removed
    except OSError:
        pass
    _say("control plane stopped")
    return 0


def down_command(state_dir: Path) -> str:
    """The command that stops the control plane kept in ``state_dir``: ``python -m harness
    down``, with ``--state-dir`` unless it is the default (``down`` alone stops the last
    ``up``'s, which need not be this one when several are up)."""
    same = Path(state_dir).resolve() == Path(DEFAULT_STATE_DIR).resolve()
    return "python -m harness down" + ("" if same else f" --state-dir {state_dir}")
