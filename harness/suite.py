"""The main job: the conformance suite once per implementation against one control plane, and
the comparison report (``python -m harness conformance``, ``make conformance``).

Each suite runs in a pytest subprocess (the ``harness.plugin`` plugin, pytest-xdist workers);
this process owns the run, publishes each JUnit file atomically and writes the report. The
mutant runner and the RBAC ablation run suites through ``run_suite`` too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import junit, runs, say, tiers
from harness.envtest import background, binaries
from harness.envtest.controlplane import ControlPlane, ControlPlaneError, state_lost
from harness.operators import ImplementationError, build_for_suite, load_implementations
from harness.paths import CONFORMANCE_DIR, REPO_ROOT
from harness.plugin.console import KEPT_FILE, kept_entries
from harness.process import run_group

#: The implementations ``conformance`` runs when none is named.
DEFAULT_IMPLS = ("go", "python")


_say = say.to("modeldock")


def _reap() -> None:
    """Clean up after dead runs (``harness.runs.reap``), saying what was removed."""
    reaped = runs.reap()
    if reaped:
        _say(reaped.describe())


#: pytest exit codes after which ``run_suite`` publishes the suite's JUnit file: the session ran
#: to its end (0 all passed, 1 some failed, 5 nothing selected) or to a stop it was asked for
#: (2: -x or --maxfail under pytest-xdist). After any other (3 internal error, 4 usage error,
#: CONTROL_PLANE_LOST, killed by a signal) nothing is written to reports/.
PUBLISHED_EXIT_CODES = (0, 1, 2, 5)
#: Seconds an interrupted pytest gets to tear down before its process group is SIGKILLed.
PYTEST_STOP_TIMEOUT = 30.0

#: How many times ``stop_suites`` ran in this process: a suite that was running when it did was
#: interrupted (pytest's SIGTERM handler makes that exit code 2, one ``PUBLISHED_EXIT_CODES``
#: has), so ``run_suite`` publishes nothing for it.
_stops = 0
_stops_lock = threading.Lock()


def _stop_count() -> int:
    with _stops_lock:
        return _stops


def run_suite(
    impl_id: str,
    state_path: Path,
    reports: Path,
    extra: list[str],
    impl_files: list[str],
    log: Path | None = None,
) -> int:
    """Run the conformance suite for one implementation in a pytest subprocess against the
    control plane in ``state_path``; return pytest's exit code (negative: killed by that signal).

    pytest runs in its own process group (``process.run_group``) and dies with this process
    (PR_SET_PDEATHSIG; its xdist workers die with it, and their operators and control planes
    with them). It writes JUnit into a scratch dir; this process copies it to
    ``reports/junit-<impl>.xml`` atomically once pytest has exited with a code in
    ``PUBLISHED_EXIT_CODES``, so a report is never written by a run that no longer has an owner.
    Artifacts of failed checks go to ``reports/artifacts/<impl>/`` as pytest runs. With
    ``log``, pytest's own output goes to that file and the terminal gets one line per finished
    check (the plugin's ``--progress``); without, pytest prints as usual.

    Raises ControlPlaneError if pytest stopped because the control plane was lost (its exit
    code ``CONTROL_PLANE_LOST``). On Ctrl-C or SIGTERM pytest's process group gets SIGTERM,
    then SIGKILL after ``PYTEST_STOP_TIMEOUT`` seconds, and the KeyboardInterrupt propagates.
    A suite that ``stop_suites`` stopped while it ran (Ctrl-C seen by another thread) writes no
    JUnit file either.
    """
    from harness.plugin.watchdog import CONTROL_PLANE_LOST

    junit_file = junit.suite_file(reports, impl_id)
    if not any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in extra):
        # Checks mostly wait on the API server and the operator: four in parallel fit 2 cores.
        extra = ["-n", os.environ.get("MODELDOCK_WORKERS", "4"), *extra]
    scratch = runs.temp_dir("suite")
    stops_before = _stop_count()
    try:
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            str(CONFORMANCE_DIR),
            f"--modeldock-impl={impl_id}",
            f"--modeldock-control-plane-state={state_path}",
            f"--junitxml={scratch / junit_file.name}",
            f"--modeldock-artifacts-dir={reports / 'artifacts'}",
            "-v",
            "-p",
            "no:cacheprovider",
            *[f"--modeldock-impl-file={f}" for f in impl_files],
            *extra,
        ]
        if log is None:
            _say(f"running the conformance suite for {impl_id}: {' '.join(cmd[3:])}")
            code = run_group(
                cmd, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stop_timeout=PYTEST_STOP_TIMEOUT
            )
        else:
            _say(f"running the conformance suite for {impl_id} (pytest's output: {log})")
            with open(log, "wb") as out:
                code = run_group(
                    [*cmd, "--modeldock-progress"],
                    cwd=REPO_ROOT,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stop_timeout=PYTEST_STOP_TIMEOUT,
                )
        if code == CONTROL_PLANE_LOST:
            raise ControlPlaneError(
                f"lost while the {impl_id} suite ran "
                f"({state_lost(state_path) or 'see the line above'}); "
                f"no report written for {impl_id}"
            )
        if _stop_count() != stops_before:
            _say(f"the {impl_id} suite was stopped (exit code {code}); {junit_file} not written")
        elif code in PUBLISHED_EXIT_CODES and (scratch / junit_file.name).exists():
            runs.publish(scratch / junit_file.name, junit_file)
        else:
            _say(f"pytest for {impl_id} ended with exit code {code}; {junit_file} not written")
        return code
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        _reap()


def stop_suites(sig: int = signal.SIGTERM) -> None:
    """SIGTERM (``sig``) the process group of every pytest this process started (each leads its own,
    ``process.run_group``): on Ctrl-C or SIGTERM the suites still running in other threads then
    tear down at once instead of running to their end (their ``run_group`` kills what is left).
    Their ``run_suite`` then writes no JUnit file: pytest ends a SIGTERM with exit code 2, as
    for -x, and the report of a suite cut short is not a result."""
    global _stops
    with _stops_lock:
        _stops += 1
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"pytest" in cmdline:
                try:
                    os.killpg(int(pid), sig)
                except (ProcessLookupError, PermissionError):
                    pass


def suites_at_once() -> int:
    """How many implementations' suites may run side by side: ``MODELDOCK_SUITES_AT_ONCE``, or
    one per core this process may use (``os.sched_getaffinity``), at least 1. Each suite runs four checks at once
    (``-n 4``), and a verdict must not depend on how many suites share the cores: measured on
    2 cores, two suites side by side pass, three broke wall-clock bounds (leader-failover's
    takeover, reconcile-isolated's neighbours) that one or two keep. Raises ValueError naming
    the variable when it is not a whole number of at least 1."""
    raw = os.environ.get("MODELDOCK_SUITES_AT_ONCE")
    if raw is None:
        return max(1, len(os.sched_getaffinity(0)))
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(
            f"MODELDOCK_SUITES_AT_ONCE={raw!r}: give a whole number of suites of at least 1"
        )
    return value


def run_together(
    run: Callable[[str], None], impl_ids: list[str], at_once: int | None = None
) -> None:
    """Call ``run(impl_id)`` for every implementation, ``at_once`` at a time (default
    ``suites_at_once()``), one thread each, and wait for all. The suites mostly wait (on the
    API server, an operator, a bound), so running them side by side on one control plane
    roughly halves a run; every check has its own namespace and operators, and each
    implementation its own user, so they do not meet. The first exception (Ctrl-C, SIGTERM, a
    lost control plane) stops the other suites (``stop_suites``: SIGTERM, SIGKILL for those
    still running after ``PYTEST_STOP_TIMEOUT`` seconds), cancels those not started, and
    propagates."""
    limit = min(len(impl_ids), at_once or suites_at_once())
    with ThreadPoolExecutor(max_workers=limit, thread_name_prefix="suite") as pool:
        futures = [pool.submit(run, impl_id) for impl_id in impl_ids]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            stop_suites()
            # The threads' run_group waits without a limit: a pytest whose teardown hangs gets
            # PYTEST_STOP_TIMEOUT seconds, as the main thread's would, then SIGKILL.
            _, running = wait(futures, timeout=PYTEST_STOP_TIMEOUT)
            if running:
                stop_suites(signal.SIGKILL)
            raise


@dataclass
class Options:
    """How a person runs the main job (``python -m harness conformance``): ``verbose`` prints
    pytest's own output and the whole comparison instead of one line per check and the summary;
    ``keep_on_failure`` leaves the control plane and failed checks' namespaces up;
    ``pause_on_failure`` stops at the first failure until Enter; ``checks`` selects check ids
    (``id`` or ``id[case]``)."""

    verbose: bool = False
    keep_on_failure: bool = False
    pause_on_failure: bool = False
    checks: list[str] = field(default_factory=list)
    #: where ``keep_on_failure`` keeps its control plane (``python -m harness up``'s folder)
    state_dir: Path = background.DEFAULT_STATE_DIR
    #: the tier (``harness.tiers.TIERS``); ``context``: the kubeconfig context for
    #: ``existing``; ``keep_cluster``: keep a kind cluster afterwards
    cluster: str = tiers.DEFAULT
    context: str | None = None
    keep_cluster: bool = False
    #: also run the checks marked slow (minutes of waiting)
    full: bool = False

    def together(self, n_impls: int) -> bool:
        """Whether the implementations' suites run at the same time (``run_together``): yes,
        unless pytest's own output goes to the terminal (``verbose``: it would interleave) or a
        failure waits for Enter (``pause_on_failure``)."""
        return n_impls > 1 and not (self.verbose or self.pause_on_failure)

    def pytest_args(self) -> list[str]:
        """The plugin options these become."""
        args = [f"--modeldock-check={c}" for c in self.checks]
        if self.full:
            args.append("--modeldock-full")
        if self.keep_on_failure:
            args.append("--modeldock-keep-on-failure")
        if self.pause_on_failure:
            args += ["--modeldock-pause-on-failure", "-n", "0"]
        return args


def conformance(
    chosen: list[str] | None,
    reports: Path,
    pytest_args: list[str],
    impl_files: list[str],
    options: Options | None = None,
) -> int:
    """Build each implementation in ``chosen`` (default ``DEFAULT_IMPLS``), start one control
    plane of tier ``options.cluster`` (envtest, sim), run the suite for each, write
    ``<reports>/junit-<impl>.xml``, the merged ``<reports>/junit.xml`` and the comparison
    report; end with the summary table, the verdict and where the reports are. ``existing``:
    use the cluster of KUBECONFIG (``options.context``) instead of starting one; ``kind``: make
    a kind cluster and run ``existing`` on it (``_run_on_existing``). Exit code: 0 every check
    passed, 1 some failed, 2 bad arguments (an unknown implementation, a bad implementation
    file, a build that failed), a tier this machine cannot have (kind without a container engine) or a CRD of
    another version on an existing cluster, 3 the control plane or cluster failed."""
    from harness import report

    options = options or Options()
    cluster = options.cluster
    tier = tiers.spec(cluster)
    if tier.creates_cluster:
        from harness.existing import kind

        if kind.engine() is None:
            return kind.no_engine_exit()

    try:
        impls = load_implementations(impl_files)
    except ImplementationError as exc:
        _say(str(exc))
        return 2
    chosen = list(chosen or DEFAULT_IMPLS)
    unknown = [i for i in chosen if i not in impls]
    if unknown:
        _say(
            f"unknown implementation(s) {unknown}; declared: {', '.join(sorted(impls))} "
            f"(another implementation's file: --impl-file, e.g. kopf_operator/implementation.toml)"
        )
        return 2
    if options.checks:
        from harness.checks import base_check, check_functions, check_sort_key

        functions = check_functions()
        known = {base_check(name) for name in functions}
        typos = [c for c in options.checks if base_check(c) not in known]
        if typos:
            _say(
                f"--check: no check {typos}; known: {', '.join(sorted(known, key=check_sort_key))}"
            )
            return 2
        # A known check with an unknown case would select no test at all (pytest-xdist then
        # fails the whole run): refuse it here, naming the cases there are.
        bad_cases = [c for c in options.checks if c not in functions]
        if bad_cases:
            cases = sorted(
                (n for n in functions if base_check(n) in {base_check(c) for c in bad_cases}),
                key=check_sort_key,
            )
            _say(f"--check: no case {bad_cases}; cases of that check: {', '.join(cases)}")
            return 2
    reports.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    # a cluster that is not ours needs only kubectl (the registry says which binaries)
    binaries.ensure(tier.binaries)
    # built below, once, before any control plane starts: the sessions do not build again
    extra = [*options.pytest_args(), "--modeldock-built", *pytest_args]
    codes: dict[str, int] = {}
    # the tier pytest runs as: kind runs as existing on the cluster it makes (TierSpec.session)
    extra = [f"--modeldock-cluster={tier.session}", *extra]

    def run_all(state_path: Path) -> None:
        # The last run's results cleared only once the cluster answers: a run that cannot
        # start leaves the previous reports as they were.
        for impl_id in chosen:
            junit.suite_file(reports, impl_id).unlink(missing_ok=True)
            shutil.rmtree(reports / "artifacts" / impl_id, ignore_errors=True)
        (reports / "artifacts" / KEPT_FILE).unlink(missing_ok=True)

        def one(impl_id: str) -> None:
            log = None if options.verbose else reports / f"pytest-{impl_id}.log"
            suite_started = time.monotonic()
            codes[impl_id] = run_suite(impl_id, state_path, reports, extra, impl_files, log)
            _say(f"{impl_id} suite on {cluster}: {time.monotonic() - suite_started:.0f}s")

        if options.together(len(chosen)):
            run_together(one, chosen)
        else:
            for impl_id in chosen:
                one(impl_id)

    kept_plane = None
    try:
        # Built before any control plane starts: a compile error is the first thing said, and
        # costs no API server start (nor a wait for a cluster that is not there).
        for impl_id in chosen:
            _say(f"building {impl_id}")
            build_for_suite(impl_id, impl_files)
        if not tier.harness_starts:
            code = _run_on_existing(options, run_all)
            if code:
                return code
        elif options.keep_on_failure:
            kept_plane = _run_on_kept_plane(options.state_dir, cluster, run_all, codes)
        else:
            cp_started = time.monotonic()
            with ControlPlane(tier=cluster) as cp:
                _say(f"{cluster} control plane ready in {time.monotonic() - cp_started:.1f}s")
                run_all(cp.state_path)
    except ControlPlaneError as exc:
        _say(f"control plane failed: {exc}")
        return 3
    except ImplementationError as exc:  # a build failed: its output, not a traceback
        _say(str(exc))
        return 2
    files = [junit.suite_file(reports, i) for i in chosen]
    model = report.build(files, impls)
    md, html, summary = report.write_all(model, reports)
    merged = junit.merge([f for f in files if f.exists()], reports / "junit.xml")
    passed = model.all_passed and all(c == 0 for c in codes.values())
    if options.verbose:
        print(md.read_text())
    else:
        print("\n".join(report.render_summary(model)))
        for check in model.checks:
            for impl_id, result in check.results.items():
                if result.outcome in ("failed", "error"):
                    first = next(
                        (ln.strip() for ln in result.message.splitlines() if ln.strip()), ""
                    )
                    print(f"  {check.id} [{impl_id}] {result.outcome}: {first[:160]}")
    if kept_plane is not None:
        _print_kept(kept_plane, reports)
    print(
        f"\n{'PASSED' if passed else 'FAILED'}: {count_line(model)}, "
        f"{time.monotonic() - started:.0f}s; pytest exit codes {codes}"
    )
    print(
        f"reports: {md} (evidence), {html}, {summary} (CI job summary), {merged} (all implementations), "
        f"{', '.join(str(f) for f in files)}"
    )
    return 0 if passed else 1


def count_line(model: Any) -> str:
    """``31 checks, 63 checks and cases, 126 runs``: the glossary's words (a case is a scenario
    ``id[case]`` of a check; a run is one check or case against one implementation)."""
    checks = len({c.id.partition("[")[0] for c in model.checks})
    runs_ = len(model.checks) * len(model.implementations)
    return f"{checks} checks, {len(model.checks)} checks and cases, {runs_} runs"


def _run_on_existing(options: Options, run_all: Callable[[Path], None]) -> int:
    """``existing``: run the suites on the cluster of KUBECONFIG (``options.context``) inside
    a ``harness.existing.run.Run`` (its namespaces, CRD and ClusterRoles removed afterwards,
    also on Ctrl-C); ``kind``: on a kind cluster made for it (``harness.existing.kind.cluster``).
    Returns 0 once the suites ran, 2 for a CRD of another version, 3 when the cluster cannot
    be used."""
    from harness.existing.cluster import ClusterError
    from harness.existing.run import CRDMismatch, Run

    if options.keep_on_failure:
        _say(
            "--keep-on-failure: on a cluster the harness does not own the run's namespaces "
            "are removed at the end all the same; --pause-on-failure stops while they are there"
        )
    try:
        if tiers.spec(options.cluster).creates_cluster:
            from harness.existing import kind

            with (
                kind.cluster(keep=options.keep_cluster) as kubeconfig,
                Run(kubeconfig=str(kubeconfig)) as run,
            ):
                run_all(run.state_path)
        else:
            with Run(options.context) as run:
                run_all(run.state_path)
    except CRDMismatch as exc:
        _say(str(exc))
        return 2
    except ClusterError as exc:
        _say(f"{options.cluster} cluster: {exc}")
        return 3
    return 0


def _run_on_kept_plane(
    state_dir: Path, cluster: str, run_all: Callable[[Path], None], codes: dict[str, int]
) -> Path | None:
    """``--keep-on-failure``: run on the background control plane of ``python -m harness up``
    in ``state_dir`` (started now if none is up there), stop it afterwards if every suite passed and this run started
    it; return its state folder if it is left up, else None."""
    was_up = background.read_state(state_dir) is not None
    if not was_up and background.up(state_dir, cluster) != 0:
        raise ControlPlaneError("could not start the kept control plane (python -m harness up)")
    try:
        run_all(state_dir / "state.json")
    except BaseException:
        if not was_up:
            background.down(state_dir)
        raise
    if all(c == 0 for c in codes.values()) and not was_up:
        background.down(state_dir)
        return None
    return state_dir


def _print_kept(state_dir: Path, reports: Path) -> None:
    """How to look at what ``--keep-on-failure`` left, and how to stop it."""
    state = background.read_state(state_dir) or {}
    print(
        f"\nKept for you (--keep-on-failure): the control plane and each failed check's namespace."
        f"\n  export KUBECONFIG={state.get('admin_kubeconfig', '?')}"
    )
    for entry in kept_entries(reports / "artifacts"):
        ns = entry["namespace"]
        print(
            f"  # {entry['implementation']} {entry['check']} "
            f"(operator log: {reports / 'artifacts' / entry['implementation']})"
            f"\n  kubectl get modelservices,deployments,services,leases,events -n {ns} -o yaml"
            f'\n  grep \'"namespace":"{ns}"\' {entry["audit_log"]} | head'
        )
    print(f"  stop it with: {background.down_command(state_dir)}")


def rebuild_report(reports: Path, impl_files: list[str], lang: str = "en") -> int:
    """Rebuild the comparison report from ``<reports>/junit-*.xml``, print its summary table and
    where it wrote the files (the whole Markdown is hundreds of KB; ``lang``:
    its teaching text in that language, ``comparison.<lang>.{md,html}``, ``report.write_all``).
    Exit code 0 all passed, 1 some failed, 2 no JUnit file there or one that is not JUnit XML."""
    from harness import report

    files = report.suite_junit_files(reports)
    if not files:
        _say(f"no junit-*.xml in {reports}; run `make conformance` first")
        return 2
    try:
        model = report.build(files, load_implementations(impl_files))
    except junit.NotJUnit as exc:
        _say(str(exc))
        return 2
    md, html, summary = report.write_all(model, reports, lang=lang)
    print("\n".join(report.render_summary(model)))  # the table, as a run ends; not the evidence
    _say(f"{count_line(model)}; wrote {md} (evidence), {html} and {summary} (CI job summary)")
    return 0 if model.all_passed else 1


def tiers_report(folders: list[Path], reports: Path, impls: list[str] | None) -> int:
    """``python -m harness report --tiers DIR ...``: write ``<reports>/tiers.md`` and
    ``tiers.html`` (``harness.report.write_tiers``) and print the Markdown. Exit code 0, or 2
    when a folder is missing or none holds a JUnit file of the implementations asked for."""
    from harness import report

    absent = [f for f in folders if not f.is_dir()]
    if absent:
        _say(f"no such reports folder: {', '.join(map(str, absent))}")
        return 2
    try:
        md, html = report.write_tiers(folders, reports, impls)
    except junit.NotJUnit as exc:
        _say(str(exc))
        return 2
    except ValueError as exc:
        _say(f"{exc}; run `python -m harness conformance --cluster <tier> --reports DIR` first")
        return 2
    print(md.read_text())
    _say(f"wrote {md} and {html}")
    return 0
