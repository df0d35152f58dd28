"""The exploration of one implementation: every scenario clean, then at every write boundary.

For each scenario a clean run records the operator's writes after ``act`` (K of them) and the
end state. Then, for every boundary k = 1..K and every variant (withheld, delivered, and 409
conflict unless left out), the scenario runs again with that perturbation; and once with a
stale view and once with coalesced events. Cases run ``workers`` at a time, each in its own
namespace with its own proxy and operator, on one control plane.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field

from harness.explore.case import (
    CLEAN,
    CONFLICT,
    DELIVERED,
    ERROR,
    FAILED,
    PASSED,
    SKIPPED,
    WITHHELD,
    CaseResult,
    Perturbation,
    Settings,
    run_case,
)
from harness.explore.scenarios import Scenario
from harness.explore.state import diff

#: The variants at each boundary, in report order.
VARIANTS = (WITHHELD, DELIVERED, CONFLICT)


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class Plan:
    """What to explore: ``scenarios``; ``variants`` at each boundary; ``max_k`` caps the
    boundaries per scenario (0: all); ``extra``: also the stale-view and coalesced runs."""

    scenarios: tuple[Scenario, ...]
    variants: tuple[str, ...] = VARIANTS
    max_k: int = 0
    extra: bool = True
    #: only these cases (``scenario@perturbation``, e.g. ``create@write-2-withheld``), after
    #: their scenarios' clean runs; empty: every case of the plan
    only: tuple[str, ...] = ()

    @classmethod
    def for_cases(cls, all_scenarios: Iterable[Scenario], cases: Iterable[str]) -> Plan:
        """The plan that runs just ``cases`` (and the clean runs of their scenarios)."""
        cases = tuple(cases)
        ids = list(dict.fromkeys(c.partition("@")[0] for c in cases))
        return cls(select_scenarios(all_scenarios, ids), only=cases)


@dataclass
class Exploration:
    """The results of one implementation's exploration."""

    impl: str
    cases: list[CaseResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def judged(self) -> list[CaseResult]:
        """Cases that ran to a verdict (clean runs and skipped boundaries excluded)."""
        return [
            c
            for c in self.cases
            if c.perturbation != "clean" and c.outcome in (PASSED, FAILED, ERROR)
        ]

    @property
    def failed(self) -> list[CaseResult]:
        return [c for c in self.cases if c.outcome in (FAILED, ERROR)]

    def boundaries(self) -> int:
        """Write boundaries explored: distinct (scenario, k) with a crash case that ran."""
        return len(
            {
                (c.scenario, c.perturbation.split("-")[1])
                for c in self.cases
                if c.perturbation.startswith("write-") and c.outcome != SKIPPED
            }
        )

    def boundaries_skipped(self) -> int:
        """Write boundaries not reached: distinct (scenario, k) whose every case was skipped
        (the perturbed runs made fewer than k writes)."""
        ran: dict[tuple[str, str], bool] = {}
        for c in self.cases:
            if c.perturbation.startswith("write-"):
                key = (c.scenario, c.perturbation.split("-")[1])
                ran[key] = ran.get(key, False) or c.outcome != SKIPPED
        return sum(1 for r in ran.values() if not r)


#: The pseudo-perturbations of the verdicts about a whole scenario or run (``not_judged``,
#: ``parity_cases``): ``explore[<scenario>@boundaries]``, ``explore[<scenario>@parity-<ref>]``.
BOUNDARIES, PARITY = "boundaries", "parity"


def not_judged(exp: Exploration, plan: Plan) -> list[CaseResult]:
    """Errors for what ``exp`` explored without judging anything, which must not read as
    green (issue 23): a scenario whose clean run passed but made no write after the act (no
    boundary to crash at), or whose every boundary case was skipped; and, when no perturbed
    case at all was judged, the run itself (``explore[run@judged]``). Each an ``error``
    CaseResult whose message says why; none for a plan of named cases (``Plan.only``: a
    mutant's, judged case by case) or of clean runs alone (the parity reference's)."""
    if plan.only or not (plan.variants or plan.extra):
        return []
    out = []
    for clean in (c for c in exp.cases if c.perturbation == "clean" and c.outcome == PASSED):
        bounds = [
            c
            for c in exp.cases
            if c.scenario == clean.scenario and c.perturbation.startswith("write-")
        ]
        if plan.variants and not clean.writes:
            message = (
                f"not judged: the clean run of {clean.scenario} made no write after the act, "
                "so it has no boundary to crash at"
            )
        elif bounds and all(c.outcome == SKIPPED for c in bounds):
            message = (
                f"not judged: every one of the {len(bounds)} boundary cases of "
                f"{clean.scenario} was skipped (its perturbed runs made fewer writes than the "
                f"clean run's {len(clean.writes)})"
            )
        else:
            continue
        out.append(CaseResult(exp.impl, clean.scenario, BOUNDARIES, ERROR, message, message))
    if not exp.judged and not out and not exp.failed:
        message = "not judged: no perturbed case of this run reached a verdict"
        out.append(CaseResult(exp.impl, "run", "judged", ERROR, message, message))
    return out


def parity_cases(reference: Exploration, other: Exploration) -> list[CaseResult]:
    """The end state of each scenario's clean run of ``other`` compared with ``reference``'s,
    normalised (``state.snapshot``, as ``conformance/test_parity.py`` normalises): one case
    ``explore[<scenario>@parity-<reference>]`` of ``other`` per scenario both ran clean and
    passed, ``failed`` naming each differing field (``state.diff``: ``path: expected (the
    reference's) X, got Y``). A perturbed run's end state equals its own clean run's, so this
    carries the comparison across implementations to every case."""
    ref = {
        c.scenario: c for c in reference.cases if c.perturbation == "clean" and c.outcome == PASSED
    }
    out = []
    for c in other.cases:
        if c.perturbation != "clean" or c.outcome != PASSED or c.scenario not in ref:
            continue
        res = CaseResult(other.impl, c.scenario, f"{PARITY}-{reference.impl}")
        res.state = c.state
        differences = diff(ref[c.scenario].state, c.state)
        if differences:
            res.outcome = FAILED
            res.message = (
                f"end state differs from {reference.impl}'s clean run: {differences[0]}"
                + (f" (+{len(differences) - 1} more)" if len(differences) > 1 else "")
            )
            res.details = f"- {reference.impl}, + {other.impl}:\n" + "\n".join(differences)
        out.append(res)
    return out


def perturbations(
    k_count: int, plan: Plan, extra: tuple[str, ...] = ("stale-view", "coalesced")
) -> list[Perturbation]:
    """The perturbed runs of a scenario whose clean run made ``k_count`` writes; ``extra``: the
    scenario's runs besides the boundaries (``Scenario.extra``), when the plan has them."""
    ks = range(1, (min(k_count, plan.max_k) if plan.max_k else k_count) + 1)
    out = [
        Perturbation("error" if v == CONFLICT else "crash", k, v) for k in ks for v in plan.variants
    ]
    if plan.extra:
        out += [Perturbation(kind) for kind in extra]
    return out


def explore(
    settings: Settings,
    plan: Plan,
    workers: int = 4,
    progress: Callable[[str], None] = _print,
    pool: Executor | None = None,
) -> Exploration:
    """Explore one implementation (see the module docstring), ``workers`` cases at a time, or
    on ``pool`` when given: explorations of several implementations share one pool (called
    from threads of their own), so one's clean runs overlap another's cases and no worker
    waits for the slowest case of a phase."""
    if pool is None:
        with ThreadPoolExecutor(max_workers=workers) as own:
            return explore(settings, plan, workers, progress, own)
    started = time.monotonic()
    result = Exploration(settings.impl.id)
    impl = settings.impl.id

    def done(c: CaseResult) -> CaseResult:
        mark = {"passed": "ok", "failed": "FAIL", "error": "ERROR", "skipped": "skip"}[c.outcome]
        progress(
            f"[explore] {impl} {c.id}: {mark} ({c.seconds:.0f}s, {len(c.writes)} writes)"
            + (f": {c.message}" if c.message else "")
        )
        return c

    cleans = list(pool.map(lambda s: done(run_case(settings, s, CLEAN, None)), plan.scenarios))
    result.cases += cleans
    jobs: list[tuple[Scenario, Perturbation, CaseResult]] = []
    for scenario, clean in zip(plan.scenarios, cleans, strict=True):
        if clean.outcome != PASSED:
            progress(
                f"[explore] {impl} {scenario.id}: the clean run did not pass; its "
                "perturbed runs are not explored"
            )
            continue
        jobs += [
            (scenario, p, clean)
            for p in perturbations(len(clean.writes), plan, scenario.extra)
            if not plan.only or f"{scenario.id}@{p.id}" in plan.only
        ]
    progress(f"[explore] {impl}: {len(jobs)} perturbed cases")
    result.cases += list(pool.map(lambda j: done(run_case(settings, j[0], j[1], j[2].state)), jobs))
    result.cases += [done(c) for c in not_judged(result, plan)]
    result.seconds = round(time.monotonic() - started, 1)
    return result


def select_scenarios(all_scenarios: Iterable[Scenario], ids: Iterable[str]) -> tuple[Scenario, ...]:
    """The scenarios named (all when none); KeyError naming an unknown one."""
    wanted = list(ids)
    by_id = {s.id: s for s in all_scenarios}
    if not wanted:
        return tuple(by_id.values())
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise KeyError(f"unknown scenario(s) {unknown}; known: {sorted(by_id)}")
    return tuple(by_id[i] for i in wanted)
