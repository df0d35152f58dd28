"""The harness's one command line: ``python -m harness <command>`` (the Makefile calls it).

Commands (each has ``--help``):

- ``conformance``: the main job. Build what is missing, start one control plane (``--cluster``:
  envtest, sim; or use an existing cluster, or a kind cluster), run the
  conformance suite once per implementation against it, write ``reports/junit-<impl>.xml`` and
  ``reports/comparison.{md,html}``, print the comparison, exit 1 if any check failed.
- ``report``: rebuild the comparison from the JUnit files in ``reports/``; ``--tiers DIR
  DIR ...``: one implementation's runs on several tiers side by side (``tiers.{md,html}``).
- ``bench``: the benchmarks (``reports/bench.json``), ``harness.bench``.
- ``mutants``: the suite against every mutant operator (the kill matrix), ``harness.mutants.cli``.
- ``mutation-score``: mutants from mutation-testing tools (cosmic-ray, gremlins) judged by the
  suite, ``harness.mutscore.score``.
- ``rbac-ablation``: every right of the operator's role taken away in turn, ``harness.rbac.ablation``.
- ``explore``: a crash at every write boundary of every scenario, a stale view, coalesced
  events (``reports/explore.json``), ``harness.explore``.
- ``generate``: sequences drawn from the CRD's schema and the cluster's other actors, judged
  by oracles with no expected value, shrunk to a case file (``reports/generated.json``,
  ``reports/generated/``), ``harness.generate``; ``replay FILE`` runs a case file again;
  ``generate-judge`` runs it against the mutants the suite misses
  (``reports/generated-mutants.json``), ``generate-cases`` replays the shipped cases that hold.
- ``lesson``: the article's story, each part backed by a small run's evidence
  (``reports/lesson.{md,html}``), ``harness.lesson.run``.
- ``binaries``: find or build (with progress) etcd, kube-apiserver and kubectl (``--sim``: also
  kube-controller-manager, kube-scheduler, kwok); ``--print-assets`` prints only the folder to
  use as KUBEBUILDER_ASSETS.
- ``up``: start a control plane in the background with the CRD installed, print the admin
  kubeconfig and an ``export KUBECONFIG=...`` line; ``down`` stops it (the one the last ``up``
  started, whatever its ``--state-dir``). ``serve``, the process ``up`` leaves in the
  background, is internal and not listed (``build_serve_parser``).
- ``existing-cleanup``: on a cluster the harness does not own (KUBECONFIG, ``--context``),
  delete the namespaces runs left (label ``modeldock.dev/run``): by default those of dead runs
  of this machine, ``--run ID`` one run's, ``--all`` every run's.

Every command owns its run (``harness.runs``): it first cleans up what dead runs left (their
processes, their temp dirs), and nothing it starts outlives it, however it ends. SIGTERM and
Ctrl-C unwind (pytest gets SIGTERM and 30 s, every process is stopped, temp dirs removed; exit
code 130 after Ctrl-C, 143 after SIGTERM); after SIGKILL its children die with it
(PR_SET_PDEATHSIG) and the next start removes its temp dirs. Only this process writes ``reports/``, each file atomically.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
from pathlib import Path

from harness import exitcodes, runs, say, suite, tiers
from harness.checks import converge_timeout_problem
from harness.envtest import background, binaries
from harness.i18n import LANGS
from harness.paths import REPORTS_DIR

#: The internal command ``up`` runs in the background (``build_serve_parser``).
SERVE = "serve"

#: Commands whose own module parses the arguments: name -> (module with ``main(argv)``, help).
DELEGATED = {
    "bench": ("harness.bench", "benchmarks of the implementations: reports/bench.json"),
    "mutants": (
        "harness.mutants.cli",
        "the suite against every mutant operator: the kill matrix",
    ),
    "mutation-score": (
        "harness.mutscore.score",
        "tool mutants of both operators judged by the suite: reports/mutation-score.json",
    ),
    "rbac-ablation": (
        "harness.rbac.ablation",
        "each right of the operator's role taken away in turn",
    ),
    "explore": (
        "harness.explore.cli",
        "every write boundary of every scenario: reports/explore.json",
    ),
    "generate": (
        "harness.generate.cli",
        "generated workloads judged by oracles with no expected value: reports/generated.json",
    ),
    "replay": (
        "harness.generate.replay",
        "run a case file of generate again: python -m harness replay FILE",
    ),
    "generate-judge": (
        "harness.generate.judge",
        "generated workloads against the mutants the suite misses: reports/generated-mutants.json",
    ),
    "generate-cases": (
        "harness.generate.judge_cases",
        "replay the shipped case files that hold today (ci: true) on go and python",
    ),
    "lesson": (
        "harness.lesson.run",
        "the article's lesson, each part drawn from a run: reports/lesson.{md,html}",
    ),
    "accounting-check": (
        "harness.accounting_check",
        "the audit log and the API proxies accounted the same requests on every check",
    ),
}


def cmd_up(args: argparse.Namespace) -> int:
    """``up``: a kind cluster is kind's to keep up (``harness.existing.kind`` says so, or that there is
    no engine: exit 2); envtest and sim start in the background
    (``harness.envtest.background.up``)."""
    if tiers.spec(args.cluster).creates_cluster:
        from harness.existing import kind

        return kind.no_engine_exit() if kind.engine() is None else kind.up_not_supported()
    return background.up(Path(args.state_dir), args.cluster, not args.no_watch_cache)


def cmd_binaries(args: argparse.Namespace) -> int:
    names = tiers.spec("sim" if args.sim else tiers.DEFAULT).binaries
    found = binaries.ensure(names)
    if args.print_assets:
        print(binaries.assets_dir())
        return 0
    for name, path in found.paths.items():
        print(f"{name:25} {path}")
    print(f"export KUBEBUILDER_ASSETS={binaries.assets_dir()}")
    return 0


def cmd_existing_cleanup(args: argparse.Namespace) -> int:
    """``existing-cleanup``: exit 0 when the selected namespaces are gone (or there were
    none), 3 when the cluster cannot be used or some are still terminating."""
    from harness.existing.cluster import ClusterError
    from harness.existing.run import admin_kubeconfig, clean_leftovers, other_runs, remove_shared
    from harness.kube import Kube

    workdir = runs.temp_dir("existing-cleanup")
    try:
        admin = Kube(admin_kubeconfig(workdir / "admin.kubeconfig", args.context))
        try:
            names = clean_leftovers(admin, run_id=args.run, all_runs=args.all)
            # No run left: what runs made and share (their ClusterRoles, a CRD a run installed).
            shared = [] if other_runs(admin, "") else remove_shared(admin)
        finally:
            admin.close()
    except ClusterError as exc:
        say.line(str(exc))
        return 3
    except Exception as exc:  # refused (no rights), unreachable: one line, never a traceback
        status, reason = getattr(exc, "status", None), getattr(exc, "reason", None)
        first = (
            f"{status} {reason}"
            if status
            else (str(exc).strip().splitlines() or [repr(exc)])[0][:300]
        )
        print(
            f"[modeldock] existing-cleanup could not use the cluster: {first} (the kubeconfig's "
            f"user needs to list and delete namespaces, ClusterRoles and CRDs)",
            file=sys.stderr,
            flush=True,
        )
        return 3
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    removed = [f"{len(names)} namespaces{': ' if names else ''}{', '.join(names)}", *shared]
    print(f"[modeldock] removed {'; '.join(removed)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m harness``; each sub-command sets ``func``, a callable
    taking the parsed namespace and returning the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m harness", description=(__doc__ or "").split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("conformance", help="run the suite for each implementation and compare")
    p.add_argument(
        "--impl",
        action="append",
        help=f"implementation id (repeatable; default: {', '.join(suite.DEFAULT_IMPLS)})",
    )
    p.add_argument("--impl-file", action="append", default=[], help="extra implementations TOML")
    p.add_argument("--reports", default=str(REPORTS_DIR), help="reports folder")
    p.add_argument(
        "--cluster",
        default=tiers.DEFAULT,
        choices=tiers.names(),
        help="the tier: envtest (default; etcd + kube-apiserver), sim (+ "
        "kube-controller-manager, kube-scheduler, kwok fake nodes), existing "
        "(the cluster of KUBECONFIG / --context: operators run here as ServiceAccounts, "
        "every namespace the run makes is labelled modeldock.dev/run=<run id> and deleted "
        "at the end, also on Ctrl-C; the CRD is installed if absent and removed again; "
        "`python -m harness existing-cleanup` removes what a killed run left), kind (a "
        "kind cluster, made and deleted, then existing on it)",
    )
    p.add_argument(
        "--context", default=None, help="kubeconfig context (--cluster existing; default: current)"
    )
    p.add_argument(
        "--kubeconfig",
        default=None,
        help="kubeconfig file (kubectl's flag; default: $KUBECONFIG, then ~/.kube/config)",
    )
    p.add_argument(
        "--keep-cluster",
        action="store_true",
        help="--cluster kind: keep the kind cluster afterwards",
    )
    p.add_argument(
        "--check",
        action="append",
        default=[],
        dest="checks",
        metavar="ID",
        help="run only this check (id, or id[case]; repeatable)",
    )
    p.add_argument(
        "--keep-on-failure",
        action="store_true",
        help="leave the control plane and failed checks' namespaces up, print how to "
        "look at them (stop with `python -m harness down`)",
    )
    p.add_argument(
        "--state-dir",
        default=str(background.DEFAULT_STATE_DIR),
        help="where --keep-on-failure keeps its control plane (as `up`)",
    )
    p.add_argument(
        "--pause-on-failure",
        action="store_true",
        help="stop at the first failed check, operators still running, until Enter",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="also run the slow cases (minutes of waiting: the clients' default deadlines, noop-stable[long-quiet-minutes])",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print pytest's output and the whole comparison (default: one line per "
        "check, then the summary)",
    )
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --), e.g. -k")
    p.set_defaults(
        func=lambda a: suite.conformance(
            a.impl,
            Path(a.reports),
            a.pytest_args,
            a.impl_file,
            suite.Options(
                verbose=a.verbose,
                keep_on_failure=a.keep_on_failure,
                pause_on_failure=a.pause_on_failure,
                checks=a.checks,
                state_dir=Path(a.state_dir),
                cluster=a.cluster,
                context=a.context,
                keep_cluster=a.keep_cluster,
                full=a.full,
            ),
        )
    )

    p = sub.add_parser("report", help="rebuild reports/comparison.{md,html} from the JUnit files")
    p.add_argument("--reports", default=str(REPORTS_DIR), help="reports folder")
    p.add_argument("--impl-file", action="append", default=[], help="extra implementations TOML")
    p.add_argument(
        "--tiers",
        nargs="+",
        metavar="DIR",
        help="instead: tiers side by side, one reports folder per tier (e.g. reports "
        "reports/sim); writes tiers.md and tiers.html into --reports",
    )
    p.add_argument(
        "--impl",
        action="append",
        help="with --tiers: only this implementation (repeatable; default: every one found)",
    )
    p.add_argument(
        "--lang",
        default="en",
        choices=LANGS,
        help="the teaching text's language; zh-CN writes comparison.zh-CN.{md,html}",
    )
    p.set_defaults(
        func=lambda a: (
            suite.tiers_report([Path(t) for t in a.tiers], Path(a.reports), a.impl)
            if a.tiers
            else suite.rebuild_report(Path(a.reports), a.impl_file, a.lang)
        )
    )

    for name, (module, text) in DELEGATED.items():
        p = sub.add_parser(name, help=text, add_help=False)
        p.add_argument("args", nargs=argparse.REMAINDER, help=f"arguments of {module} (--help)")

    p = sub.add_parser("binaries", help="find or build the Kubernetes binaries")
    p.add_argument("--sim", action="store_true", help="also the sim tier's binaries")
    p.add_argument(
        "--print-assets",
        action="store_true",
        help="print only the KUBEBUILDER_ASSETS folder (building what the cache lacks first)",
    )
    p.set_defaults(func=cmd_binaries)

    state_help = "where the background control plane's state lives"
    p = sub.add_parser("up", help="start a control plane in the background")
    p.add_argument("--state-dir", default=str(background.DEFAULT_STATE_DIR), help=state_help)
    p.add_argument(
        "--no-watch-cache",
        action="store_true",
        help="start kube-apiserver with --watch-cache=false",
    )
    p.add_argument(
        "--cluster",
        default=tiers.DEFAULT,
        choices=tuple(n for n, t in tiers.TIERS.items() if t.harness_starts or t.creates_cluster),
        help="envtest (etcd + kube-apiserver) or sim (+ kube-controller-manager, "
        "kube-scheduler, kwok fake nodes); the start-up time is printed",
    )
    p.set_defaults(func=cmd_up)

    p = sub.add_parser("down", help="stop the control plane started by `up`")
    p.add_argument(
        "--state-dir",
        default=None,
        help=f"{state_help} (default: the one the last `up` used, {background.LAST_UP} "
        f"names it; else {background.DEFAULT_STATE_DIR})",
    )
    p.set_defaults(
        func=lambda a: background.down(None if a.state_dir is None else Path(a.state_dir))
    )

    p = sub.add_parser(
        "existing-cleanup",
        help="delete the namespaces (label modeldock.dev/run) runs left on an existing cluster",
        description="Delete the namespaces conformance --cluster existing runs left on the "
        "cluster of KUBECONFIG (--context): by default those of dead runs of this machine "
        "(annotation modeldock.dev/owner names a process here that is gone), with --run one "
        "run's, with --all every run's (also live ones and other machines'). The finalizers "
        "of their ModelServices, Deployments and Services are removed first. By hand: "
        "kubectl get ns -l modeldock.dev/run shows them.",
    )
    p.add_argument("--context", default=None, help="kubeconfig context (default: current)")
    p.add_argument(
        "--kubeconfig",
        default=None,
        help="kubeconfig file (kubectl's flag; default: $KUBECONFIG, then ~/.kube/config)",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--run", default=None, metavar="ID", help="only this run's namespaces")
    which.add_argument("--all", action="store_true", help="every run's namespaces")
    p.set_defaults(func=cmd_existing_cleanup)

    return parser


def build_serve_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m harness serve``, the background process ``up`` starts
    (``harness.envtest.background.serve``). It is internal, so it is kept out of
    ``build_parser``: neither ``--help`` nor the list of choices after a mistyped command
    names it. Sets ``func`` and ``command`` like ``build_parser``."""
    p = argparse.ArgumentParser(
        prog="python -m harness serve",
        description="internal: the detached control plane of `python -m harness up`",
    )
    p.add_argument("--state-dir", default=str(background.DEFAULT_STATE_DIR))
    p.add_argument("--no-watch-cache", action="store_true")
    p.add_argument("--cluster", default=tiers.DEFAULT, choices=tiers.names(started=True))
    p.set_defaults(
        command=SERVE,
        func=lambda a: background.serve(Path(a.state_dir), not a.no_watch_cache, a.cluster),
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run the command, return its exit code:
    the command's own, 2 when MODELDOCK_CONVERGE_TIMEOUT is not a usable bound (checked first,
    for every command), 4 when the Kubernetes binaries cannot be found or built, 130 after
    Ctrl-C and 143 after SIGTERM (harness.exitcodes, the README's table)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # The processes a run starts (pytest sessions, their workers, operators) cache their
    # bytecode even where the environment says not to (PYTHONDONTWRITEBYTECODE=1): each would
    # otherwise compile the project's modules, and pytest rewrite the checks, at every start.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    problem = converge_timeout_problem()
    if problem:  # every worker of every suite would fail to import conformance/support.py
        say.line(str(problem))
        return exitcodes.BAD_ARGUMENT
    if (
        argv and argv[0] in DELEGATED
    ):  # the job's own parser, --help included; its main owns the run
        return int(importlib.import_module(DELEGATED[argv[0]][0]).main(argv[1:]))
    if argv and argv[0] == SERVE:
        args = build_serve_parser().parse_args(argv[1:])
    else:
        args = build_parser().parse_args(argv)
    kubeconfig = getattr(args, "kubeconfig", None)
    if kubeconfig is not None:  # kubectl's --kubeconfig: the file every client here reads
        if not os.path.isfile(kubeconfig):
            print(
                f"[modeldock] --kubeconfig {kubeconfig}: no such file; give a kubeconfig file "
                "or leave the flag out to use $KUBECONFIG",
                file=sys.stderr,
                flush=True,
            )
            return exitcodes.BAD_ARGUMENT
        os.environ["KUBECONFIG"] = os.path.abspath(kubeconfig)
    problem = runs.reports_dir_problem(args.reports) if args.command == "conformance" else None
    if problem:  # found before a control plane starts, not by its first write
        say.line(problem)
        return exitcodes.BAD_ARGUMENT
    # SIGTERM unwinds like Ctrl-C, but for `serve`, which keeps the default.
    runs.own(
        say.line,
        unwind=args.command != SERVE,
    )
    try:
        return int(args.func(args))
    except binaries.BinaryError as exc:
        say.line(str(exc))
        return exitcodes.BINARIES
    except KeyboardInterrupt as exc:
        print("[modeldock] interrupted; processes stopped", file=sys.stderr, flush=True)
        return exitcodes.for_interrupt(exc)
