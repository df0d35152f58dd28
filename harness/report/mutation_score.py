"""The mutation-score section of the comparison, from ``reports/mutation-score.json``
(``harness.mutscore.score``): per language the tool's count, the judged mutants' counts and the
score, then per file, then the survivors with their classification.

Shape read: ``{"languages": {"go"|"python": {"generated_total", "generated", "covered",
"killed", "equivalent", "stillborn", "unjudged", "unclassified", "score", "files": {file:
{counts}}}}, "mutants": {id: {"status", "kind", "reason", ...}}, "run": {...}}``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
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


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _header() -> list[str]:
    return ["language / file", "generated", *(h for _, h in COLUMNS), "score"]


def markdown(data: Mapping[str, Any]) -> list[str]:
    """The section as Markdown lines."""
    run = data.get("run") or {}
    lines = ["## Mutation score (tool mutants)", "", INTRO, ""]
    lines.append(
        f"Sample {run.get('sample') or 'all'} per language (seed {run.get('seed')}), judged by "
        f"{', '.join(run.get('checks') or [])}, at most {run.get('max_checks')} per mutant."
    )
    lines += ["", "| " + " | ".join(_header()) + " |", "|" + "---|" * len(_header())]
    lines += ["| " + " | ".join(r) + " |" for r in rows(data)]
    both = data.get("comparison") or {}
    if both:
        lines += ["", "| same function in both | Go killed / scorable | Python killed / scorable |"]
        lines.append("|---|---|---|")
        lines += [
            f"| `{name}` | {_pair(s['go'])} | {_pair(s['python'])} |" for name, s in both.items()
        ]
    found = survivors(data)
    if found:
        lines += ["", "| survivor | kind | reason |", "|---|---|---|"]
        # a pipe inside a cell, even in backticks, ends the cell in GitHub's Markdown
        lines += [f"| `{_cell(i)}` | {k} | {_cell(r)} |" for i, k, r in found]
    return [*lines, ""]


def section_html(data: Mapping[str, Any]) -> str:
    """The section as HTML (``id="mutation-score"``)."""
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in _header())
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows(data))
    parts = [
        '<section id="mutation-score">',
        "<h2>Mutation score (tool mutants)</h2>",
        f"<p>{e(INTRO)}</p>",
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>',
    ]
    found = survivors(data)
    if found:
        items = "".join(
            f"<tr><td><code>{e(i)}</code></td><td>{e(k)}</td><td>{e(r)}</td></tr>"
            for i, k, r in found
        )
        parts.append(
            "<table><thead><tr><th>survivor</th><th>kind</th><th>reason</th></tr></thead>"
            f"<tbody>{items}</tbody></table>"
        )
    parts.append("</section>")
    return "\n".join(parts)
