"""Markdown writer of the comparison report: ``reports/comparison.md``, for terminals and CI
summaries.

``render_markdown(report)`` turns a finished ``harness.report.model.Report`` (its optional
sections filled by ``harness.report.sections.with_sections``) into one Markdown document;
``write_markdown`` writes it. Like the HTML writer, this module reads only the model: it knows
nothing of JUnit or of the JSON files, and the model knows nothing of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from harness.i18n import label as ui_label
from harness.i18n import tr
from harness.junit import PREMISES
from harness.report.bench_scaling import WORKER_FIGURES, Scaling, Spread, scaling_note
from harness.report.exploration import EXPLAINED, VARIANTS, WHOLE_RUN, Exploration, ExploreImpl
from harness.report.generated import markdown as generated_markdown
from harness.report.matrices import Ablation, KillMatrix
from harness.report.model import Bench, Call, Report, Result, format_number
from harness.report.mutation_score import HEADER, INTRO, MutationScore
from harness.report.teaching import GLOSSARY, INTRODUCTION, LESSON_NOT_MADE, outcome_line
from harness.report.tiers import TIERS_EXPLAINED, TierComparison
from harness.runs import write_text_atomic

#: outcome -> its word in the tables
_ICON = {
    "passed": "PASS",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "skip",
    "xfailed": "XFAIL",
    "missing": "missing",
}


def _short_value(value: str, limit: int = 80) -> str:
    try:
        parsed = json.loads(value)
        value = json.dumps(parsed, sort_keys=True, separators=(",", ":"))
    except ValueError:
        pass
    value = value.replace("|", "\\|").replace("\n", " ")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def key_evidence(result: Result, limit: int = 3) -> str:
    """The first ``limit`` evidence items about the operator as ``key=value`` text (premises
    are not the operator's evidence)."""
    hidden = {PREMISES, *result.premise_keys}
    items = [(k, v) for k, v in result.evidence.items() if k not in hidden][:limit]
    return "; ".join(f"{k}={_short_value(v, 60)}" for k, v in items)


def describe_timeline(calls: Sequence[Call]) -> str:
    """One line for a timeline, e.g. ``43 requests (22 writes, 1 refused) over 1.48 s``."""
    writes = [c for c in calls if c.is_write]
    refused = sum(1 for c in calls if c.refused)
    span = calls[-1].t - calls[0].t if calls else 0.0
    extra = f", {refused} refused" if refused else ""
    return f"{len(calls)} requests ({len(writes)} writes{extra}) over {span:.2f} s"


def render_summary(report: Report) -> list[str]:
    """The summary table (check x implementation: result and time) and the line
    ``<N> runs (<checks and cases> x <implementations>): <count per outcome>.``, as Markdown lines: the head of the comparison,
    and what the terminal shows at the end of a run."""
    impls = report.implementations
    lines = ["| check | " + " | ".join(f"{i}" for i in impls) + " |", "|---|" + "---|" * len(impls)]
    for check in report.checks:
        cells = []
        for impl in impls:
            res = check.results.get(impl, Result("missing"))
            cells.append(
                f"{_ICON[res.outcome]} {res.time_s:.1f}s" if res.outcome != "missing" else "missing"
            )
        lines.append(f"| `{check.id}` | " + " | ".join(cells) + " |")
    lines += ["", f"{run_count_line(len(report.checks), len(impls))}: {outcome_line(report)}."]
    return lines


def run_count_line(checks_and_cases: int, implementations: int) -> str:
    """``126 runs (63 checks and cases x 2 implementations)``: the words of the glossary (a
    run is one check or case against one implementation), said once, in the summary of the
    report and of the terminal alike."""
    return (
        f"{checks_and_cases * implementations} runs ({checks_and_cases} checks and cases x "
        f"{implementations} implementation{'s' if implementations != 1 else ''})"
    )


def introduction_lines(lang: str = "en", lesson_href: str = "lesson.md") -> list[str]:
    """The introduction, a link to the lesson and the glossary (``harness.report.teaching``)
    in ``lang`` (``harness.i18n``), as Markdown lines; ``lesson_href`` empty (no lesson made):
    one line that says how to make it instead of the link."""
    lesson = "The lesson: the article's story with this run's evidence"
    return [
        *(line for n, p in enumerate(INTRODUCTION, 1) for line in (tr(lang, f"intro:{n}", p), "")),
        (
            f"[{ui_label(lang, lesson)}]({lesson_href}) (`make lesson`)"
            if lesson_href
            else ui_label(lang, LESSON_NOT_MADE)
        ),
        "",
        f"<details><summary>{ui_label(lang, 'Words this report uses')}</summary>",
        "",
        *(
            f"- **{tr(lang, f'glossary:{t}:term', t)}**: {tr(lang, f'glossary:{t}', d)}"
            for t, d in GLOSSARY
        ),
        "",
        "</details>",
    ]


#: The introduction and the glossary in English, as Markdown lines.
INTRODUCTION_LINES: list[str] = introduction_lines()

#: Most requests one sequence diagram draws; the rest are counted in a note (the HTML
#: report's swimlanes draw them all). GitHub renders Mermaid up to a size limit.
DIAGRAM_LIMIT = 40


def _mermaid_text(text: str) -> str:
    """Text safe in a Mermaid message: no ``;`` or ``#`` (statement and entity syntax)."""
    return text.replace(";", ",").replace("#", "")


def sequence_diagram(impl: str, calls: Sequence[Call], limit: int = DIAGRAM_LIMIT) -> list[str]:
    """A Mermaid ``sequenceDiagram`` of one implementation's requests in one check, as
    Markdown lines (a fenced ``mermaid`` block): one arrow per request from the operator to the
    API server, labelled ``+<seconds> <verb> <resource> <name> <code>``; a refused request
    (code outside 2xx) is a crossed arrow. At most ``limit`` requests; a note counts the rest.
    [] when there are no calls."""
    if not calls:
        return []
    lines = [
        "```mermaid",
        "sequenceDiagram",
        f"    participant O as {_mermaid_text(impl)} operator",
        "    participant A as API server",
    ]
    for call in calls[:limit]:
        arrow = "-x" if call.failed else "->>"
        label = _mermaid_text(f"+{call.t:.2f}s {call.label()}")
        lines.append(f"    O{arrow}A: {label}")
    if len(calls) > limit:
        lines.append(f"    Note over O,A: {len(calls) - limit} more requests (comparison.html)")
    lines += ["```", ""]
    return lines


def render_job_summary(report: Report) -> str:
    """What a CI job summary shows (GitHub renders it, Mermaid included): the summary table,
    then per check with requests each implementation's sequence diagram."""
    lines = ["# ModelDock conformance", "", *render_summary(report), ""]
    for check in report.checks:
        drawn = [
            (impl, check.results[impl].calls)
            for impl in report.implementations
            if impl in check.results and check.results[impl].calls
        ]
        if not drawn:
            continue
        lines += [f"## `{check.id}`", ""]
        for impl, calls in drawn:
            lines += [f"**{impl}**: {describe_timeline(calls)}", "", *sequence_diagram(impl, calls)]
    return "\n".join(lines).rstrip() + "\n"


def render_markdown(report: Report) -> str:
    """The comparison as Markdown: a summary table (check x implementation: result, time),
    then per check its "why" and every implementation's evidence; then each optional section
    the model has: the bench table, the mutant kill matrix, the RBAC ablation, the exploration
    matrix and the mutation score."""
    impls = report.implementations
    lines = ["# ModelDock conformance: side by side", ""]
    lines += [*introduction_lines(report.lang, report.lesson_href.replace(".html", ".md")), ""]
    lines += [*render_summary(report), ""]
    for check in report.checks:
        lines += [f"## `{check.id}`", ""]
        if check.why:
            lines += [check.why, ""]
        if check.teaches:
            lines += [check.teaches, ""]
        lines += ["| implementation | result | time | key evidence |", "|---|---|---|---|"]
        for impl in impls:
            res = check.results.get(impl, Result("missing"))
            lines.append(
                f"| {impl} | {_ICON[res.outcome]} | {res.time_s:.1f}s | {key_evidence(res)} |"
            )
        lines.append("")
        for impl in impls:
            got = check.results.get(impl)
            if got is None:
                continue
            if got.message:
                what = {"skipped": "skipped", "xfailed": "expected failure"}.get(
                    got.outcome, "failure"
                )
                lines += [f"**{impl} {what}:** " + got.message.splitlines()[0][:400], ""]
            if got.calls:
                lines += [
                    f"**{impl} requests:** {describe_timeline(got.calls)}",
                    "",
                    *sequence_diagram(impl, got.calls),
                ]
            if got.evidence:
                lines.append(f"<details><summary>{impl}: all evidence</summary>\n")
                premises = got.premise_keys
                for k, v in got.evidence.items():
                    if k == PREMISES:
                        continue
                    if k in premises:
                        lines.append(
                            f"- `{k}` (premise, not the operator's proof): `{_short_value(v, 300)}`"
                        )
                    elif k == "timeline":
                        lines.append(
                            f"- `{k}`: {describe_timeline(got.calls)} "
                            f"(drawn above and in comparison.html)"
                        )
                    else:
                        lines.append(f"- `{k}`: `{_short_value(v, 300)}`")
                lines += ["", "</details>", ""]
    if report.bench is not None:
        lines += _bench_markdown(report.bench, report.bench.scaling)
        lines += _spread_markdown(report.bench.spread)
    if report.mutants is not None:
        lines += _mutants_markdown(report.mutants)
    if report.ablation is not None:
        lines += _ablation_markdown(report.ablation)
    if report.exploration is not None:
        lines += explore_markdown(report.exploration)
    if report.mutation_score is not None:
        lines += mutation_score_markdown(report.mutation_score)
    if report.generated is not None:
        lines += generated_markdown(report.generated | {"judged": report.generated_mutants})
    return "\n".join(lines).rstrip() + "\n"


_EXPLORE_ICON = {"passed": "✓", "failed": "✗", "error": "E", "skipped": "·"}


def explore_markdown(model: Exploration) -> list[str]:
    """The exploration section (``harness.report.exploration``): what exploration proves, then per implementation the matrix (a row per scenario with its
    clean writes; per write boundary k one cell of three marks, withheld, delivered and 409;
    then stale view and coalesced), each failed case with what the oracle said, and the
    exploration-only mutants with the cases that killed them."""
    lines = ["## Exploration: a crash at every write boundary", ""]
    for para in EXPLAINED:
        lines += [para, ""]
    lines += [
        "A row per scenario, with the writes of its clean run; per boundary k one cell of three "
        "marks: withheld, delivered, 409. ✓ the end state equalled the clean run's, ✗ it did "
        "not, E harness error (not judged), · boundary not reached in that run, – or blank: "
        "not run.",
        "",
    ]
    for m in model.implementations:
        head = ["scenario", "writes", *[f"k={k}" for k in range(1, m.kmax + 1)]]
        head += [title for _, title in WHOLE_RUN]
        lines += [
            f"### {m.impl}: {m.survived}/{m.cases} survived, {m.boundaries} boundaries",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        for scenario, writes in m.clean_writes.items():

            def cell(pert: str, scenario: str = scenario, m: ExploreImpl = m) -> str:
                return _EXPLORE_ICON.get(m.outcome(scenario, pert), "")

            row = [scenario, str(len(writes))]
            for k in range(1, m.kmax + 1):
                marks = [cell(f"write-{k}-{v}") for v, _ in VARIANTS]
                row.append("".join(x or "–" for x in marks) if any(marks) else "")
            row += [cell(pert) for pert, _ in WHOLE_RUN]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        if m.failures:
            lines += [f"Did not survive ({len(m.failures)}):", ""]
            for f in m.failures:
                said = _short_value(f.message, 300) if f.message else "no message recorded"
                kind = "harness error" if f.outcome == "error" else "oracle"
                lines.append(f"- `{f.case}` ({kind}): {said}")
            lines.append("")
    if model.mutants:
        lines += [
            "### Mutants only exploration catches",
            "",
            "| mutant | cases that must kill it | killed | what the oracle said |",
            "|---|---|---|---|",
        ]
        for mu in model.mutants:
            said = "<br>".join(
                f"`{c}`: {_short_value(t, 200)}" for c, t in mu.messages.items() if t
            )
            lines.append(
                f"| `{mu.name}` | {', '.join(f'`{c}`' for c in mu.cases)} | "
                f"{'yes' if mu.killed else '**no verdict**' if mu.outcome == 'no verdict' else '**no**'} | "
                f"{said} |"
            )
        lines.append("")
    return lines


def tier_cell(res: Result) -> str:
    """One check on one tier, as text: ``PASS 3.1s``, ``FAIL: <first line>``, ``skip: <the
    reason>``, ``missing``."""
    if res.outcome in ("passed", "missing"):
        return f"PASS {res.time_s:.1f}s" if res.outcome == "passed" else "missing"
    first = next((ln.strip() for ln in res.message.splitlines() if ln.strip()), "")
    return f"{_ICON[res.outcome]}: {first}" if first else _ICON[res.outcome]


def render_tiers_markdown(comparisons: Sequence[TierComparison]) -> str:
    """Tiers side by side (``harness.report.tiers``) as Markdown: what a tier is, then per
    implementation its runs (tier, Kubernetes version, counts), the capabilities each tier
    offers, and a row per check with its outcome on each tier (a skip with its reason, a
    failure with its first line); rows whose outcome differs between tiers are marked."""
    lines = ["# ModelDock conformance: tiers side by side", ""]
    for para in TIERS_EXPLAINED:
        lines += [para, ""]
    for comp in comparisons:
        labels = comp.labels
        lines += [
            f"## {comp.impl}",
            "",
            "| tier | reports | Kubernetes | passed | failed | skipped | harness commit |",
            "|---|---|---|---:|---:|---:|---|",
        ]
        for label, run in zip(labels, comp.runs, strict=True):
            if not run.present:
                lines.append(f"| {label} | `{run.folder}` | no junit-{comp.impl}.xml | | | | |")
                continue
            bad = run.count("failed") + run.count("error")
            lines.append(
                f"| {label} | `{run.folder}` | {run.kubernetes_version or '?'} | "
                f"{run.count('passed')} | {bad} | {run.count('skipped')} | "
                f"{run.harness_commit or '?'} |"
            )
        lines += ["", "| capability | " + " | ".join(labels) + " |"]
        lines.append("|---|" + ":---:|" * len(labels))
        for cap in comp.capabilities:
            marks = ["yes" if cap in r.capabilities else "" for r in comp.runs]
            lines.append(f"| `{cap}` | " + " | ".join(marks) + " |")
        lines += ["", "| check | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for check in comp.checks:
            cells = [_short_value(tier_cell(r.result(check)), 300) for r in comp.runs]
            mark = " (differs)" if comp.differs(check) else ""
            lines.append(f"| `{check}`{mark} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _bench_markdown(bench: Bench, scaling: Scaling | None = None) -> list[str]:
    impls, ratios = bench.implementations, bench.ratio_names
    lines = ["## Benchmarks", ""]
    if bench.machine:
        lines += ["Machine: " + "; ".join(f"{k} {v}" for k, v in bench.machine.items()), ""]
    lines.append("| figure | " + " | ".join(impls + ratios) + " | ideal |")
    lines.append("|---|" + "---:|" * (len(impls) + len(ratios)) + "---|")
    for row in bench.rows:
        cells = [format_number(row.values.get(i), row.unit) for i in impls]
        cells += [
            format_number(row.ratios.get(r)) + ("×" if row.ratios.get(r) is not None else "")
            for r in ratios
        ]
        lines.append(f"| {row.label} | " + " | ".join(cells) + f" | {row.ideal} |")
    return [*lines, "", *_scaling_markdown(bench, scaling)]


def _spread_markdown(spread: Spread) -> list[str]:
    """The API server's write capacity and, for each figure that is a median of runs, its
    min and max; [] when bench.json had neither."""
    lines: list[str] = []
    capacity = spread.capacity_writes_per_s
    if capacity is not None:
        lines += [
            f"API server write capacity (the floor client at a saturating concurrency): {capacity:.0f} writes/s",
            "",
        ]
    rows = [
        f"| {r.who} | {r.label} | "
        + " | ".join(format_number(v, "s") for v in (r.median, r.min, r.max))
        + f" | {r.runs} |"
        for r in spread.rows
    ]
    if rows:
        lines += ["### Spread over runs", "", "| who | figure | median | min | max | runs |"]
        lines += ["|---|---|---:|---:|---:|---:|", *rows, ""]
    return lines


def _scaling_markdown(bench: Bench, sc: Scaling | None) -> list[str]:
    if sc is None:
        return []
    lines = ["### The floor and worker scaling", ""]
    for para in scaling_note(sc, bench.implementations):
        lines += [para, ""]
    if sc.worker_counts:
        lines.append(
            "| who × workers | "
            + " | ".join(label for _, label, _ in WORKER_FIGURES)
            + " | × floor | limited by |"
        )
        lines.append("|---|" + "---:|" * (len(WORKER_FIGURES) + 1) + "---|")
        for w in sc.worker_counts:
            for who in sc.who:
                fig = (sc.workers.get(who) or {}).get(w)
                if fig is None:
                    continue
                r = 1.0 if who == "floor" else sc.worker_ratios.get(who, {}).get(w)
                split = (sc.splits_w.get(who) or {}).get(w) or {}
                lines.append(
                    f"| {who} ×{w} | "
                    + " | ".join(format_number(fig.get(k), u) for k, _, u in WORKER_FIGURES)
                    + f" | {format_number(r)}{'×' if r is not None else ''} | "
                    + f"{split.get('limited_by', '–')} |"
                )
        lines.append("")
    return lines


def _mutants_markdown(matrix: KillMatrix) -> list[str]:
    lines = ["## Mutants: which check catches which broken implementation", ""]
    lines.append(
        "| mutant | "
        + " | ".join(f"`{c}`" for c in matrix.checks)
        + " | killed by | what it breaks |"
    )
    lines.append("|---|" + ":---:|" * len(matrix.checks) + "---:|---|")
    for m in matrix.mutants:
        cells = []
        for c in matrix.checks:
            n = len(m.cases.get(c) or [])
            cells.append(
                "" if c not in m.killed_by else f"killed ({n} cases)" if n > 1 else "killed"
            )
        verdict = (
            str(len(m.killed_by)) if m.killed_by else "**SURVIVED**" if m.ran else "**did not run**"
        )
        doc = m.doc.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| `{m.name}` | " + " | ".join(cells) + f" | {verdict} | {doc} |")
    survivors = [m.name for m in matrix.mutants if m.survived]
    lines += [
        "",
        f"{len(matrix.mutants) - len(survivors)} of {len(matrix.mutants)} mutants "
        f"killed" + (f"; not killed: {', '.join(survivors)}." if survivors else "."),
    ]
    if matrix.idle_checks:
        lines.append(f"Checks that caught no mutant: {', '.join(matrix.idle_checks)}.")
    return [*lines, ""]


def _ablation_markdown(ablation: Ablation) -> list[str]:
    lines = [
        "## RBAC ablation: is every right in config/rbac/role.yaml needed?",
        "",
        f"Each right (API group, resource, verb) taken away in turn; the checks that then "
        f"failed on a 403 the missing right explains ({', '.join(ablation.implementations)}"
        f"{', CI subset' if ablation.subset == 'ci' else ''}).",
        "",
        "| right | checks that failed without it | refused (audit log) |",
        "|---|---|---|",
    ]
    for r in ablation.rights:
        if r.needed_by:
            shown = "<br>".join(f"`{c}` ({', '.join(i)})" for c, i in r.needed_by.items())
        elif r.status == "pending":
            shown = f"pending: {r.pending}"
        else:
            shown = f"**{r.status}**"
        refused = "<br>".join(f"`{x}`" for x in r.refusals).replace("|", "\\|")
        lines.append(f"| `{r.unit}` | {shown} | {refused} |")
    needed = sum(1 for r in ablation.rights if r.status == "needed")
    lines += ["", f"{needed} of {len(ablation.rights)} rights shown needed."]
    if ablation.unneeded:
        lines.append(
            "Needed by nothing (to remove from role.yaml): "
            + ", ".join(f"`{u}`" for u in ablation.unneeded)
            + "."
        )
    for line in ablation.uncovered:
        lines.append(f"A need no rule covers: {line}.")
    return [*lines, ""]


def write_markdown(report: Report, path: Path) -> Path:
    """Write ``render_markdown(report)`` to ``path`` atomically (folders created); return
    ``path``."""
    return write_text_atomic(path, render_markdown(report))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def mutation_score_markdown(score: MutationScore) -> list[str]:
    """The mutation-score section (``harness.report.mutation_score``) as Markdown lines."""
    run = score.run
    lines = ["## Mutation score (tool mutants)", "", INTRO, ""]
    lines.append(
        f"Sample {run.get('sample') or 'all'} per language (seed {run.get('seed')}), judged by "
        f"{', '.join(run.get('checks') or [])}, at most {run.get('max_checks')} per mutant."
    )
    lines += ["", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in score.rows]
    if score.comparison:
        lines += ["", "| same function in both | Go killed / scorable | Python killed / scorable |"]
        lines.append("|---|---|---|")
        lines += [f"| `{name}` | {go} | {py} |" for name, go, py in score.comparison]
    if score.survivors:
        lines += ["", "| survivor | kind | reason |", "|---|---|---|"]
        # a pipe inside a cell, even in backticks, ends the cell in GitHub's Markdown
        lines += [f"| `{_cell(i)}` | {k} | {_cell(r)} |" for i, k, r in score.survivors]
    return [*lines, ""]
