"""Runs and what they own: a dead run leaves nothing behind, and only its owner writes reports.

A *run* is one entry point of ModelDock: ``python -m harness ...``, ``python -m
harness.mutants.cli``, ``python -m harness.bench``, or a controlling pytest process. It calls
``claim()`` first, which puts its process identity
(``harness.process.process_identity``: pid and start time) in the environment variable ``MODELDOCK_RUN``. Every process it starts
inherits that mark (pytest, its xdist workers, control planes, operators, kubectl, builds),
and keeps it in ``/proc/<pid>/environ`` whatever it does to its own environment later.

Temp dirs come from ``temp_dir()``: ``<tmp>/modeldock-<kind>-XXXXXXXX`` (``<tmp>`` is
``tempfile.gettempdir()``, so ``TMPDIR`` moves it) with an owner file ``.modeldock-owner``
(JSON: ``owner``, the identity of the process that made it; ``run``, the run it made it for,
``MODELDOCK_RUN`` then; ``created`` ISO 8601 UTC).

Processes die with their owner by ``PR_SET_PDEATHSIG`` (``harness.process.popen``). What
nonetheless outlives a dead run (a SIGKILLed harness cannot clean up) is removed by
``reap()``, which every entry point calls at start: it SIGKILLs processes whose mark names a
dead run and removes ``modeldock-*`` dirs in ``<tmp>`` whose owner file names a dead process
*and* a dead run. It touches nothing else: no dir without an owner file (older ModelDock
versions, anyone else's), no dir of a live owner or of a live run, no process without the mark
or of a live run, nothing of another user. A dir belongs to its run, not only to the process
that made it: a process of a run (an xdist worker, a job a command started, a child that writes
its results for its run to read) may end while its run goes on using the dir, and every run on
the machine (another worktree's ``make generate``) reaps at its start; before the owner file
named the run, such a dir was taken from a live run as soon as the process that made it had
ended (``harness/tests/test_runs.py``).

Reports are written with ``publish()``/``write_text_atomic()``: a temp file in the target's
folder, then ``os.replace``, so a reader sees the old file or the new one, never part of one.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.process import identity_alive, process_identity

#: The environment variable that marks every process of a run with its owner's identity.
RUN_ENV = "MODELDOCK_RUN"
#: Prefix of every temp dir ModelDock makes (``tempfile.gettempdir()/modeldock-<kind>-...``).
TEMP_PREFIX = "modeldock-"
#: The owner file inside each such dir.
OWNER_FILE = ".modeldock-owner"


def own(say: Callable[[str], None], unwind: bool = True) -> None:
    """What a command's ``main`` does first: ``claim()`` the run, ``reap()`` dead runs (``say``
    gets the one line of what was removed), and, with ``unwind``, restore SIGINT's default
    handling (KeyboardInterrupt, also when SIGINT was inherited ignored) and
    ``unwind_on_sigterm()``."""
    claim()
    reaped = reap()
    if reaped:
        say(reaped.describe())
    if unwind:
        # A harness started in the background from a script inherits SIGINT ignored
        # (``SIG_IGN``; Python then installs no handler) and would not stop on Ctrl-C: give it
        # Python's own back, so SIGINT unwinds with exit 130 as the README says.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        unwind_on_sigterm()


def unwind_on_sigterm() -> None:
    """Make SIGTERM raise KeyboardInterrupt in this process, so that it unwinds like Ctrl-C:
    every ``with ControlPlane()``, operator, fixture and temp dir is stopped or removed on the
    way out (SIGKILL takes the children along through PR_SET_PDEATHSIG)."""
    signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def claim() -> str:
    """Make this process the owner of a run: set ``MODELDOCK_RUN`` to its identity (processes
    started from now on inherit it) and return the identity."""
    identity = process_identity()
    assert identity is not None, "/proc/self/stat is unreadable"
    os.environ[RUN_ENV] = identity
    return identity


def owner() -> str | None:
    """The identity of the run this process belongs to (``MODELDOCK_RUN``), or None."""
    return os.environ.get(RUN_ENV) or None


def temp_dir(kind: str, root: Path | None = None) -> Path:
    """A fresh temp dir ``<root>/modeldock-<kind>-XXXXXXXX`` (root: ``tempfile.gettempdir()``)
    owned by this process and its run (``owner()``; none claimed: this process): its owner
    file is written before anything else goes in, so ``reap()`` removes it once both are dead,
    and never before. Raises OSError."""
    path = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{kind}-", dir=root))
    identity = process_identity()
    created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    mark = {"owner": identity, "run": owner() or identity, "created": created}
    (path / OWNER_FILE).write_text(json.dumps(mark) + "\n")
    return path


def _owner_file(path: Path) -> dict[str, object] | None:
    """The JSON object in ``path``'s owner file, or None if ``path`` is not a dir of this user
    with a readable owner file (a symlink, someone else's, an older ModelDock's)."""
    try:
        st = path.lstat()
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            return None
        marker = path / OWNER_FILE
        if not stat.S_ISREG(marker.lstat().st_mode):
            return None
        data = json.loads(marker.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def dir_owner(path: Path) -> str | None:
    """The identity of the process that made ``path`` (its owner file's ``owner``), or None
    if ``path`` is not a dir of this user with a readable owner file."""
    value = (_owner_file(path) or {}).get("owner")
    return value if isinstance(value, str) and value else None


def dir_keepers(path: Path) -> list[str]:
    """The identities whose life keeps ``path``: the process that made it and the run it was
    made for (an owner file from before ``run`` was recorded: the process alone); [] when
    ``path`` has no readable owner file (then ``reap()`` never touches it)."""
    data = _owner_file(path) or {}
    found = [data.get("owner"), data.get("run")]
    return list(dict.fromkeys(v for v in found if isinstance(v, str) and v))


@dataclass
class Reaped:
    """What ``reap()`` cleaned up: ``processes`` as ``(pid, command line)``, ``dirs`` removed."""

    processes: list[tuple[int, str]] = field(default_factory=list)
    dirs: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.processes or self.dirs)

    def describe(self) -> str:
        """One line for the terminal, e.g. ``stopped 2 processes (etcd, kube-apiserver) and
        removed 1 temp dir (/tmp/modeldock-cp-1a2b3c4d) left by dead runs``."""
        parts = []
        if self.processes:
            names = sorted({Path(cmd.split(" ", 1)[0]).name for _, cmd in self.processes})
            parts.append(
                f"stopped {len(self.processes)} process"
                f"{'es' if len(self.processes) != 1 else ''} ({', '.join(names)})"
            )
        if self.dirs:
            parts.append(
                f"removed {len(self.dirs)} temp dir{'s' if len(self.dirs) != 1 else ''} "
                f"({', '.join(str(d) for d in self.dirs)})"
            )
        return " and ".join(parts) + " left by dead runs"


def orphans(runs_here: set[str] | None = None) -> list[tuple[int, str]]:
    """Live processes of this user marked with a dead run's identity, as ``(pid, command
    line)``. Source: ``/proc/<pid>/environ`` (the environment each was started with) and
    ``/proc/<pid>/cmdline``; unreadable processes are skipped.

    Not an orphan, whatever its mark: a process that owns a live run of its own. Its
    ``/proc/<pid>/environ`` still names the run that started it (``claim()`` changes only its
    own ``os.environ``), so a command started by a run that has since ended (the jobs of a
    ``generate --jobs``, a suite's pytest) would look like that run's leftover. It is known by
    the processes marked with its identity (those it started) and by ``runs_here``, the runs
    the temp dirs name (``dir_keepers``)."""
    marked: list[tuple[int, str]] = []
    mark = f"{RUN_ENV}=".encode()
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except (OSError, ValueError):
            continue
        run = next((v[len(mark) :].decode(errors="replace") for v in env if v.startswith(mark)), "")
        if run:
            marked.append((int(entry.name), run))
    owners = {run for _, run in marked} | set(runs_here or ())
    found = []
    for pid, run in marked:
        identity = process_identity(pid)
        if identity is None or identity in owners or identity_alive(run):
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        found.append((pid, cmd))
    return found


def reap(root: Path | None = None, wait: float = 10.0) -> Reaped:
    """Clean up after dead runs: SIGKILL ``orphans()``, wait up to ``wait`` seconds for them to
    go, then remove the ``modeldock-*`` dirs in ``root`` (default ``tempfile.gettempdir()``)
    whose owner file names a process that is gone and a run that is gone (``dir_keepers``).
    Returns what was cleaned up; never raises for a process or dir that vanished meanwhile."""
    done = Reaped()
    base = Path(root) if root is not None else Path(tempfile.gettempdir())
    try:
        entries = [e for e in os.scandir(base) if e.name.startswith(TEMP_PREFIX)]
    except OSError:
        entries = []
    keepers = {Path(e.path): dir_keepers(Path(e.path)) for e in entries}
    for pid, cmd in orphans({k for ks in keepers.values() for k in ks}):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
        done.processes.append((pid, cmd))
    deadline = time.monotonic() + wait
    while any(process_identity(pid) for pid, _ in done.processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    for path, kept_by in keepers.items():
        if not kept_by or any(identity_alive(k) for k in kept_by):
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            done.dirs.append(path)
    return done


def write_text_atomic(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` so that readers never see a partial file: into a temp
    file in the same folder, flushed to disk, then renamed over ``path``. Returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def publish(src: Path, dest: Path) -> Path:
    """Copy ``src`` to ``dest`` atomically (as ``write_text_atomic``); return ``dest``. Used to
    move a report a child wrote in a scratch dir into ``reports/`` once the owner accepts it."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.{os.getpid()}.tmp"
    try:
        shutil.copyfile(src, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def reports_dir_problem(reports: str | os.PathLike[str]) -> str | None:
    """What keeps ``reports`` from being the reports folder of a run, in one line naming
    ``--reports`` and the fix (it is a file; it cannot be made; it is not writable), or None.
    Makes the folder when it is missing, so a run finds it before its control plane starts."""
    path = Path(reports)
    if path.exists() and not path.is_dir():
        return f"--reports {reports}: is a file, not a folder; give a folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--reports {reports}: cannot make it ({exc.strerror}); give a writable folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"--reports {reports}: not writable; give a writable folder"
    return None
