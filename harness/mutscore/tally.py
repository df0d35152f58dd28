"""The score from the verdicts: counts per language, file and function (``tally``), the same concept mutated in Go and Python and killed in one only (``comparison``), the report's JSON (``build_report``), and a report recomputed after survivors.toml changed (``rescore``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.mutscore import generate
from harness.mutscore.generate import ToolMutant
from harness.mutscore.survivors import (
    Survivors,
)

# the score
COUNTS = (
    "generated",
    "covered",
    "killed",
    "equivalent",
    "not_viable",
    "stillborn",
    "unjudged",
    "unclassified",
    "reused",
)


def tally(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The integer counts of ``rows`` (mutant entries of the report) and the score: killed /
    (covered - equivalent - not viable - stillborn - unjudged), None when that is 0."""
    c = dict.fromkeys(COUNTS, 0)
    for r in rows:
        c["generated"] += 1
        c["covered"] += r["status"] != "not covered"
        c["killed"] += r["status"] == "killed"
        c["not_viable"] += r["status"] == "not viable"
        c["stillborn"] += r["status"] == "stillborn"
        c["unjudged"] += r["status"] == "unjudged"
        c["equivalent"] += r["status"] == "survived" and r.get("kind") == "equivalent"
        c["unclassified"] += r["status"] == "survived" and not r.get("kind")
        c["reused"] += bool(r.get("reused"))
    base = c["covered"] - c["equivalent"] - c["not_viable"] - c["stillborn"] - c["unjudged"]
    return {**c, "score": round(c["killed"] / base, 4) if base > 0 else None}


def concept(function: str) -> str:
    """The name a function has in both languages: the last dotted part, in snake case
    (``computeStatus`` and ``compute_status`` -> ``compute_status``;
    ``ModelServiceReconciler.ensureChild`` -> ``ensure_child``)."""
    last = function.rsplit(".", 1)[-1]
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", last).lower()


def comparison(rows: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """concept (``concept``) -> {"go": tally, "python": tally} for every concept with a covered
    mutant in both languages: the same function mutated in both, killed in one only shows as
    a difference of their scores."""
    out: dict[str, dict[str, Any]] = {}
    names = {concept(r["function"]) for r in rows.values()}
    for name in sorted(names):
        sides = {
            lang: tally(
                r for r in rows.values() if r["lang"] == lang and concept(r["function"]) == name
            )
            for lang in ("go", "python")
        }
        if all(t["covered"] for t in sides.values()):
            out[name] = sides
    return out


def build_report(
    generated: Mapping[str, int],
    chosen: Sequence[ToolMutant],
    checks_of: Mapping[str, list[str]],
    results: Mapping[str, Mapping[str, Any]],
    survivors: Survivors,
    run: Mapping[str, Any],
) -> dict[str, Any]:
    """The dict of ``reports/mutation-score.json``: ``languages`` (lang -> ``tally`` of the
    judged mutants, plus ``generated_total``, the tool's whole list, and ``files`` and
    ``functions``, each a tally), ``mutants`` (id -> status, checks, killed_by, kind,
    reason), ``comparison`` (``comparison``), ``killed_equivalents`` (classified equivalent, but killed), ``killed_classified``
    (classified a gap or dead code, but killed), ``unclassified``, ``run``."""
    rows: dict[str, dict[str, Any]] = {}
    for m in chosen:
        r: dict[str, Any] = {
            "lang": m.lang,
            "file": m.file,
            "function": m.function,
            "line": m.line,
            "operator": m.operator,
            "original": m.original,
            "replacement": m.replacement,
            "context": m.context,
            "checks": checks_of.get(m.id, []),
        }
        r.update(results.get(m.id) or {"status": "not covered"})
        cls = survivors.classify(m)
        if cls and r["status"] == "survived":
            r.update(kind=cls[0], reason=cls[1], classified_by=cls[2])
        elif cls:
            r["classified_as"] = cls[0]
        rows[m.id] = r
    langs: dict[str, Any] = {}
    for lang in ("go", "python"):
        mine = [r for r in rows.values() if r["lang"] == lang]
        entry = tally(mine)
        entry["generated_total"] = generated.get(lang, 0)
        entry["files"] = {
            f: tally(r for r in mine if r["file"] == f) for f in sorted({r["file"] for r in mine})
        }
        entry["functions"] = {
            f"{file}:{fn}": tally(r for r in mine if (r["file"], r["function"]) == (file, fn))
            for file, fn in sorted({(r["file"], r["function"]) for r in mine})
        }
        langs[lang] = entry
    return {
        "languages": langs,
        "comparison": comparison(rows),
        "mutants": rows,
        "killed_equivalents": sorted(
            i
            for i, r in rows.items()
            if r["status"] == "killed" and r.get("classified_as") == "equivalent"
        ),
        # a gap or dead code that a run killed: its entry can go (or the kill was timing's)
        "killed_classified": sorted(
            i
            for i, r in rows.items()
            if r["status"] == "killed" and r.get("classified_as") not in (None, "equivalent")
        ),
        "unclassified": sorted(
            i for i, r in rows.items() if r["status"] == "survived" and not r.get("kind")
        ),
        "run": dict(run),
    }


def rescore(
    data: Mapping[str, Any], everything: Mapping[str, Sequence[ToolMutant]], survivors: Survivors
) -> dict[str, Any]:
    """``build_report`` again from an earlier report's verdicts, without running anything:
    the mutants found again by stable id in ``everything`` (the tools' lists now; one whose
    id is gone is dropped), classified with ``survivors`` as it is now. A Go mutant an older
    report called stillborn for a failed build is ``not viable``."""
    by_id = {m.id: m for ms in everything.values() for m in ms}
    rows = data.get("mutants") or {}
    chosen = [by_id[i] for i in rows if i in by_id]
    keep: tuple[str, ...] = ("status", "killed_by", "errors", "seconds", "problem", "assumed")
    keep += ("ran", "rejudged", "rejudged_by", "phases", "mutant_key", "reused")
    results: dict[str, dict[str, Any]] = {}
    for m in chosen:
        r = {k: v for k, v in rows[m.id].items() if k in keep}
        if r["status"] == "stillborn" and generate.compile_refused(
            str(r.get("problem", "")), m.file
        ):  # an older report's build the compiler refused; any other build failure stays
            r["status"] = "not viable"
        if r["status"] != "not covered":
            results[m.id] = r
    totals = {
        lang: int(e.get("generated_total", 0)) for lang, e in (data.get("languages") or {}).items()
    }
    return build_report(
        totals,
        chosen,
        {m.id: list(rows[m.id].get("checks", [])) for m in chosen},
        results,
        survivors,
        {**(data.get("run") or {}), "rescored": True},
    )
