"""Implementations of the operator contract, and their processes.

An implementation is a command (``harness/implementations.toml``, or any file of that shape
given with ``--impl-file``). ``OperatorProcess`` runs one instance of it the way
``conformance/CONTRACT.md`` says: its own kubeconfig (client certificate CN
``modeldock:<impl>``), ``WATCH_NAMESPACE``, leader-election timings, free metrics and health
ports, and optionally ``MODELDOCK_CRASH_AT``. It can be started, SIGTERMed, SIGKILLed and
restarted, and it reads the operator's ``/metrics`` the same way for every implementation.
"""

from __future__ import annotations

import fcntl
import os
import signal as signals
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from harness.paths import BUILD_DIR, REPO_ROOT
from harness.process import (
    ManagedProcess,
    ProcessError,
    free_port,
    log_tail,
    run,
    thread_states,
    wait_until,
)

DEFAULT_IMPL_FILE = Path(__file__).resolve().parent / "implementations.toml"

#: Exit code of a process that reached its crash point (CONTRACT.md).
CRASH_EXIT_CODE = 86
#: Seconds an operator process may take from its start to answering /readyz (a Python
#: operator's imports alone take seconds on a loaded 2-core machine).
START_TIMEOUT = 60.0


class ImplementationError(RuntimeError):
    """An implementation is unknown, badly declared, or failed to build."""


@dataclass(frozen=True)
class Implementation:
    """One implementation: ``id`` (e.g. ``go``), ``title``, ``command`` argv (placeholders
    expanded), optional ``build`` argv and ``workdir``."""

    id: str
    title: str
    command: tuple[str, ...]
    build: tuple[str, ...] = ()
    workdir: Path = REPO_ROOT
    source: Path = DEFAULT_IMPL_FILE
    #: checks this implementation is expected to fail, ``check id`` or ``id[case]`` -> why
    #: (run as strict xfail: an unexpected pass fails the run)
    expected_failures: Mapping[str, str] = field(default_factory=dict)
    #: those of ``expected_failures`` declared ``strict = false``: the failure depends on a
    #: race the implementation's model leaves open, so a pass is not an error
    unstrict_failures: frozenset[str] = frozenset()
    #: cases declared ``{ passes = true, reason = "..." }``: ``id[case]`` keys that the bare
    #: check id's declaration does not cover (the case is expected to pass)
    passing_cases: frozenset[str] = frozenset()
    #: the ClusterRole file its user is bound to, when not config/rbac/role.yaml
    role: Path | None = None

    @property
    def user(self) -> str:
        """The Kubernetes user this implementation runs as (its certificate's CN)."""
        return f"modeldock:{self.id}"

    def run_build(self) -> None:
        """Run the build command, if any, holding ``build/.lock`` (flock): runs side by side
        (the two lanes of ``make test``) each build at their start, and one must not exec a
        binary another is writing; after the first, ``go build`` finds it up to date and leaves
        it. Raises ImplementationError with its output on failure."""
        if not self.build:
            return
        BUILD_DIR.mkdir(exist_ok=True)
        with open(BUILD_DIR / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            proc = run(list(self.build), cwd=self.workdir, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ImplementationError(
                f"building implementation {self.id!r} failed ({' '.join(self.build)} in "
                f"{self.workdir}):\n{proc.stdout}{proc.stderr}"
            )


#: The keys an implementation's table may have (harness/implementations.toml says what each
#: means), and those a mutant's declaration adds (harness/mutants/mutants.toml: the mutants
#: file is read as an implementations file too). Any other key is refused, naming the file and
#: the key: a misspelt ``expected_failure`` would otherwise be ignored in silence.
IMPLEMENTATION_KEYS = frozenset(
    {"title", "build", "workdir", "command", "role", "expected_failures"}
)
MUTANT_KEYS = frozenset({"caught_by", "explore", "tiers"})


def unknown_keys_problem(
    path: Path, table_id: str, table: Mapping[str, object], allowed: frozenset[str]
) -> str | None:
    """One line naming the keys of ``table`` (the ``[table_id]`` table of ``path``) that are
    not in ``allowed``, and the keys that are; None when there are none."""
    unknown = sorted(set(table) - allowed)
    if not unknown:
        return None
    return (
        f"{path}: [{table_id}] has unknown key{'s' if len(unknown) > 1 else ''} "
        f"{', '.join(unknown)}; the keys are {', '.join(sorted(allowed))}"
    )


def _expand(arg: str) -> str:
    return arg.format(repo=REPO_ROOT, build=BUILD_DIR, python=sys.executable)


def load_implementations(extra_files: Iterable[Path | str] = ()) -> dict[str, Implementation]:
    """All declared implementations: the default file, then ``extra_files``, then the files in
    ``MODELDOCK_IMPL_FILES`` (``:``-separated); a later declaration of an id replaces an earlier
    one. Raises ImplementationError naming the file and the field that is wrong."""
    files = [DEFAULT_IMPL_FILE, *map(Path, extra_files)]
    files += [Path(p) for p in os.environ.get("MODELDOCK_IMPL_FILES", "").split(":") if p]
    impls: dict[str, Implementation] = {}
    for path in files:
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ImplementationError(f"cannot read implementations file {path}: {exc}") from exc
        for impl_id, table in data.items():
            if (
                not isinstance(table, dict)
                or not isinstance(table.get("command"), list)
                or not table["command"]
            ):
                raise ImplementationError(
                    f'{path}: [{impl_id}] needs command = ["argv0", ...] (a non-empty list)'
                )
            problem = unknown_keys_problem(path, impl_id, table, IMPLEMENTATION_KEYS | MUTANT_KEYS)
            if problem:
                raise ImplementationError(problem)
            workdir = Path(_expand(table.get("workdir", ".")))
            if not workdir.is_absolute():
                workdir = (REPO_ROOT if path == DEFAULT_IMPL_FILE else path.parent) / workdir
            expected = table.get("expected_failures", {})
            unstrict = (
                {k for k, v in expected.items() if isinstance(v, dict) and v.get("strict") is False}
                if isinstance(expected, dict)
                else set()
            )
            passing = (
                {k for k, v in expected.items() if isinstance(v, dict) and v.get("passes") is True}
                if isinstance(expected, dict)
                else set()
            )
            if isinstance(expected, dict):  # { reason = "...", strict = false } -> the reason
                expected = {
                    k: (v.get("reason") if isinstance(v, dict) else v) for k, v in expected.items()
                }
            if not isinstance(expected, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in expected.items()
            ):
                raise ImplementationError(
                    f"{path}: [{impl_id}] expected_failures must be a table of "
                    f'"<check id>[<case>]" = "<reason>" (a non-empty reason for each; or '
                    f'{{ reason = "...", strict = false }} for a failure that depends on a race; '
                    f'{{ reason = "...", passes = true }} for a case the bare check id must not '
                    f"cover)"
                )
            role = table.get("role")
            if role is not None and not isinstance(role, str):
                raise ImplementationError(f"{path}: [{impl_id}] role must be a file name")
            impls[impl_id] = Implementation(
                id=impl_id,
                title=str(table.get("title", impl_id)),
                command=tuple(_expand(a) for a in table["command"]),
                build=tuple(_expand(a) for a in table.get("build", [])),
                workdir=workdir,
                source=path,
                expected_failures=dict(expected),
                unstrict_failures=frozenset(unstrict),
                passing_cases=frozenset(passing),
                role=(path.parent / _expand(role)).resolve() if role else None,
            )
    return impls


def get_implementation(impl_id: str, extra_files: Iterable[Path | str] = ()) -> Implementation:
    impls = load_implementations(extra_files)
    if impl_id not in impls:
        raise ImplementationError(
            f"unknown implementation {impl_id!r}; declared: "
            f"{', '.join(sorted(impls))} (add one with --impl-file)"
        )
    return impls[impl_id]


def parity_reference_id(impl_id: str) -> str:
    """The implementation a parity check compares against: the Go reference, or for the Go
    reference itself its Python twin."""
    return "python" if impl_id == "go" else "go"


def build_for_suite(impl_id: str, extra_files: Iterable[Path | str] = ()) -> None:
    """Build what a conformance suite of ``impl_id`` runs: the implementation and the one its
    parity check compares with (``parity_reference_id``). The one place a suite's build is
    made: ``python -m harness conformance`` calls it before any control plane starts, and the
    plugin at session start unless told it is done (``--modeldock-built``). Raises
    ImplementationError (an unknown id, a build that failed)."""
    get_implementation(impl_id, extra_files).run_build()
    get_implementation(parity_reference_id(impl_id), extra_files).run_build()


#: The two series the checks poll (CONTRACT.md, "Metrics").
RECONCILE_TOTAL = "controller_runtime_reconcile_total"
WORKQUEUE_DEPTH = "workqueue_depth"


#: What may follow a metric's name in a sample of its family: a histogram's or summary's series.
FAMILY_SUFFIXES = ("", "_bucket", "_sum", "_count", "_created")


def select_families(text: str, names: Iterable[str]) -> str:
    """The lines of Prometheus exposition ``text`` (format 0.0.4) that belong to the metrics
    ``names`` (as exposed: ``controller_runtime_reconcile_total``): their ``# HELP`` and
    ``# TYPE`` lines and their samples, a histogram's ``_bucket``/``_sum``/``_count`` too. A
    metric whose name merely starts the same (``workqueue_depth_seconds``) is dropped, as is
    every other line, so a parser reads only what is asked for."""
    wanted = {name + suffix for name in names for suffix in FAMILY_SUFFIXES}
    keep = []
    for line in text.splitlines():
        rest = line[7:] if line.startswith(("# HELP ", "# TYPE ")) else line
        if rest.startswith("#"):
            continue
        first = rest.split(None, 1)[0] if rest.strip() else ""
        if first.split("{", 1)[0] in wanted:
            keep.append(line)
    return "\n".join(keep) + "\n"


@dataclass
class OperatorProcess:
    """One running instance of an implementation.

    ``kubeconfig``: the implementation user's kubeconfig; ``namespace``: WATCH_NAMESPACE;
    ``log_path``: where its stderr/stdout go; ``crash_at``: a crash point or None;
    ``leader_election``: turn on Lease election; ``lease``: (duration, renew deadline, retry
    period) in seconds; ``env``: extra variables; ``request_log``: its API proxy's request
    log. Ports are chosen when constructed.
    """

    impl: Implementation
    kubeconfig: Path
    namespace: str
    log_path: Path
    crash_at: str | None = None
    leader_election: bool = False
    lease: tuple[float, float, float] = (15.0, 10.0, 2.0)
    env: dict[str, str] = field(default_factory=dict)
    #: the instance's own name, when its kubeconfig carries group ``modeldock:instance:<name>``
    #: (``OperatorPool.instance_kubeconfig``); "" when it runs with the implementation's identity
    instance: str = ""
    #: the request log of the API proxy it runs behind (``harness.faults.apiproxy``), None
    #: when it runs without one: what ``conformance.support.wait_settled`` judges quiet by
    request_log: Path | None = None
    metrics_port: int = field(default_factory=free_port)
    health_port: int = field(default_factory=free_port)
    #: what the harness did to this process, in order: ``[(epoch seconds, act), ...]`` with
    #: act one of ``start``, ``restart``, ``SIGTERM``, ``SIGKILL`` or another signal's name;
    #: the report draws them on the check's timeline beside the operator's requests
    acts: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._proc = ManagedProcess(
            f"operator {self.impl.id}",
            self.impl.command,
            self.log_path,
            env=self._environment(),
            cwd=self.impl.workdir,
        )

    def _environment(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("KUBECONFIG", "MODELDOCK_CRASH", "WATCH_NAMESPACE"))
        }
        env.update(
            {
                "KUBECONFIG": str(self.kubeconfig),
                "WATCH_NAMESPACE": self.namespace,
                "LEADER_ELECTION": "true" if self.leader_election else "false",
                "LEADER_ELECTION_NAMESPACE": self.namespace,
                "LEASE_DURATION": str(self.lease[0]),
                "RENEW_DEADLINE": str(self.lease[1]),
                "RETRY_PERIOD": str(self.lease[2]),
                "METRICS_BIND_ADDRESS": f"127.0.0.1:{self.metrics_port}",
                "HEALTH_PROBE_BIND_ADDRESS": f"127.0.0.1:{self.health_port}",
                "PYTHONUNBUFFERED": "1",
            }
        )
        if self.crash_at:
            env["MODELDOCK_CRASH_AT"] = self.crash_at
        env.update(self.env)
        return env

    # -------------------------------------------------------------- lifecycle
    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def start(
        self,
        crash_at: str | None = None,
        wait_ready: bool = True,
        timeout: float = START_TIMEOUT,
    ) -> OperatorProcess:
        """Start (or restart) the process; ``crash_at`` replaces the crash point for this start
        (None: none). With ``wait_ready``, wait until ``/readyz`` answers 200; raises
        ProcessError with the log tail if the process exits first."""
        self.crash_at = crash_at
        self._proc.env = self._environment()
        self._act("restart" if any(a in ("start", "restart") for _, a in self.acts) else "start")
        self._proc.start()
        if wait_ready:
            try:
                self.wait_ready(timeout)
            except ProcessError:
                if not self.lost_port_race():
                    raise
                # another process took a port the harness picked for it between the pick and
                # the bind: the harness's race, not the operator's failure; new ports, once
                self.metrics_port, self.health_port = free_port(), free_port()
                self._proc.env = self._environment()
                self._proc.start()
                self.wait_ready(timeout)
        return self

    def lost_port_race(self) -> bool:
        """Whether the process exited because a port the harness picked for it (metrics,
        health; not one a case set in ``env``) was taken by the time it bound it: its log
        says "address already in use" (Go's net.Listen, Python's errno 98). Such a start is
        the harness's race, not the operator's failure: a new start with new ports is due
        (``start`` does it once; so does ``generate.lane.Lane.start_operator``)."""
        if self.running() or {"METRICS_BIND_ADDRESS", "HEALTH_PROBE_BIND_ADDRESS"} & set(self.env):
            return False
        return "address already in use" in log_tail(self.log_path, 40).lower()

    def ready(self) -> bool:
        """Whether ``/readyz`` answers 200 now."""
        return self._get(f"http://127.0.0.1:{self.health_port}/readyz") == 200

    def healthy(self) -> bool:
        """Whether ``/healthz`` answers 200 now (CONTRACT.md, "Process": while the process
        runs)."""
        return self._get(f"http://127.0.0.1:{self.health_port}/healthz") == 200

    def wait_ready(self, timeout: float = 60) -> None:
        wait_until(
            self.ready, timeout=timeout, what=f"{self.impl.id} operator /readyz", alive=[self._proc]
        )

    def running(self) -> bool:
        return self._proc.running()

    def returncode(self) -> int | None:
        return self._proc.returncode()

    def wait_exit(self, timeout: float) -> int:
        """Wait for the process to exit; return its exit code. Raises AssertionError with the
        log tail if it is still running after ``timeout`` seconds."""
        try:
            return self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"{self.impl.id} operator still running after {timeout:.0f}s; "
                f"log tail:\n{log_tail(self.log_path)}"
            ) from None

    def terminate(self, timeout: float = 20) -> int | None:
        """SIGTERM and wait (SIGKILL after ``timeout``). Returns the exit code."""
        if self.running():
            self._act("SIGTERM")
        return self._proc.stop(timeout)

    def kill(self) -> None:
        """SIGKILL: no cleanup, the Lease is not released."""
        self._act("SIGKILL")
        self._proc.kill()

    def signal(self, sig: int) -> None:
        """Send ``sig`` (a signal number) to the process, recorded in ``acts``."""
        self._act(signals.Signals(sig).name)
        self._proc.signal(sig)

    def freeze(self, timeout: float = 10.0) -> None:
        """SIGSTOP the process and wait until the kernel shows every thread of it stopped
        (state ``T`` in each ``/proc/<pid>/task/<tid>/stat``): from then on it runs no code,
        though what it already sent may still reach the API server. ``kill`` returns once the
        signal is queued; the process stops only when the kernel has scheduled one of its
        threads to take it, and the other threads run until then (under load, long enough to
        see a watch event and write). Raises ProcessError if it is not running, or not
        stopped after ``timeout`` seconds. ``signal(SIGCONT)`` thaws it."""
        pid = self.pid
        if pid is None or not self.running():
            raise ProcessError(f"{self.impl.id} operator is not running: nothing to freeze")
        self.signal(signals.SIGSTOP)
        deadline = time.monotonic() + timeout
        while (states := thread_states(pid)) != {"T"}:
            if time.monotonic() > deadline:
                raise ProcessError(
                    f"{self.impl.id} operator (pid {pid}) not stopped {timeout:.0f}s after "
                    f"SIGSTOP: its threads' states {sorted(states)}"
                )
            time.sleep(0.01)

    def _act(self, what: str) -> None:
        label = f"{what} {self.instance}" if self.instance else what
        self.acts.append((time.time(), label))

    # -------------------------------------------------------------- observation
    @staticmethod
    def _get(url: str) -> int:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return int(resp.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
        except (urllib.error.URLError, OSError):
            return 0

    def metrics(self, families: Iterable[str] = ()) -> dict[str, float]:
        """The operator's Prometheus samples, keyed ``name{label="v",...}`` (labels sorted);
        only those of ``families`` (metric names as exposed, e.g.
        ``controller_runtime_reconcile_total``) when given. The text is parsed by
        prometheus_client; given families, only their lines are handed to it (a Go operator
        exposes hundreds of runtime series, and the checks poll two of them many times a
        second).

        Raises ProcessError if /metrics does not answer."""
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5
            ) as resp:
                text = resp.read().decode()
        except (urllib.error.URLError, OSError) as exc:
            raise ProcessError(f"{self.impl.id} operator /metrics did not answer: {exc}") from exc
        wanted = tuple(families)
        if wanted:
            text = select_families(text, wanted)
        out: dict[str, float] = {}
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                out[f"{s.name}{{{labels}}}"] = float(s.value)
        return out

    def reconcile_count(self) -> float:
        """Sum of ``controller_runtime_reconcile_total`` over results, for controller modelservice."""
        return sum(
            v
            for k, v in self.metrics([RECONCILE_TOTAL]).items()
            if k.startswith(RECONCILE_TOTAL + "{") and 'controller="modelservice"' in k
        )

    def workqueue_depth(self) -> float:
        """``workqueue_depth`` of the modelservice queue (0 when not exposed yet)."""
        return sum(
            v
            for k, v in self.metrics([WORKQUEUE_DEPTH]).items()
            if k.startswith(WORKQUEUE_DEPTH + "{") and 'name="modelservice"' in k
        )

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""
