"""The kill matrix as text (``python -m harness mutants`` prints it): a row per mutant, a
column per check, then the verdict. Reads the data ``runner.build_matrix`` and
``runner.verdict`` produce (reports/mutants.json's shape)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness import tiers
from harness.checks import base_check


def format_matrix(data: Mapping[str, Any]) -> str:
    """The kill matrix as a text table: a row per mutant, a column per check (x: killed;
    the number of cases when a check has several), then the verdict."""
    checks = list(data["checks"])
    width = max([len(m) for m in data["mutants"]] + [6])
    lines = ["kill matrix (x = the check failed against the mutant)", ""]
    for i, check in enumerate(checks):
        lines.append(f"  {chr(ord('A') + i) if i < 26 else i}  {check}")
    letters = [chr(ord("A") + i) if i < 26 else str(i) for i in range(len(checks))]
    lines += ["", f"{'mutant':<{width}}  " + " ".join(f"{c:>2}" for c in letters) + "  killed by"]
    for mutant, entry in data["mutants"].items():
        cells = []
        for check in checks:
            cases = [c for c in entry["failed_checks"] if base_check(c) == check]
            cells.append(" -" if not cases else (" x" if len(cases) == 1 else f"{len(cases):>2}"))
        n = len(entry["killed_by"])
        status = f"{n} check{'s' if n != 1 else ''}" if n else "SURVIVED"
        if not entry.get("ran", True):
            status = "DID NOT RUN" + (f": {entry['problem']}" if entry.get("problem") else "")
        lines.append(f"{mutant:<{width}}  " + " ".join(cells) + f"  {status}")
    kills = " ".join(f"{len(data['checks'][c]['killed']):>2}" for c in checks)
    lines.append(f"{'kills':<{width}}  {kills}")
    v = data["verdict"]
    lines.append("")
    errors = {m: e.get("errors") for m, e in data["mutants"].items() if e.get("errors")}
    for mutant, names in errors.items():
        lines.append(f"note: {mutant}: errors, not kills (set-up or premise): {', '.join(names)}")
    if v.get("expect_survival"):
        scope = f"every check that ran on {v.get('cluster', tiers.DEFAULT)}"
        if v.get("checks_filter"):
            scope += f" selected by -k {v['checks_filter']!r}"
        if v["ok"]:
            lines.append(
                f"verdict: every exploration-only mutant survived {scope} "
                f"({len(v['survived'])}: {', '.join(v['survived'])}), as it must"
            )
        if not data["mutants"]:
            lines.append("verdict: FAIL: no mutant ran")
        for mutant, cases in v["killed"].items():
            lines.append(
                f"verdict: FAIL: {mutant} is not exploration-only: killed by {', '.join(cases)} "
                "(declare them as its caught_by in mutants.toml)"
            )
        for mutant, why in v.get("unjudged", {}).items():
            lines.append(f"verdict: FAIL: {mutant} was not judged: {why}")
        if v.get("skipped"):
            lines.append(f"not run on this tier: {', '.join(v['skipped'])}")
    elif v["ok"]:
        n_cases = sum(len(e.get("cases", {})) for e in data["checks"].values())
        lines.append(
            f"verdict: every mutant killed ({len(data['mutants'])}), every check "
            f"kills at least one ({len(checks)}), every case too ({n_cases}), every "
            f"caught_by held"
        )
    else:
        if v["survivors"]:
            lines.append(f"verdict: FAIL: mutants no check killed: {', '.join(v['survivors'])}")
        if v["idle_checks"]:
            lines.append(
                f"verdict: FAIL: checks that killed no mutant: {', '.join(v['idle_checks'])}"
            )
        idle_cases = [c for c in v.get("idle_cases", []) if c not in v["idle_checks"]]
        if idle_cases:
            lines.append(f"verdict: FAIL: cases that killed no mutant: {', '.join(idle_cases)}")
        for mutant, checks_missed in v.get("expected_missed", {}).items():
            lines.append(
                f"verdict: FAIL: {mutant} was not caught by {', '.join(checks_missed)} "
                "(caught_by in mutants.toml: by design, every time)"
            )
    return "\n".join(lines)
