"""What an exploration writes: a JUnit file per implementation (``reports/junit-explore-
<impl>.xml``, testcases ``explore[<scenario>@<perturbation>]``, readable by ``harness.junit``),
``reports/explore.json`` (merged across runs, one entry per implementation) and a matrix per
implementation in Markdown (``reports/explore.md``; ``matrix_markdown``)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness.explore.case import CONFLICT, DELIVERED, ERROR, FAILED, SKIPPED, WITHHELD, CaseResult
from harness.explore.run import BOUNDARIES, PARITY, Exploration
from harness.report.exploration import exploration
from harness.report.markdown import explore_markdown
from harness.runs import write_text_atomic

SYMBOL = {"passed": "✓", "failed": "✗", "error": "E", "skipped": "·"}
#: Lines of a failed case's details kept in explore.json (the JUnit file has them all).
DETAIL_LINES = 40


def junit_path(reports: Path, impl: str) -> Path:
    return reports / f"junit-explore-{impl}.xml"


def write_junit(path: Path, exp: Exploration) -> Path:
    """One testsuite ``explore-<impl>``; each case a testcase with its scenario, perturbation
    and writes as properties, and a failure (verdict ``fail``), an error (verdict ``error``)
    or a skip."""
    cases = exp.cases
    suite = ET.Element(
        "testsuite",
        name=f"explore-{exp.impl}",
        tests=str(len(cases)),
        failures=str(sum(c.outcome == FAILED for c in cases)),
        errors=str(sum(c.outcome == ERROR for c in cases)),
        skipped=str(sum(c.outcome == SKIPPED for c in cases)),
        time=f"{exp.seconds:.1f}",
    )
    ET.SubElement(
        ET.SubElement(suite, "properties"), "property", name="implementation", value=exp.impl
    )
    for c in cases:
        tc = ET.SubElement(
            suite, "testcase", name=c.id, classname=f"explore.{exp.impl}", time=f"{c.seconds:.1f}"
        )
        props = ET.SubElement(tc, "properties")
        values = [
            ("check", "explore"),
            ("scenario", c.scenario),
            ("perturbation", c.perturbation),
            ("implementation", exp.impl),
            ("writes", json.dumps(c.writes)),
        ]
        if c.recovery:
            values.append(("recovery_writes", json.dumps(c.recovery)))
        if c.premise:
            values.append(("premise", json.dumps(c.premise, sort_keys=True)))
        if c.outcome in (FAILED, ERROR):
            values.append(("verdict", "fail" if c.outcome == FAILED else "error"))
        for name, value in values:
            ET.SubElement(props, "property", name=name, value=value)
        if c.outcome in (FAILED, ERROR):
            el = ET.SubElement(tc, "failure" if c.outcome == FAILED else "error", message=c.message)
            el.text = c.details
        elif c.outcome == SKIPPED:
            ET.SubElement(tc, "skipped", message=c.message)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    return path


def summary(exp: Exploration) -> dict[str, Any]:
    """The entry of ``explore.json`` for one implementation (the shape the report reads,
    ``harness.report.exploration``); ``failures``: per failed or errored case its outcome,
    the oracle's message and the first ``DETAIL_LINES`` lines of its details;
    ``boundaries_skipped``: write boundaries no run reached; ``not_judged``: the scenario (or
    run) errors of ``run.not_judged``; ``premises``: per stale-view or coalesced case what the
    proxy's log showed (``case.event_premise``); ``parity``: per scenario the outcome of the
    comparison with the reference implementation's clean run (``run.parity_cases``)."""
    judged = exp.judged
    return {
        "cases": len(judged),
        "survived": sum(1 for c in judged if c.outcome == "passed"),
        "failed": [c.id for c in exp.failed],
        "skipped": [c.id for c in exp.cases if c.outcome == SKIPPED],
        "boundaries": exp.boundaries(),
        "boundaries_skipped": exp.boundaries_skipped(),
        "not_judged": [c.id for c in exp.cases if c.perturbation in (BOUNDARIES, "judged")],
        "premises": {c.id: c.premise for c in exp.cases if c.premise},
        "parity": {c.id: c.outcome for c in exp.cases if c.perturbation.startswith(PARITY)},
        "seconds": exp.seconds,
        "outcomes": {c.id: c.outcome for c in exp.cases},
        "accounting": {
            "runs": sum(1 for c in exp.cases if c.accounting),
            "requests_compared": sum(c.accounting.get("compared", 0) for c in exp.cases),
            "differences": {
                c.id: c.accounting["differences"]
                for c in exp.cases
                if c.accounting.get("differences")
            },
        },
        "clean_writes": {c.scenario: c.writes for c in exp.cases if c.perturbation == "clean"},
        "failures": {
            c.id: {
                "outcome": c.outcome,
                "message": c.message,
                "details": "\n".join(c.details.splitlines()[:DETAIL_LINES]),
            }
            for c in exp.failed
        },
    }


def write_json(
    path: Path, explorations: Iterable[Exploration], mutants: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Merge the explorations into ``path`` (other implementations' entries are kept), and the
    explore-only mutants' kills under ``mutants`` when given."""
    data: dict[str, Any] = {"implementations": {}}
    if path.exists():
        try:
            data = json.loads(path.read_text())
        except ValueError:
            pass
    data.setdefault("implementations", {})
    for exp in explorations:
        entry = summary(exp)
        data["implementations"][exp.impl] = entry
    if mutants:
        data.setdefault("mutants", {}).update(mutants)
    write_text_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


def matrix_markdown(impl: str, outcomes: dict[str, str], clean_writes: dict[str, list[str]]) -> str:
    """A table per implementation: a row per scenario, its clean writes, then per boundary k
    the withheld/delivered/conflict outcomes, then stale view and coalesced."""
    scenarios = list(clean_writes)
    kmax = max((len(w) for w in clean_writes.values()), default=0)
    head = ["scenario", "writes", *[f"k={k}" for k in range(1, kmax + 1)], "stale", "coalesced"]
    lines = [f"### {impl}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in scenarios:

        def cell(pert: str, s: str = s) -> str:
            return SYMBOL.get(outcomes.get(f"explore[{s}@{pert}]", ""), "")

        row = [s, str(len(clean_writes[s]))]
        for k in range(1, kmax + 1):
            marks = [cell(f"write-{k}-{v}") for v in (WITHHELD, DELIVERED, CONFLICT)]
            row.append("".join(m or "–" for m in marks) if any(marks) else "")
        row += [cell("stale-view"), cell("coalesced")]
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "Each k cell: withheld, delivered, 409 conflict. ✓ the oracle held, ✗ it failed, "
        "E harness error, · boundary not reached in that run, – or blank: not run.",
        "",
    ]
    failed = [i for i, o in outcomes.items() if o in (FAILED, ERROR)]
    if failed:
        lines += ["Failed: " + ", ".join(f"`{i}`" for i in failed), ""]
    return "\n".join(lines)


def write_markdown(path: Path, data: dict[str, Any]) -> None:
    """``reports/explore.md``: the exploration section of the comparison report
    (``harness.report.markdown.explore_markdown``), on its own."""
    lines = explore_markdown(exploration(data))
    lines[0] = "# Exploration: a crash at every write boundary"
    write_text_atomic(path, "\n".join(lines).rstrip() + "\n")


def by_id(cases: Iterable[CaseResult]) -> dict[str, CaseResult]:
    return {c.id: c for c in cases}
