"""The mutation-score section of the comparison as a part of the report model, read from
``reports/mutation-score.json`` (``harness.mutscore.score``): per language the tool's count, the
judged mutants' counts and the score, then per file, then the survivors with their
classification. The writers (``markdown.mutation_score_markdown``,
``html_sections.mutation_score_section``) format a ``MutationScore``.

Shape read: ``{"languages": {"go"|"python": {"generated_total", "generated", "covered",
"killed", "equivalent", "stillborn", "unjudged", "unclassified", "score", "files": {file:
{counts}}}}, "mutants": {id: {"status", "kind", "reason", ...}}, "run": {...}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The columns of the per-language and per-file tables, in order: (key, heading).
COLUMNS = (
    ("generated", "judged"),
    ("covered", "covered"),
    ("killed", "killed"),
    ("equivalent", "equivalent"),
    ("not_viable", "not viable"),
    ("stillborn", "stillborn"),
    ("unjudged", "unjudged"),
    ("unclassified", "unclassified"),
)

INTRO = (
    "Mutants a tool derived from each operator's own code (cosmic-ray for Python, gremlins for "
    "Go), each run as an operator process and judged by the conformance checks that execute "
    "its line. score = killed / (covered - equivalent - not viable - stillborn - unjudged)."
)

#: The heading of the per-language and per-file tables.
HEADER = ("language / file", "generated", *(h for _, h in COLUMNS), "score")


@dataclass
class MutationScore:
    """``reports/mutation-score.json`` for the report."""

    #: one row per language and per file under it, as the table's cells (``HEADER``)
    rows: list[list[str]]
    #: ``(id, kind or "UNCLASSIFIED", reason)`` of every survivor, by id
    survivors: list[tuple[str, str, str]]
    #: the run: ``sample`` (None: all), ``seed``, the judging ``checks`` and ``max_checks``
    run: dict[str, Any] = field(default_factory=dict)
    #: ``(function, "killed / scorable" in Go, in Python)`` of the functions in both
    comparison: list[tuple[str, str, str]] = field(default_factory=list)


def _score(value: Any) -> str:
    return "-" if value is None else f"{100 * float(value):.0f} %"


def rows(data: Mapping[str, Any]) -> list[list[str]]:
    """One row per language and per file under it: name, the tool's total, ``COLUMNS``'
    counts, the score (``-`` when nothing is scorable)."""
    out = []
    for lang, e in sorted((data.get("languages") or {}).items()):
        if not e.get("generated"):
            continue
        out.append(
            [lang, str(e.get("generated_total", ""))]
            + [str(e.get(k, 0)) for k, _ in COLUMNS]
            + [_score(e.get("score"))]
        )
        for file, f in sorted((e.get("files") or {}).items()):
            out.append(
                [f"  {file}", ""]
                + [str(f.get(k, 0)) for k, _ in COLUMNS]
                + [_score(f.get("score"))]
            )
    return out


def survivors(data: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(id, kind or "UNCLASSIFIED", reason)`` of every survivor, by id."""
    return [
        (i, str(m.get("kind") or "UNCLASSIFIED"), str(m.get("reason", "")))
        for i, m in sorted((data.get("mutants") or {}).items())
        if m.get("status") == "survived" and not m.get("assumed")
    ]


def _pair(t: Mapping[str, Any]) -> str:
    scorable = t["covered"] - t["equivalent"] - t["not_viable"] - t["stillborn"] - t["unjudged"]
    return f"{t['killed']} / {scorable}"


def mutation_score(data: Mapping[str, Any]) -> MutationScore:
    """Read the dict of ``reports/mutation-score.json`` (shape above)."""
    return MutationScore(
        rows=rows(data),
        survivors=survivors(data),
        run=dict(data.get("run") or {}),
        comparison=[
            (name, _pair(s["go"]), _pair(s["python"]))
            for name, s in (data.get("comparison") or {}).items()
        ],
    )
