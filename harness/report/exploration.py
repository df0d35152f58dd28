"""The exploration matrix of the comparison report, read from ``reports/explore.json``.

``python -m harness explore`` (``harness.explore``) writes, per implementation, how each case
ended: a scenario run clean, then once per write boundary k of the clean run with the operator
SIGKILLed right after its k-th write (the answer ``withheld`` or ``delivered``) and with that
write answered 409 (``conflict``), and once with a stale view and once with coalesced events.
``exploration(data)`` turns that file's dict into an ``Exploration``: per implementation a
matrix, scenario (rows) x perturbation (columns), each cell an outcome, and the failed cases
with what the oracle said; and the exploration-only mutants with the cases that killed them.
The Markdown and HTML writers render it; ``EXPLAINED`` is the lesson both print above it.

The shape read (every key optional, so an older file still renders)::

    {"implementations": {IMPL: {
        "cases": int, "survived": int, "failed": [case id, ...], "skipped": [case id, ...],
        "boundaries": int, "seconds": float,
        "outcomes": {case id: "passed" | "failed" | "error" | "skipped"},
        "clean_writes": {scenario: ["verb resource name code", ...]},
        "failures": {case id: {"outcome": str, "message": str, "details": str}}}},
     "mutants": {MUTANT: {"cases": ["scenario@perturbation", ...], "killed_by": [...],
                          "killed": bool, "messages": {case id: str},
                          "no_verdict": [...]}}}

A case id is ``explore[<scenario>@<perturbation>]``; a perturbation ``write-<k>-<variant>``,
``stale-view`` or ``coalesced``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The variants at each write boundary k, in column order, with their column titles.
VARIANTS = (("withheld", "withheld"), ("delivered", "delivered"), ("conflict", "409"))
#: The runs after the boundaries: perturbation id -> column title.
WHOLE_RUN = (("stale-view", "stale view"), ("coalesced", "coalesced"))

#: What exploration proves, in the report's words: one paragraph each, plain text.
EXPLAINED = (
    "A check of the suite crashes the operator where its author put a crash point. Exploration "
    "asks nobody where to crash: each scenario first runs clean and the API proxy records every "
    "write the operator makes to a ModelService, Deployment or Service. Then the scenario runs "
    "again once per write k, and the proxy stops the operator right after its k-th write, which "
    "the API server has applied, and the harness SIGKILLs it. With the answer withheld the "
    "operator died not knowing whether its write happened; with it delivered it knew, and died "
    "before acting on it. A new process starts with nothing but the state of the world.",
    "The oracle is the clean run: the end state (UIDs, times and resourceVersions normalised "
    "away) must equal it, no child may be duplicated or left behind, no finalizer lost or left, "
    "and the operator must fall quiet. An operator that survives every cell is level-triggered "
    "in fact and not only by design: whatever it remembered died with it at every point where "
    "it could die, and it still reached the same world. The other columns ask the same of a "
    "409 at write k (re-read and recompute, never resend), of a view 2 s late, and of coalesced "
    "events (some intermediate states are never seen, and none may be needed).",
    "What it does not prove: only these scenarios, a crash only right after a write (a crash "
    "before one is the boundary before it), one perturbation per run.",
)

_PERTURBATION = re.compile(r"explore\[(?P<scenario>[^@\]]+)@(?P<pert>[^\]]+)\]")


@dataclass
class ExploreFailure:
    """A case that did not survive: ``case`` (``explore[scale@write-2-withheld]``), its
    ``scenario`` and ``perturbation``, ``outcome`` (failed: the oracle; error: the harness),
    ``message`` (the oracle's first problem) and ``details`` (every problem, the writes)."""

    case: str
    scenario: str
    perturbation: str
    outcome: str
    message: str = ""
    details: str = ""


@dataclass
class ExploreImpl:
    """One implementation's matrix. ``clean_writes``: per scenario (in row order) the writes of
    its clean run; ``kmax``: the most writes of any scenario (the boundary columns);
    ``outcomes``: case id -> outcome."""

    impl: str
    cases: int = 0
    survived: int = 0
    boundaries: int = 0
    seconds: float = 0.0
    clean_writes: dict[str, list[str]] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    failures: list[ExploreFailure] = field(default_factory=list)

    @property
    def scenarios(self) -> list[str]:
        """The scenarios, in row order (those with a clean run)."""
        return list(self.clean_writes)

    @property
    def kmax(self) -> int:
        """The most writes of any scenario's clean run: the number of boundary columns."""
        return max((len(w) for w in self.clean_writes.values()), default=0)

    def outcome(self, scenario: str, perturbation: str) -> str:
        """The outcome of ``explore[scenario@perturbation]``, "" when it did not run (k beyond
        the scenario's writes, or left out of the run)."""
        return self.outcomes.get(case_id(scenario, perturbation), "")

    def failure(self, scenario: str, perturbation: str) -> ExploreFailure | None:
        """The failure of ``explore[scenario@perturbation]``, or None when it did not fail."""
        wanted = case_id(scenario, perturbation)
        return next((f for f in self.failures if f.case == wanted), None)


@dataclass
class ExploreMutant:
    """An exploration-only mutant: the ``cases`` that must kill it, those that did
    (``killed_by``), whether all did, what the oracle said (case id -> message), and the
    cases that gave no verdict (never ran or errored: not survived)."""

    name: str
    cases: list[str]
    killed_by: list[str]
    killed: bool
    messages: dict[str, str] = field(default_factory=dict)
    no_verdict: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """``killed``, ``no verdict`` (a case never judged it) or ``survived``."""
        judged = set(self.cases) - set(self.no_verdict)  # a passed case: survived
        return "killed" if self.killed else "survived" if judged else "no verdict"


@dataclass
class Exploration:
    """Every implementation's matrix (sorted by id) and the exploration-only mutants."""

    implementations: list[ExploreImpl]
    mutants: list[ExploreMutant] = field(default_factory=list)


def case_id(scenario: str, perturbation: str) -> str:
    """``explore[<scenario>@<perturbation>]``."""
    return f"explore[{scenario}@{perturbation}]"


def columns(kmax: int) -> list[tuple[str, str]]:
    """The matrix's columns as (perturbation id, title), in order: per boundary k the
    variants, then the whole-run perturbations."""
    out = [
        (f"write-{k}-{v}", f"k={k} {title}") for k in range(1, kmax + 1) for v, title in VARIANTS
    ]
    return out + list(WHOLE_RUN)


def _failures(entry: Mapping[str, Any]) -> list[ExploreFailure]:
    outcomes: Mapping[str, str] = entry.get("outcomes") or {}
    given: Mapping[str, Any] = entry.get("failures") or {}
    ids = list(dict.fromkeys([*(entry.get("failed") or []), *given]))
    out = []
    for cid in ids:
        m = _PERTURBATION.fullmatch(cid)
        info = given.get(cid) or {}
        out.append(
            ExploreFailure(
                case=cid,
                scenario=m["scenario"] if m else "",
                perturbation=m["pert"] if m else "",
                outcome=str(info.get("outcome") or outcomes.get(cid) or "failed"),
                message=str(info.get("message") or ""),
                details=str(info.get("details") or ""),
            )
        )
    return out


def exploration(data: Mapping[str, Any]) -> Exploration:
    """The ``Exploration`` of an explore.json dict (shape in the module docstring)."""
    impls = []
    for impl, entry in sorted((data.get("implementations") or {}).items()):
        impls.append(
            ExploreImpl(
                impl=impl,
                cases=int(entry.get("cases") or 0),
                survived=int(entry.get("survived") or 0),
                boundaries=int(entry.get("boundaries") or 0),
                seconds=float(entry.get("seconds") or 0.0),
                clean_writes={s: list(w) for s, w in (entry.get("clean_writes") or {}).items()},
                outcomes=dict(entry.get("outcomes") or {}),
                failures=_failures(entry),
            )
        )
    mutants = [
        ExploreMutant(
            name=name,
            cases=list(m.get("cases") or []),
            killed_by=list(m.get("killed_by") or []),
            killed=bool(m.get("killed")),
            messages=dict(m.get("messages") or {}),
            no_verdict=list(m.get("no_verdict") or []),
        )
        for name, m in sorted((data.get("mutants") or {}).items())
    ]
    return Exploration(impls, mutants)
