"""The main job: the conformance suite once per implementation against one control plane, and
the comparison report (``python -m harness conformance``, ``make conformance``).

Each suite runs in a pytest subprocess (the ``harness.plugin`` plugin, pytest-xdist workers);
this process owns the run, publishes each JUnit file atomically and writes the report. The
mutant runner and the RBAC ablation run suites through ``run_suite`` too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harness import runs
from harness.envtest import binaries
from harness.envtest.controlplane import ControlPlane, ControlPlaneError, state_lost
from harness.envtest.process import run_group
from harness.operators import ImplementationError, load_implementations
from harness.paths import CONFORMANCE_DIR, REPO_ROOT

#: The implementations ``conformance`` runs when none is named.
DEFAULT_IMPLS = ("go", "python")

#: The tiers ``conformance --cluster`` takes (docs/design.md, "Tiers").
CLUSTERS = ("envtest", "sim", "existing", "kind")


def _say(line: str) -> None:
    print(f"[modeldock] {line}", file=sys.stderr, flush=True)


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


def run_suite(impl_id: str, state_path: Path, reports: Path, extra: list[str],
              impl_files: list[str]) -> int:
    """Run the conformance suite for one implementation in a pytest subprocess against the
    control plane in ``state_path``; return pytest's exit code (negative: killed by that signal).

    pytest runs in its own process group (``process.run_group``) and dies with this process
    (PR_SET_PDEATHSIG; its xdist workers die with it, and their operators and control planes
    with them). It writes JUnit into a scratch dir; this process copies it to
    ``reports/junit-<impl>.xml`` atomically once pytest has exited with a code in
    ``PUBLISHED_EXIT_CODES``, so a report is never written by a run that no longer has an owner.
    Artifacts of failed checks go to ``reports/artifacts/<impl>/`` as pytest runs.

    Raises ControlPlaneError if pytest stopped because the control plane was lost (its exit
    code ``CONTROL_PLANE_LOST``). On Ctrl-C or SIGTERM pytest's process group gets SIGTERM,
    then SIGKILL after ``PYTEST_STOP_TIMEOUT`` seconds, and the KeyboardInterrupt propagates.
    """
    from harness.plugin.watchdog import CONTROL_PLANE_LOST

    junit = reports / f"junit-{impl_id}.xml"
    if not any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in extra):
        # Checks mostly wait on the API server and the operator: four in parallel fit 2 cores.
        extra = ["-n", os.environ.get("MODELDOCK_WORKERS", "4"), *extra]
    scratch = runs.temp_dir("suite")
    try:
        cmd = [sys.executable, "-m", "pytest", str(CONFORMANCE_DIR),
               f"--impl={impl_id}", f"--control-plane-state={state_path}",
               f"--junitxml={scratch / junit.name}", f"--artifacts-dir={reports / 'artifacts'}",
               "-v", "-p", "no:cacheprovider", *[f"--impl-file={f}" for f in impl_files], *extra]
        _say(f"running the conformance suite for {impl_id}: {' '.join(cmd[3:])}")
        code = run_group(cmd, cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                         stop_timeout=PYTEST_STOP_TIMEOUT)
        if code == CONTROL_PLANE_LOST:
            raise ControlPlaneError(f"lost while the {impl_id} suite ran "
                                    f"({state_lost(state_path) or 'see the line above'}); "
                                    f"no report written for {impl_id}")
        if code in PUBLISHED_EXIT_CODES and (scratch / junit.name).exists():
            runs.publish(scratch / junit.name, junit)
        else:
            _say(f"pytest for {impl_id} ended with exit code {code}; {junit} not written")
        return code
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        _reap()


def conformance(chosen: list[str] | None, reports: Path, pytest_args: list[str],
                impl_files: list[str], cluster: str = "envtest", context: str | None = None,
                keep_cluster: bool = False) -> int:
    """Build, start one control plane of tier ``cluster`` (envtest, sim), run the suite for
    each implementation in ``chosen`` (default ``DEFAULT_IMPLS``), write
    ``<reports>/junit-<impl>.xml`` and the comparison report, print it. ``existing``: use the
    cluster of KUBECONFIG (``context``) instead of starting one; ``kind``: make a kind cluster
    and run ``existing`` on it. Exit code: 0 every check passed, 1 some failed, 2 bad
    arguments (an unknown implementation, a bad implementation file) or a tier this machine
    cannot have (kind without a container engine), 3 the control plane failed."""
    from harness import report

    if cluster == "kind":
        from harness import kind

        if kind.engine() is None:
            return kind.no_engine_exit()
        _say("kind: a container engine answers, but creating kind clusters is not wired up here "
             "yet; create one with `kind create cluster` and use --cluster existing")
        return 2

    try:
        impls = load_implementations(impl_files)
    except ImplementationError as exc:
        _say(str(exc))
        return 2
    chosen = list(chosen or DEFAULT_IMPLS)
    unknown = [i for i in chosen if i not in impls]
    if unknown:
        _say(f"unknown implementation(s) {unknown}; declared: {sorted(impls)}")
        return 2
    reports.mkdir(parents=True, exist_ok=True)
    for impl_id in chosen:
        junit = reports / f"junit-{impl_id}.xml"
        junit.unlink(missing_ok=True)
        shutil.rmtree(reports / "artifacts" / impl_id, ignore_errors=True)
    started = time.monotonic()
    binaries.ensure(binaries.ENVTEST_BINARIES
                    + (binaries.SIM_BINARIES if cluster == "sim" else ()))
    for impl_id in chosen:
        _say(f"building {impl_id}")
        impls[impl_id].run_build()
    codes: dict[str, int] = {}
    if cluster == "existing":
        from harness import existing

        return existing.conformance(chosen, impls, reports, pytest_args, impl_files, context,
                                    started)
    try:
        cp_started = time.monotonic()
        with ControlPlane(tier=cluster) as cp:
            _say(f"{cluster} control plane ready in {time.monotonic() - cp_started:.1f}s")
            for impl_id in chosen:
                suite_started = time.monotonic()
                codes[impl_id] = run_suite(impl_id, cp.state_path, reports,
                                           [f"--cluster={cluster}", *pytest_args], impl_files)
                _say(f"{impl_id} suite on {cluster}: {time.monotonic() - suite_started:.0f}s")
    except ControlPlaneError as exc:
        _say(f"control plane failed: {exc}")
        return 3
    model = report.build([reports / f"junit-{i}.xml" for i in chosen], impls)
    md, html = report.write_all(model, reports)
    print(md.read_text())
    _say(f"reports: {', '.join(str(reports / f'junit-{i}.xml') for i in chosen)}, {md}, {html}")
    _say(f"done in {time.monotonic() - started:.0f}s; pytest exit codes: {codes}")
    return 0 if model.all_passed and all(c == 0 for c in codes.values()) else 1


def rebuild_report(reports: Path, impl_files: list[str]) -> int:
    """Rebuild the comparison report from ``<reports>/junit-*.xml`` and print it. Exit code 0
    all passed, 1 some failed, 2 no JUnit file there."""
    from harness import report

    files = sorted(reports.glob("junit-*.xml"))
    if not files:
        _say(f"no junit-*.xml in {reports}; run `make conformance` first")
        return 2
    model = report.build(files, load_implementations(impl_files))
    print(report.write_all(model, reports)[0].read_text())
    return 0 if model.all_passed else 1
