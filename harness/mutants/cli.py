"""``python -m harness mutants``: the command line of the kill matrix (``harness.mutants.runner``
does the work): the options, the run they ask for, and the exit code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness import exitcodes, runs, tiers
from harness.envtest import binaries
from harness.envtest.controlplane import ControlPlaneError
from harness.mutants.runner import (
    DEFAULT_REPORTS,
    EXPLORATION_ONLY_DIR,
    _say,
    exploration_only,
    rebuild,
    run_mutants,
)
from harness.operators import ImplementationError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m harness mutants``."""
    parser.add_argument(
        "--mutant",
        action="append",
        default=[],
        help="mutant id (repeatable; default: every mutant in harness/mutants/mutants.toml "
        "but the exploration-only ones)",
    )
    parser.add_argument(
        "--workers", type=int, default=4, help="pytest-xdist workers per suite (at most)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants' suites at a time (default 1)")
    parser.add_argument("--reports", default=str(DEFAULT_REPORTS), help="reports folder")
    parser.add_argument("-k", dest="checks_filter", help="pytest -k expression selecting checks")
    parser.add_argument(
        "--ci",
        action="store_true",
        help="the CI subset: each mutant against its caught_by checks only",
    )
    parser.add_argument(
        "--rest",
        action="store_true",
        help="the caught_by pairs --ci leaves out: each mutant against those only (none left: "
        "not run); not with --ci: a run of --ci and one of --rest cover every pair "
        "(make mutants-pairs runs the second)",
    )
    parser.add_argument(
        "--cluster",
        default=tiers.DEFAULT,
        choices=tiers.names(started=True),
        help="the tier to run on (sim: the mutants only a cluster's "
        "controllers expose, and every other one too)",
    )
    parser.add_argument(
        "--exploration-only",
        action="store_true",
        help="run the whole suite against each exploration-only mutant (`explore` in "
        "mutants.toml; --mutant: some of them) into <reports>/exploration-only/; exit 1 if a "
        "check kills one or does not judge it (an error, nothing passed)",
    )
    parser.add_argument(
        "--from-junit",
        action="store_true",
        help="run nothing: rebuild mutants.json from reports/mutants/junit-*.xml",
    )


def exploration_only_problem(args: argparse.Namespace) -> str:
    """What is wrong with an ``--exploration-only`` command line, or "": it runs the whole
    suite (not ``--ci``'s subset), anew (not ``--from-junit``), against mutants declared
    with ``explore`` and no ``caught_by`` only (another mutant is expected to be killed; its
    verdict is the kill matrix's)."""
    if args.ci or args.rest or args.from_junit:
        return "--exploration-only runs the whole suite anew: not with --ci, --rest or --from-junit"
    known = exploration_only()
    if not known:
        return "no mutant in mutants.toml is declared with `explore` and no `caught_by`"
    others = [m for m in args.mutant if m not in known]
    if others:
        return (
            f"--exploration-only: {', '.join(others)} not declared with `explore` and no "
            f"`caught_by` in mutants.toml (those are: {', '.join(known)}); run it without "
            "--exploration-only"
        )
    return ""


def run_from_args(args: argparse.Namespace) -> int:
    """Run as the options say; the exit code: 0 verdict ok, 1 not, 2 bad input, 3 no
    control plane."""
    if args.exploration_only:
        problem = exploration_only_problem(args)
        if problem:
            _say(problem)
            return 2
    if args.rest and (args.ci or args.from_junit):
        _say("--rest runs the pairs --ci leaves out: not with --ci or --from-junit")
        return 2
    try:
        if args.from_junit:
            data = rebuild(args.mutant, Path(args.reports))
        elif args.exploration_only:
            data = run_mutants(
                args.mutant or exploration_only(),
                Path(args.reports) / EXPLORATION_ONLY_DIR,
                args.workers,
                args.checks_filter,
                cluster=args.cluster,
                jobs=args.jobs,
                expect_survival=True,
            )
        else:
            data = run_mutants(
                args.mutant,
                Path(args.reports),
                args.workers,
                args.checks_filter,
                ci=args.ci,
                cluster=args.cluster,
                jobs=args.jobs,
                rest=args.rest,
            )
    except (ImplementationError, binaries.BinaryError) as exc:
        _say(str(exc))
        return 2
    except ControlPlaneError as exc:
        _say(f"control plane failed: {exc}")
        return 3
    return 0 if data["verdict"]["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness mutants",
        description="Run the conformance suite against every mutant and write the kill matrix "
        "(reports/mutants.json). Exit 1 if a mutant survives every check or a check "
        "kills no mutant. With --exploration-only, the reverse for the mutants only "
        "exploration finds: exit 1 if a check kills one.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    for option, value in (("--workers", args.workers), ("--jobs", args.jobs)):
        if value < 1:  # found before a control plane starts
            _say(f"{option} {value}: give a number of at least 1")
            return exitcodes.BAD_ARGUMENT
    runs.own(_say)  # claim the run, reap dead ones, SIGTERM unwinds like Ctrl-C
    try:
        return run_from_args(args)
    except KeyboardInterrupt as exc:
        _say("interrupted; processes stopped, mutants.json not written")
        return exitcodes.for_interrupt(exc)


if __name__ == "__main__":
    sys.exit(main())
