"""The generated-workloads section of the comparison, from ``reports/generated.json``
(``python -m harness generate``, ``harness.generate.cli``): per implementation the sequences
and steps run, the oracle failures (by oracle), the faults that fired, and the shrunk case
with the oracle's message.

A small module of its own: ``section(data)`` builds a plain dict from the JSON, and
``markdown(section)`` and ``section_html(section)`` only format it, so that the section moves
as one piece into whatever report model it joins.

Shape read (every key optional but ``implementations``): ``{"seed": int, "cluster": str,
"seconds": float, "sequences_asked": int, "max_steps": int, "operator_root": str | None,
"implementations": {id: {"sequences": int, "steps": int, "failures": int, "oracles":
{oracle: int}, "crashes": int, "cases": [path], "other_cases": [path]}}, "failure": {"implementation", "oracle",
"message", "steps": int, "case": path} | None, "findings": [the same shape, one per failing
round of ``--keep-going``]}``.

``judged(data)`` reads ``reports/generated-mutants.json`` (``python -m harness generate-judge``,
``harness.generate.judge``) into one line under the section: the generator's kills among the
mutants the suite misses. Shape read: ``{"seed": int, "targets": [{"id", "group", "killed":
bool, "oracle": str | None, "case_steps": int | None}]}``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

INTRO = (
    "Sequences of steps drawn by hypothesis from the CRD's schema and from the cluster's other "
    "actors (spec and metadata edits, deletes, foreign and owned child writes, a played "
    "rollout, restarts, crashes and errors at the API proxy, delayed or coalesced watch events, "
    "a refusing admission policy), applied to every implementation side by side and judged by "
    "oracles that need no expected value: invariants, status, quiet, budget, differential and "
    "level-triggered (docs/design.md, 'Generated workloads'). A failing sequence is shrunk and "
    "saved as a case file, replayed with `python -m harness replay FILE`."
)

#: The table's columns: (key of an implementation's row, heading).
COLUMNS = (
    ("sequences", "sequences"),
    ("steps", "steps"),
    ("steps_per_second", "steps/s"),
    ("crashes", "crashes fired"),
    ("failures", "oracle failures"),
    ("by_oracle", "by oracle"),
    ("cases", "shrunk cases"),
)


def section(data: Mapping[str, Any]) -> dict[str, Any]:
    """The section's content as a plain dict: ``run`` (seed, tier, seconds, the size asked,
    the operator sources), ``rows`` (one dict per implementation, keys of ``COLUMNS``, all
    strings or ints), ``failure`` (implementation, oracle, message, steps, case) or None, and
    ``findings`` (every failing round's, the same shape; the failure alone in an older JSON).
    Steps per second is the implementation's steps over the run's seconds (each lane runs
    every step, so it is the rate of the run as a whole, not of one lane)."""
    seconds = float(data.get("seconds") or 0)
    rows = []
    for impl, e in sorted((data.get("implementations") or {}).items()):
        oracles = e.get("oracles") or {}
        steps = int(e.get("steps") or 0)
        rows.append(
            {
                "implementation": impl,
                "sequences": int(e.get("sequences") or 0),
                "steps": steps,
                "steps_per_second": f"{steps / seconds:.2f}" if seconds else "-",
                "crashes": int(e.get("crashes") or 0),
                "failures": int(e.get("failures") or 0),
                "by_oracle": ", ".join(f"{k} {v}" for k, v in sorted(oracles.items())) or "-",
                "cases": ", ".join(
                    str(c) for c in [*(e.get("cases") or []), *(e.get("other_cases") or [])]
                )
                or "-",
            }
        )
    failure = data.get("failure")
    findings = [dict(f) for f in data.get("findings") or ([failure] if failure else [])]
    return {
        "run": {
            "seed": data.get("seed"),
            "cluster": data.get("cluster") or "envtest",
            "seconds": seconds,
            "sequences_asked": data.get("sequences_asked"),
            "max_steps": data.get("max_steps"),
            "operator_root": data.get("operator_root"),
        },
        "rows": rows,
        "failure": dict(failure) if failure else None,
        "findings": findings,
    }


def _run_line(run: Mapping[str, Any]) -> str:
    root = f", operators from {run['operator_root']}" if run.get("operator_root") else ""
    return (
        f"Seed {run['seed']} on {run['cluster']}: {run['sequences_asked']} sequences of at "
        f"most {run['max_steps']} steps asked, {run['seconds']:.0f} s{root}."
    )


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(sec: Mapping[str, Any]) -> list[str]:
    """The section (from ``section``) as Markdown lines."""
    lines = ["## Generated workloads", "", INTRO, "", _run_line(sec["run"]), ""]
    head = ["implementation", *(h for _, h in COLUMNS)]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [
        "| " + " | ".join(_cell(r[k]) for k in ("implementation", *(c for c, _ in COLUMNS))) + " |"
        for r in sec["rows"]
    ]
    if sec.get("judged"):
        lines += ["", _cell(judged_line(sec["judged"]))]
    for f in _findings(sec):
        lines += [
            "",
            f"Shrunk case (`{_cell(f.get('case') or '-')}`, {f.get('steps', '?')} steps): "
            f"**{_cell(f['implementation'])}** failed the {_cell(f['oracle'])} oracle: "
            f"{_cell(str(f['message'])[:600])}",
        ]
    return [*lines, ""]


def _findings(sec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every finding of the run (``--keep-going`` may have several), or its one failure."""
    f = sec.get("failure")
    return list(sec.get("findings") or ([f] if f else []))


def section_html(sec: Mapping[str, Any]) -> str:
    """The section (from ``section``) as HTML (``id="generated"``)."""
    e = html.escape
    keys = ("implementation", *(c for c, _ in COLUMNS))
    head = "".join(f"<th>{e(h)}</th>" for h in ("implementation", *(h for _, h in COLUMNS)))
    body = "".join(
        "<tr>" + "".join(f"<td>{e(str(r[k]))}</td>" for k in keys) + "</tr>" for r in sec["rows"]
    )
    parts = [
        '<section id="generated">',
        "<h2>Generated workloads</h2>",
        f"<p>{e(INTRO)}</p>",
        f"<p>{e(_run_line(sec['run']))}</p>",
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>',
    ]
    if sec.get("judged"):
        parts.append(f"<p>{e(judged_line(sec['judged']))}</p>")
    for f in _findings(sec):
        parts.append(
            f"<p>Shrunk case <code>{e(str(f.get('case') or '-'))}</code> "
            f"({e(str(f.get('steps', '?')))} steps): <strong>{e(str(f['implementation']))}</strong> "
            f"failed the {e(str(f['oracle']))} oracle: {e(str(f['message'])[:600])}</p>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def judged(data: Mapping[str, Any]) -> dict[str, Any]:
    """The generator against the mutants the suite misses, as a plain dict: ``seed``,
    ``killed`` and ``judged`` (counts, controls left out), ``kills`` (``"<id> (<oracle>)"``
    per killed target), ``survivors`` (ids) and ``controls_killed`` (ids: each an unsound
    oracle or no control)."""
    rows = [t for t in data.get("targets") or [] if t.get("group") != "control"]
    kills = [t for t in rows if t.get("killed")]
    return {
        "seed": data.get("seed"),
        "killed": len(kills),
        "judged": len(rows),
        "kills": [f"{t['id']} ({t.get('oracle') or '?'})" for t in kills],
        "survivors": [str(t["id"]) for t in rows if not t.get("killed")],
        "controls_killed": [
            str(t["id"]) for t in data.get("targets") or []
            if t.get("group") == "control" and t.get("killed")
        ],
    }  # fmt: skip


def judged_line(sec: Mapping[str, Any]) -> str:
    """``judged``'s dict as one sentence (plain text, for Markdown and HTML alike)."""
    text = (
        f"Against the mutants the suite misses (make generate-mutants, seed {sec['seed']}): "
        f"{sec['killed']} of {sec['judged']} killed"
    )
    if sec["kills"]:
        text += ": " + ", ".join(sec["kills"])
    if sec["survivors"]:
        text += f"; not killed: {', '.join(sec['survivors'])}"
    if sec["controls_killed"]:
        text += f"; equivalent controls killed: {', '.join(sec['controls_killed'])}"
    return text + "."
