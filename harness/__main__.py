"""Command line of the harness: ``python -m harness <command>``.

Commands:

- ``binaries``: find or build (with progress) etcd, kube-apiserver and kubectl (``--sim``: also
  kube-controller-manager, kube-scheduler, kwok); ``--print-assets`` prints only the folder to
  use as KUBEBUILDER_ASSETS.
- ``up``: start a control plane in the background with the CRD installed, print the admin
  kubeconfig and an ``export KUBECONFIG=...`` line; ``down`` stops it.
- ``conformance``: the main job. Build what is missing, start one control plane, run the
  conformance suite once per implementation against it, write ``reports/junit-<impl>.xml`` and
  ``reports/comparison.md``, print the comparison, exit 1 if any check failed.
- ``report``: rebuild the comparison from the JUnit files in ``reports/``.

Every command owns its run (``harness.runs``): it first cleans up what dead runs left (their
processes, their temp dirs), and nothing it starts outlives it, however it ends. SIGTERM and
Ctrl-C unwind (pytest gets SIGTERM and 30 s, every process is stopped, temp dirs removed; exit
code 130); after SIGKILL its children die with it (PR_SET_PDEATHSIG) and the next start
removes its temp dirs. Only this process writes ``reports/``, each file atomically.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from harness import runs
from harness.envtest import binaries
from harness.envtest.controlplane import ControlPlane, ControlPlaneError, state_lost
from harness.envtest.process import pid_alive, run_group
from harness.operators import ImplementationError, load_implementations
from harness.paths import BUILD_DIR, CONFORMANCE_DIR, REPO_ROOT, REPORTS_DIR

DEFAULT_STATE_DIR = BUILD_DIR / "up"
DEFAULT_REPORTS = REPORTS_DIR


def _say(line: str) -> None:
    print(f"[modeldock] {line}", file=sys.stderr, flush=True)


def _reap() -> None:
    """Clean up after dead runs (``harness.runs.reap``), saying what was removed."""
    reaped = runs.reap()
    if reaped:
        _say(reaped.describe())


# --------------------------------------------------------------------------- binaries
def cmd_binaries(args: argparse.Namespace) -> int:
    names = binaries.ENVTEST_BINARIES + (binaries.SIM_BINARIES if args.sim else ())
    found = binaries.ensure(names)
    if args.print_assets:
        print(binaries.assets_dir())
        return 0
    for name, path in found.paths.items():
        print(f"{name:25} {path}")
    print(f"export KUBEBUILDER_ASSETS={binaries.assets_dir()}")
    return 0


# --------------------------------------------------------------------------- up / down
def cmd_serve(args: argparse.Namespace) -> int:
    """Run a control plane in the foreground until SIGTERM or SIGINT (used by ``up``)."""
    state_dir = Path(args.state_dir)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    cp = ControlPlane(workdir=state_dir, watch_cache=not args.no_watch_cache)
    try:
        cp.start()
        while not stop.wait(1):
            for proc in (cp.etcd, cp.apiserver):
                if proc is not None and not proc.running() and not stop.is_set():
                    _say(f"{proc.name} exited; see {proc.log_path}")
                    stop.set()
    finally:
        cp.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
    return 0


def _read_state(state_dir: Path) -> dict[str, object] | None:
    try:
        return dict(json.loads((state_dir / "state.json").read_text()))
    except (OSError, ValueError):
        return None


def cmd_up(args: argparse.Namespace) -> int:
    state_dir = Path(args.state_dir)
    state = _read_state(state_dir)
    if state and pid_alive(int(state.get("supervisor_pid", 0) or 0)):
        _say(f"a control plane is already up (pid {state['supervisor_pid']}); "
             f"`python -m harness down` stops it")
        print(f"export KUBECONFIG={state['admin_kubeconfig']}")
        return 0
    if args.cluster == "kind":
        _say("--cluster kind needs a container engine (docker or podman) and kind node images; "
             "neither is available on this machine. Use --cluster envtest, or point KUBECONFIG "
             "at a cluster and use --cluster existing with the suite.")
        return 2
    if args.cluster != "envtest":
        _say(f"--cluster {args.cluster} is not available from `up` yet; use envtest")
        return 2
    binaries.ensure(binaries.ENVTEST_BINARIES)  # progress on this terminal, not in the log
    shutil.rmtree(state_dir, ignore_errors=True)
    state_dir.mkdir(parents=True)
    cmd = [sys.executable, "-m", "harness", "serve", "--state-dir", str(state_dir)]
    if args.no_watch_cache:
        cmd.append("--no-watch-cache")
    # The one process meant to outlive us: its own session, and its own run (no mark of ours).
    env = {k: v for k, v in os.environ.items() if k != runs.RUN_ENV}
    with open(state_dir / "supervisor.log", "ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=REPO_ROOT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = _read_state(state_dir)
        if state:
            break
        if proc.poll() is not None:
            _say(f"the control plane failed to start:\n{(state_dir / 'supervisor.log').read_text()}")
            return 1
        time.sleep(0.2)
    else:
        proc.terminate()
        _say("the control plane did not start within 120s")
        return 1
    _say(f"control plane up at {state['server']} (supervisor pid {proc.pid}); CRD installed")
    _say(f"admin kubeconfig: {state['admin_kubeconfig']}; state: {state_dir / 'state.json'}")
    _say("stop it with: python -m harness down")
    print(f"export KUBECONFIG={state['admin_kubeconfig']}")
    return 0


def cmd_down(args: argparse.Namespace) -> int:
    state_dir = Path(args.state_dir)
    state = _read_state(state_dir)
    if not state:
        _say(f"no control plane is up (no {state_dir / 'state.json'})")
        return 0
    pid = int(state.get("supervisor_pid", 0) or 0)
    if pid and pid_alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
    shutil.rmtree(state_dir, ignore_errors=True)
    _say("control plane stopped")
    return 0


# --------------------------------------------------------------------------- conformance
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
    from harness.plugin import CONTROL_PLANE_LOST

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


def cmd_conformance(args: argparse.Namespace) -> int:
    from harness import report

    try:
        impls = load_implementations(args.impl_file)
    except ImplementationError as exc:
        _say(str(exc))
        return 2
    chosen = args.impl or ["go", "python"]
    unknown = [i for i in chosen if i not in impls]
    if unknown:
        _say(f"unknown implementation(s) {unknown}; declared: {sorted(impls)}")
        return 2
    reports = Path(args.reports)
    reports.mkdir(parents=True, exist_ok=True)
    for impl_id in chosen:
        junit = reports / f"junit-{impl_id}.xml"
        junit.unlink(missing_ok=True)
        shutil.rmtree(reports / "artifacts" / impl_id, ignore_errors=True)
    started = time.monotonic()
    binaries.ensure(binaries.ENVTEST_BINARIES)
    for impl_id in chosen:
        _say(f"building {impl_id}")
        impls[impl_id].run_build()
    codes: dict[str, int] = {}
    try:
        with ControlPlane() as cp:
            for impl_id in chosen:
                codes[impl_id] = run_suite(impl_id, cp.state_path, reports, args.pytest_args,
                                           args.impl_file)
    except ControlPlaneError as exc:
        _say(f"control plane failed: {exc}")
        return 3
    model = report.build([reports / f"junit-{i}.xml" for i in chosen], impls)
    md, html = report.write_all(model, reports)
    print(md.read_text())
    _say(f"reports: {', '.join(str(reports / f'junit-{i}.xml') for i in chosen)}, {md}, {html}")
    _say(f"done in {time.monotonic() - started:.0f}s; pytest exit codes: {codes}")
    return 0 if model.all_passed and all(c == 0 for c in codes.values()) else 1


def cmd_report(args: argparse.Namespace) -> int:
    from harness import report

    reports = Path(args.reports)
    files = sorted(reports.glob("junit-*.xml"))
    if not files:
        _say(f"no junit-*.xml in {reports}; run `make conformance` first")
        return 2
    model = report.build(files, load_implementations(args.impl_file))
    print(report.write_all(model, reports)[0].read_text())
    return 0 if model.all_passed else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("binaries", help="find or build the Kubernetes binaries")
    p.add_argument("--sim", action="store_true", help="also the sim tier's binaries")
    p.add_argument("--print-assets", action="store_true", help="print only the KUBEBUILDER_ASSETS folder")
    p.set_defaults(func=cmd_binaries)

    for name, func, text in (("up", cmd_up, "start a control plane in the background"),
                             ("serve", cmd_serve, argparse.SUPPRESS),
                             ("down", cmd_down, "stop the control plane started by `up`")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--state-dir", default=str(DEFAULT_STATE_DIR), help="where its state lives")
        if name != "down":
            p.add_argument("--no-watch-cache", action="store_true",
                           help="start kube-apiserver with --watch-cache=false")
        if name == "up":
            p.add_argument("--cluster", default="envtest", choices=("envtest", "sim", "kind"))
        p.set_defaults(func=func)

    p = sub.add_parser("conformance", help="run the suite for each implementation and compare")
    p.add_argument("--impl", action="append", help="implementation id (repeatable; default: go, python)")
    p.add_argument("--impl-file", action="append", default=[], help="extra implementations TOML")
    p.add_argument("--reports", default=str(DEFAULT_REPORTS), help="reports folder")
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    p.set_defaults(func=cmd_conformance)

    p = sub.add_parser("report", help="rebuild reports/comparison.md from the JUnit files")
    p.add_argument("--reports", default=str(DEFAULT_REPORTS))
    p.add_argument("--impl-file", action="append", default=[])
    p.set_defaults(func=cmd_report)

    args = parser.parse_args(argv)
    runs.claim()
    _reap()
    if args.command != "serve":
        # SIGTERM unwinds like Ctrl-C, so every `with ControlPlane()` stops its processes and
        # removes its temp dir (children also die with us through PR_SET_PDEATHSIG).
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        return int(args.func(args))
    except binaries.BinaryError as exc:
        _say(str(exc))
        return 3
    except KeyboardInterrupt:
        _say("interrupted; processes stopped")
        return 130


if __name__ == "__main__":
    sys.exit(main())
