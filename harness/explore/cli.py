"""``python -m harness explore``: every write boundary of every scenario, for each
implementation (``make explore``; ``make explore-ci`` is ``--ci``)."""

from __future__ import annotations

import argparse
import tempfile
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness import exitcodes, report, runs, say
from harness.envtest.controlplane import ControlPlane
from harness.explore import results
from harness.explore.case import (
    CONFLICT,
    DELIVERED,
    ERROR,
    FAILED,
    PASSED,
    WITHHELD,
    Settings,
)
from harness.explore.run import (
    VARIANTS,
    Exploration,
    Plan,
    explore,
    parity_cases,
    select_scenarios,
)
from harness.explore.scenarios import SCENARIOS
from harness.mutants import MUTANTS_FILE, declared
from harness.operators import Implementation, ImplementationError, load_implementations
from harness.paths import REPORTS_DIR

#: ``--ci``: a few scenarios, the first boundaries, both crash variants; about 3 minutes per
#: implementation on 2 cores.
CI_SCENARIOS = ("create", "scale", "delete")
CI_MAX_K = 2
#: The implementation whose clean end states every other one's are compared with
#: (``run.parity_cases``), as ``conformance/test_parity.py`` compares with the Go reference.
PARITY_REFERENCE = "go"


_say = say.to("explore")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m harness explore",
        description="Explore every write boundary: for each scenario a clean run, then a crash "
        "(SIGKILL, the write's response withheld or delivered) and a 409 at each of "
        "the operator's writes, a stale view and coalesced events; the end state must "
        "equal the clean run's. Writes reports/junit-explore-<impl>.xml, "
        "reports/explore.json and reports/explore.md; exit 1 if a case failed.",
    )
    p.add_argument(
        "--impl",
        action="append",
        help="implementation id (repeatable; default: go, python); mutants are known too",
    )
    p.add_argument("--impl-file", action="append", default=[], help="extra implementations TOML")
    p.add_argument(
        "--scenario", action="append", default=[], help="only this scenario (repeatable)"
    )
    p.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"boundary variants, comma-separated from {WITHHELD},{DELIVERED},{CONFLICT}",
    )
    p.add_argument("--max-k", type=int, default=0, help="at most this many boundaries per scenario")
    p.add_argument("--no-extra", action="store_true", help="no stale-view and coalesced runs")
    p.add_argument(
        "--quiet",
        type=float,
        default=10.0,
        help="seconds without a write that make the operator quiet (default 10)",
    )
    p.add_argument("--workers", type=int, default=4, help="cases at a time (default 4)")
    p.add_argument(
        "--ci",
        action="store_true",
        help=f"the CI subset: scenarios {', '.join(CI_SCENARIOS)}, k <= {CI_MAX_K}, "
        "withheld and delivered, no extra runs, quiet 6 s",
    )
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="SCENARIO@PERTURBATION",
        help="only this case, e.g. create@write-2-withheld (repeatable)",
    )
    p.add_argument(
        "--mutants",
        action="store_true",
        help="also run each mutant declared with `explore` in mutants.toml against "
        "its cases; each must kill it (--ci does this)",
    )
    p.add_argument("--reports", default=str(REPORTS_DIR), help="reports folder")
    p.add_argument(
        "--keep",
        metavar="DIR",
        help="keep each case's folder (operator and proxy "
        "logs, request log, result.json) under DIR",
    )
    p.add_argument(
        "--no-parity",
        dest="parity",
        action="store_false",
        help=f"do not compare each implementation's clean end states with {PARITY_REFERENCE}'s "
        f"(by default {PARITY_REFERENCE}'s clean runs are made for it when it is not explored)",
    )
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    return p


def run_from_args(args: argparse.Namespace) -> int:
    if args.list:
        for scenario in SCENARIOS:
            print(f"{scenario.id:22} {scenario.title}")
        return 0
    impls = load_implementations([*args.impl_file, MUTANTS_FILE])
    ids = args.impl or ["go", "python"]
    unknown = [i for i in ids if i not in impls]
    if unknown:
        raise ImplementationError(f"unknown implementation(s) {unknown}")
    if args.case:
        plan = Plan.for_cases(SCENARIOS, args.case)
        quiet = args.quiet
    elif args.ci:
        plan = Plan(
            select_scenarios(SCENARIOS, args.scenario or CI_SCENARIOS),
            variants=(WITHHELD, DELIVERED),
            max_k=CI_MAX_K,
            extra=False,
        )
        quiet = min(args.quiet, 6.0)
    else:
        plan = Plan(
            select_scenarios(SCENARIOS, args.scenario),
            variants=tuple(v for v in args.variants.split(",") if v),
            max_k=args.max_k,
            extra=not args.no_extra,
        )
        quiet = args.quiet
    bad = [v for v in plan.variants if v not in VARIANTS]
    if bad:
        raise SystemExit(f"unknown variant(s) {bad}; known: {', '.join(VARIANTS)}")
    reports = Path(args.reports)
    done: list[Exploration] = []
    with ControlPlane() as cp, tempfile.TemporaryDirectory(prefix="modeldock-explore-") as scratch:
        tmp = args.keep or scratch
        for impl_id in ids:
            impls[impl_id].run_build()
        with_mutants = args.mutants or args.ci
        lanes = len(ids) + 1 + (len(explore_cases()) if with_mutants else 0)
        # One pool of ``workers`` case slots for every implementation and mutant, each
        # exploration in a lane (thread) of its own: no phase waits for another's last case.
        with ThreadPoolExecutor(args.workers) as pool, ThreadPoolExecutor(lanes) as lane:
            explorations = {}
            for impl_id in ids:
                _say(
                    f"{impl_id}: {len(plan.scenarios)} scenarios, variants "
                    f"{','.join(plan.variants)}{f', k <= {plan.max_k}' if plan.max_k else ''}, "
                    f"quiet {quiet:.0f}s, {args.workers} cases at a time in all"
                )
                settings = Settings(
                    cp, impls[impl_id], Path(tmp), quiet=quiet, crash_wait=max(20.0, quiet + 10)
                )
                explorations[impl_id] = lane.submit(
                    explore, settings, plan, args.workers, pool=pool
                )
            pending = explore_mutants(cp, impls, Path(tmp), lane, pool) if with_mutants else {}
            reference_id = PARITY_REFERENCE if PARITY_REFERENCE in ids else None
            if reference_id is None and args.parity and not args.case:
                # The reference's clean runs alone, for the comparison across implementations.
                _say(f"{PARITY_REFERENCE}: clean runs only, the reference of the parity cases")
                clean_only = Plan(plan.scenarios, variants=(), extra=False)
                ref_settings = Settings(cp, impls[PARITY_REFERENCE], Path(tmp), quiet=quiet)
                impls[PARITY_REFERENCE].run_build()
                explorations[PARITY_REFERENCE] = lane.submit(
                    explore, ref_settings, clean_only, args.workers, pool=pool
                )
                reference_id = PARITY_REFERENCE
            finished = {i: f.result() for i, f in explorations.items()}
            for impl_id in ids:
                exp = finished[impl_id]
                if args.parity and reference_id is not None and impl_id != reference_id:
                    exp.cases += parity_cases(finished[reference_id], exp)
                done.append(exp)
                results.write_junit(results.junit_path(reports, impl_id), exp)
                summ = results.summary(exp)
                _say(
                    f"{impl_id}: {summ['cases']} cases, {summ['survived']} survived, "
                    f"{sum(c.outcome == FAILED for c in exp.cases)} failed, "
                    f"{sum(c.outcome == ERROR for c in exp.cases)} not judged (errors), "
                    f"{len(summ['skipped'])} cases skipped "
                    f"({summ['boundaries_skipped']} boundaries not reached), "
                    f"{len(summ['not_judged'])} scenarios with nothing judged; "
                    f"{summ['boundaries']} write boundaries; "
                    + (
                        "the parity reference"
                        if impl_id == reference_id
                        else f"parity with {reference_id}: "
                        f"{sum(o == 'passed' for o in summ['parity'].values())}/"
                        f"{len(summ['parity'])} scenarios equal"
                    )
                    + f"; {exp.seconds:.0f}s; "
                    f"accounting: {summ['accounting']['requests_compared']} requests in "
                    f"{summ['accounting']['runs']} runs compared with the audit log, "
                    f"{len(summ['accounting']['differences'])} runs differ"
                )
                for case in exp.failed:
                    _say(f"  {case.id}: {case.message}")
            kills = {m: judge_mutant(cases, f.result()) for m, (cases, f) in pending.items()}
    data = results.write_json(reports / "explore.json", done, kills)
    results.write_markdown(reports / "explore.md", data)
    for exp in done:
        entry = data["implementations"][exp.impl]
        print(results.matrix_markdown(exp.impl, entry["outcomes"], entry["clean_writes"]))
    _say(f"wrote {reports / 'explore.json'}, {reports / 'explore.md'} and the JUnit files")
    if report.refresh(reports, load_implementations()):
        _say(f"exploration matrix added to {reports / 'comparison.md'} and .html")
    for m, k in kills.items():
        _say(
            f"mutant {m}: {k['verdict']}; killed by {k['killed_by'] or '-'}"
            + (f"; survived {k['survived']}" if k["survived"] else "")
            + (f"; never judged (a harness error) {k['no_verdict']}" if k["no_verdict"] else "")
        )
    differ = any(results.summary(exp)["accounting"]["differences"] for exp in done)
    return exit_code(any(exp.failed for exp in done) or differ, kills)


def exit_code(failed: bool, kills: dict[str, dict[str, Any]]) -> int:
    """1 when a case of an implementation failed (``failed``) or a mutant survived; else 5
    (``exitcodes.NO_VERDICT``) when a mutant's case gave no verdict; else 0."""
    verdicts = {k["verdict"] for k in kills.values()}
    if failed or "SURVIVED" in verdicts:
        return exitcodes.FAILED
    return exitcodes.NO_VERDICT if "no verdict" in verdicts else exitcodes.OK


def explore_cases() -> dict[str, list[str]]:
    """Every mutant declared with ``explore`` in mutants.toml -> the cases that must kill it."""
    return {m: list(t["explore"]) for m, t in declared().items() if t.get("explore")}


def explore_mutants(
    cp: ControlPlane,
    impls: dict[str, Implementation],
    tmp: Path,
    lanes: Executor,
    pool: Executor,
) -> dict[str, tuple[list[str], Future[Exploration]]]:
    """Start every mutant declared with ``explore`` against its cases, each in a lane of its
    own, its cases on ``pool``; return mutant -> (its cases, the exploration's future)."""
    out: dict[str, tuple[list[str], Future[Exploration]]] = {}
    for mutant_id, cases in explore_cases().items():
        _say(f"mutant {mutant_id}: {', '.join(cases)}")
        # Build it here (a Go mutant's binary, as ``harness mutants`` does): no other step
        # has to have built it first. A failed build raises ImplementationError.
        impls[mutant_id].run_build()
        settings = Settings(cp, impls[mutant_id], tmp, quiet=6.0, crash_wait=20.0)
        plan = Plan.for_cases(SCENARIOS, cases)
        out[mutant_id] = (cases, lanes.submit(explore, settings, plan, pool=pool))
    return out


def judge_mutant(cases: list[str], exp: Exploration) -> dict[str, Any]:
    """A case kills the mutant when it fails (verdict fail) and lets it survive when it
    passes; a case that never ran or did not finish (an error: a process that could not
    start, a clean run that did not pass) gives no verdict, so it is listed in ``no_verdict``,
    never as survived. ``verdict``: ``killed`` when every case of its list killed it,
    ``SURVIVED`` when one passed, else ``no verdict``."""
    outcome = {c.id: c.outcome for c in exp.cases}
    of = {c: outcome.get(f"explore[{c}]") for c in cases}
    killed_by = [c for c in cases if of[c] == FAILED]
    survived = [c for c in cases if of[c] == PASSED]
    killed = len(killed_by) == len(cases)
    return {
        "cases": cases,
        "killed_by": killed_by,
        "survived": survived,
        "no_verdict": [c for c in cases if of[c] not in (FAILED, PASSED)],
        "killed": killed,
        # a case that passed is a survival whatever the others did; else no verdict
        "verdict": "killed" if killed else "SURVIVED" if survived else "no verdict",
        "messages": {c.id: c.message for c in exp.cases if c.message},
    }


def explore_problem(args: argparse.Namespace) -> str | None:
    """What of ``explore``'s arguments would fail only once its control plane is up, in one
    line naming the option and the fix (as ``generate``'s ``generate_problem``); None when it
    can start. Builds nothing."""
    for option, value in (("--workers", args.workers), ("--quiet", args.quiet)):
        if value <= 0:
            return f"{option} {value}: give a number above 0"
    if args.max_k < 0:
        return f"--max-k {args.max_k}: give 0 (every boundary) or a positive number"
    try:
        impls = load_implementations([*args.impl_file, MUTANTS_FILE])
        real = load_implementations(args.impl_file)
    except ImplementationError as exc:
        return str(exc)
    unknown = [i for i in args.impl or [] if i not in impls]
    if unknown:
        return (
            f"--impl {unknown[0]}: unknown implementation; known: {', '.join(sorted(real))} and "
            f"the {len(impls) - len(real)} mutants of harness/mutants/mutants.toml (another "
            "implementation's file: --impl-file)"
        )
    known = [s.id for s in SCENARIOS]
    wanted = [*args.scenario, *(c.partition("@")[0] for c in args.case)]
    bad = [s for s in wanted if s not in known]
    if bad:
        return f"unknown scenario {bad[0]!r}; known (--list): {', '.join(known)}"
    variants = [v for v in args.variants.split(",") if v]
    if [v for v in variants if v not in VARIANTS]:
        return f"--variants {args.variants}: give some of {','.join(VARIANTS)}"
    return runs.reports_dir_problem(args.reports)


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, check it (one line and exit 2 when bad), own the run
    (``harness.runs``), explore; exit code 0, 1 (a case failed, a mutant survived), 2 (a bad
    argument, a failed build), 5 (a mutant's case gave no verdict), 130 (Ctrl-C), 143
    (SIGTERM)."""
    args = build_parser().parse_args(argv)
    problem = explore_problem(args)
    if problem:
        _say(problem)
        return exitcodes.BAD_ARGUMENT
    runs.own(_say)  # claim the run, reap dead ones, SIGTERM unwinds like Ctrl-C
    try:
        return run_from_args(args)
    except ImplementationError as exc:  # a build failed: its output, not a traceback
        _say(str(exc))
        return exitcodes.BAD_ARGUMENT
    except KeyboardInterrupt as exc:
        _say("interrupted; processes stopped, explore.json not written")
        return exitcodes.for_interrupt(exc)
