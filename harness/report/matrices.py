"""The kill matrix (reports/mutants.json) and the RBAC ablation (reports/rbac-ablation.json) as
parts of the comparison's model: ``kill_matrix`` and ``rbac_ablation`` read each file's dict
into dataclasses the writers format. A part of the model (``harness.report.model`` re-exports
them): it imports no other module of the report package."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.checks import base_check, check_sort_key


def as_number(value: Any) -> float | None:
    """``value`` as a float when it is a finite int or float (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


@dataclass
class Mutant:
    """A deliberately broken implementation and the checks that caught it."""

    name: str
    doc: str
    #: base check ids that failed against it, in ``CHECK_ORDER`` (docs/design.md, "The checks")
    killed_by: list[str]
    #: base check id -> the cases of it that failed (``watch-recovers[cut]``, ...); absent or
    #: empty for a check without cases
    cases: dict[str, list[str]] = field(default_factory=dict)
    #: False if its suite did not run (then nothing could kill it)
    ran: bool = True

    @property
    def survived(self) -> bool:
        """No check caught it (or its suite did not run)."""
        return not self.killed_by


@dataclass
class KillMatrix:
    """``reports/mutants.json`` as a mutant x check matrix."""

    mutants: list[Mutant]
    #: the matrix's columns: every base check id named in the file, in ``CHECK_ORDER``
    checks: list[str]

    def kills(self, check_id: str) -> list[str]:
        """The mutants ``check_id`` caught; for a case (``watch-recovers[cut]``) the ones that
        case caught, where the file says which."""
        base = base_check(check_id)
        return [
            m.name
            for m in self.mutants
            if base in m.killed_by
            and (check_id == base or not m.cases.get(base) or check_id in m.cases[base])
        ]

    @property
    def idle_checks(self) -> list[str]:
        """Checks that killed no mutant: no broken controller they were tried on fails them."""
        return [c for c in self.checks if not any(c in m.killed_by for m in self.mutants)]


def kill_matrix(data: Mapping[str, Any]) -> KillMatrix:
    """Read the dict of ``reports/mutants.json`` (written by ``harness.mutants.runner``)::

        {"mutants": {"<mutant>": {"failed_checks": [JUnit case name, ...], "doc": "...",
                                  "killed_by": [base check id, ...], "ran": true, ...}},
         "checks": {"<base check id>": {"killed": [mutant, ...]}}}

    Only ``failed_checks`` (or ``killed_by``), ``doc`` and the ``checks`` side are needed; a
    mutant is killed by a check if either side says so. Case names such as
    ``watch-recovers[cut]`` count for their base check."""
    raw_mutants: Mapping[str, Mapping[str, Any]] = data.get("mutants") or {}
    raw_checks: Mapping[str, Mapping[str, Any]] = data.get("checks") or {}
    killed: dict[str, set[str]] = {m: set() for m in raw_mutants}
    cases: dict[str, set[str]] = {m: set() for m in raw_mutants}
    for m, v in raw_mutants.items():
        for name in [*(v.get("failed_checks") or []), *(v.get("killed_by") or [])]:
            killed[m].add(base_check(str(name)))
            if "[" in str(name):
                cases[m].add(str(name))
    for check_id, v in raw_checks.items():
        for m in v.get("killed") or []:
            killed.setdefault(m, set()).add(base_check(check_id))
            cases.setdefault(m, set())
    checks = sorted(
        set().union(*killed.values()) | {base_check(c) for c in raw_checks}, key=check_sort_key
    )
    mutants = []
    for m, bases in killed.items():
        raw = raw_mutants.get(m) or {}
        per_check = {b: sorted(c for c in cases[m] if base_check(c) == b) for b in bases}
        mutants.append(
            Mutant(
                name=m,
                doc=str(raw.get("doc", "")).strip(),
                killed_by=sorted(bases, key=check_sort_key),
                cases={b: c for b, c in per_check.items() if c},
                ran=bool(raw.get("ran", True)),
            )
        )
    return KillMatrix(mutants=mutants, checks=checks)


# --------------------------------------------------------------------------- RBAC ablation
@dataclass
class AblatedRight:
    """One rule unit of the operator's role and what failed without it."""

    unit: str
    #: needed, pending, unneeded or not run
    status: str
    #: check -> the implementations for which it failed on a 403 the missing unit explains
    needed_by: dict[str, list[str]]
    #: those 403s, as the audit log tells them (``harness.audit.Request.refusal``)
    refusals: list[str]
    #: why a pending unit stays although nothing needs it yet
    pending: str = ""
    #: implementation -> checks that failed without a 403 the unit explains (not counted)
    unexplained: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Ablation:
    """``reports/rbac-ablation.json`` (written by ``harness.rbac.ablation``) for the report."""

    rights: list[AblatedRight]
    implementations: list[str]
    ok: bool
    unneeded: list[str]
    uncovered: list[str]
    subset: str = ""
    seconds: float | None = None


def rbac_ablation(data: Mapping[str, Any]) -> Ablation:
    """Read the dict of ``reports/rbac-ablation.json``::

    {"implementations": ["go", "python"],
     "units": {"<unit id>": {"status": "needed", "needed_by": {"<check>": ["go"]},
                             "refusals": ["<refusal>"], "pending": "",
                             "runs": {"go": {"unexplained": ["<check>"]}}}},
     "verdict": {"ok": true, "unneeded": [], "uncovered": []},
     "run": {"subset": "full", "seconds": 1.0}}
    """
    rights = []
    for unit, e in (data.get("units") or {}).items():
        runs = e.get("runs") or {}
        rights.append(
            AblatedRight(
                unit=str(unit),
                status=str(e.get("status", "")),
                needed_by={str(c): list(i) for c, i in (e.get("needed_by") or {}).items()},
                refusals=list(e.get("refusals") or []),
                pending=str(e.get("pending") or ""),
                unexplained={
                    i: list(r.get("unexplained") or [])
                    for i, r in runs.items()
                    if r.get("unexplained")
                },
            )
        )
    v = data.get("verdict") or {}
    run = data.get("run") or {}
    return Ablation(
        rights=rights,
        implementations=list(data.get("implementations") or []),
        ok=bool(v.get("ok")),
        unneeded=list(v.get("unneeded") or []),
        uncovered=list(v.get("uncovered") or []),
        subset=str(run.get("subset", "")),
        seconds=as_number(run.get("seconds")),
    )
