"""HTML writer of the comparison report: ``reports/comparison.html``, the page that teaches.

``render_html(report)`` turns a finished ``harness.report.model.Report`` (its optional sections
filled by ``harness.report.sections.with_sections``) into one self-contained page: inline CSS, inline SVG drawn in
Python (``harness.report.html_svg``), no fonts, scripts or images from anywhere else, and a
print stylesheet. The only script opens every collapsed block before printing and backs the
"expand all" button; all content is there without it.

The page, top to bottom:

1. A summary table, check x implementation: PASS/FAIL, time, the API requests and writes the
   implementation made, and whether the implementations' writes were the same.
2. Per check: what it proves and why (the check's docstring), each implementation's result
   side by side with its evidence, then what each did to the API server (from its API
   proxies' request logs, the ``timeline`` evidence):
   a swimlane per implementation (``html_svg.timeline_svg``), the writes in order aligned side
   by side (``model.align``) and the request counts, differences highlighted.
3. Benchmarks (when the model has ``bench``): a ratio table and plots of the latency
   distribution, time to converge N objects, and peak RSS (``html_sections``).
4. Mutants (when it has ``mutants``): the kill matrix, mutant x check.
5. RBAC ablation (when it has ``ablation``): which check needs which right of the role.
6. Exploration (when it has ``exploration``): per implementation the matrix of scenarios x
   perturbations (a crash at every write boundary, a 409, a stale view, coalesced events)
   and what the oracle said of each case that failed.
7. Mutation score (when it has ``mutation_score``): the tool mutants' score and survivors.

Like the Markdown writer, this module reads only the model: it knows nothing of JUnit or of the
JSON files, and the model knows nothing of it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from string import Template

from harness.i18n import label as ui_label
from harness.report.generated import section_html as generated_html
from harness.report.html_sections import (
    ablation_section,
    anchor,
    bench_section,
    explore_section,
    introduction_section,
    junit_when,
    mutants_section,
    mutation_score_section,
    tiers_section,
)
from harness.report.html_svg import esc, impl_colour, timeline_svg
from harness.report.matrices import KillMatrix
from harness.report.model import Check, Report, Result, align
from harness.report.teaching import outcome_line
from harness.report.tiers import TIERS_EXPLAINED, TierComparison
from harness.report.writes import compare_writes, normalised_writes, refusals
from harness.runs import write_text_atomic

#: outcome -> (badge text, CSS class)
_OUTCOME = {
    "passed": ("PASS", "pass"),
    "failed": ("FAIL", "fail"),
    "error": ("ERROR", "fail"),
    "skipped": ("SKIP", "skip"),
    "xfailed": ("XFAIL", "skip"),
    "missing": ("MISSING", "missing"),
}


@functools.cache
def static_text(name: str) -> str:
    """The text of ``harness/report/static/<name>`` (package data, read with
    ``importlib.resources`` so that an installed harness finds it too): ``report.css`` and
    ``report.js``, inlined into the page, and ``page.html``, the page around them (a
    ``string.Template`` with ``$title``, ``$css``, ``$body`` and ``$script``)."""
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- page
def render_html(report: Report) -> str:
    """The whole page as a string. Each optional section is left out when the model has none
    (None)."""
    matrix, bench_data, rights, explored = (
        report.mutants,
        report.bench,
        report.ablation,
        report.exploration,
    )
    impls = " and ".join(report.title(i) for i in report.implementations) or "no implementation"
    body = [
        _header(
            report,
            bench_data is not None,
            matrix is not None,
            rights is not None,
            explored is not None,
        ),
        introduction_section(report.lang, report.lesson_href),
        _summary(report),
        _how_to_read(report),
        '<section id="checks">',
        *(_check_section(report, check, matrix) for check in report.checks),
        "</section>",
    ]
    if bench_data is not None:
        body.append(bench_section(bench_data, bench_data.scaling))
    if matrix is not None:
        body.append(mutants_section(report, matrix))
    if rights is not None:
        body.append(ablation_section(report, rights))
    if explored is not None:
        body.append(explore_section(explored))
    if report.mutation_score is not None:
        body.append(mutation_score_section(report.mutation_score))
    if report.generated is not None:
        body.append(generated_html(report.generated | {"judged": report.generated_mutants}))
    return Template(static_text("page.html")).substitute(
        lang=esc(report.lang),
        title=esc(impls),
        css=static_text("report.css"),
        body="\n".join(body),
        script=static_text("report.js"),
    )


def write_html(report: Report, path: Path) -> Path:
    """Write ``render_html(report)`` to ``path`` atomically (folders created); return
    ``path``."""
    return write_text_atomic(Path(path), render_html(report))


def render_tiers_html(comparisons: Sequence[TierComparison]) -> str:
    """The tiers page (``harness.report.tiers``): what a tier is, then per implementation a
    table, check x tier, each cell passed (time), failed (first line) or skipped (the reason),
    and the capabilities each tier offers. Self-contained like the comparison page."""
    impls = " and ".join(c.impl for c in comparisons) or "no implementation"
    lede = "".join(f'<p class="lede">{esc(p)}</p>' for p in TIERS_EXPLAINED)
    body = [
        '<header>\n<p class="kicker">ModelDock conformance report</p>\n'
        f"<h1>{esc(impls)}: tiers side by side</h1>\n{lede}\n</header>",
        *(tiers_section(c) for c in comparisons),
    ]
    return Template(static_text("page.html")).substitute(
        lang="en",
        title=esc(f"{impls} on several tiers"),
        css=static_text("report.css"),
        body="\n".join(body),
        script=static_text("report.js"),
    )


def _badge(outcome: str) -> str:
    text, cls = _OUTCOME.get(outcome, (outcome.upper(), "missing"))
    return f'<span class="badge {cls}">{text}</span>'


def _run_counts(report: Report) -> tuple[int, int]:
    runs = [c.result(i) for c in report.checks for i in report.implementations]
    return sum(1 for r in runs if r.outcome == "passed"), len(runs)


def _header(
    report: Report,
    has_bench: bool,
    has_mutants: bool,
    has_ablation: bool = False,
    has_explore: bool = False,
) -> str:
    _, total = _run_counts(report)
    not_ok = sum(
        1
        for c in report.checks
        for i in report.implementations
        if c.result(i).outcome not in ("passed", "skipped", "xfailed")
    )
    if not report.checks:
        verdict = '<p class="verdict bad">No check results: the JUnit files hold no testcase.</p>'
    elif report.all_passed:
        verdict = (
            f'<p class="verdict ok">All {total} runs came out as they should: '
            f"{outcome_line(report)}.</p>"
        )
    else:
        verdict = (
            f'<p class="verdict bad">{not_ok} of {total} runs did not pass: '
            f"{outcome_line(report)}.</p>"
        )
    names = " and ".join(
        f'<span class="impl" style="--c:{impl_colour(report.implementations, i)}">{esc(i)}</span>'
        for i in report.implementations
    )
    runs = []
    for i in report.implementations:
        run = report.runs.get(i)
        title = f" ({esc(report.title(i))})" if report.title(i) != i else ""
        if run is None:
            runs.append(f"<li><b>{esc(i)}</b>{title}: no JUnit file (the run did not finish)</li>")
            continue
        where = f" on {esc(run.hostname)}" if run.hostname else ""
        runs.append(
            f"<li><b>{esc(i)}</b>{title}: suite started {esc(junit_when(run.timestamp))}"
            f"{where}, {run.time_s:.1f} s</li>"
        )
    nav = [
        '<a href="#introduction">Introduction</a>',
        '<a href="#summary">Summary</a>',
        '<a href="#how-to-read">How to read</a>',
        '<a href="#checks">Checks</a>',
    ]
    if has_bench:
        nav.append('<a href="#bench">Benchmarks</a>')
    if has_mutants:
        nav.append('<a href="#mutants">Mutants</a>')
    if has_ablation:
        nav.append('<a href="#rbac-ablation">RBAC ablation</a>')
    if has_explore:
        nav.append('<a href="#explore">Exploration</a>')
    return (
        "<header>\n"
        '<p class="kicker">ModelDock conformance report</p>\n'
        f"<h1>{names}, side by side</h1>\n"
        '<p class="lede">One real API server, one shared conformance suite, run once per '
        "implementation. Each check below says what it proves and why a controller must behave "
        "that way, shows each implementation's evidence side by side, and draws the API requests "
        "each implementation made during the check, from the API server's audit log.</p>\n"
        f"{verdict}\n"
        f'<ul class="runs">{"".join(runs)}</ul>\n'
        f"<nav>{' · '.join(nav)}"
        '<button type="button" id="toggle-all" class="noprint">expand all evidence</button></nav>\n'
        "</header>"
    )


# --------------------------------------------------------------------------- summary
def _writes_same(check: Check, impls: Sequence[str]) -> tuple[str, str]:
    """(text, css class) saying whether the implementations made the same successful writes
    in the same order, object writes and Events apart (``writes.compare_writes``); ("", "")
    when fewer than two have a timeline."""
    comp = compare_writes(check, impls)
    if comp is None:
        return "", ""
    return comp.summary(), "same" if comp.objects_differ == 0 else "differ"


def _write_codes(result: Result) -> list[int | None]:
    """The code of each entry of ``result.write_sequence`` (None: not known)."""
    calls = result.calls
    if calls:
        return [c.code for c in calls if c.is_write]
    return [None] * len(result.write_sequence)


def _request_line(result: Result) -> str:
    calls = result.calls
    if not calls:
        return ""
    writes = [c for c in calls if c.is_write]
    refused = [c for c in calls if c.refused]
    text = f"{len(calls)} requests · {len(writes)} writes"
    if refused:
        codes = sorted({c.code for c in refused})
        text += (
            f' · <span class="refused">{len(refused)} refused ({", ".join(map(str, codes))})</span>'
        )
    return text


def _summary(report: Report) -> str:
    impls = report.implementations
    head = "".join(
        f'<th scope="col">{esc(i)}'
        + (f'<span class="title">{esc(report.title(i))}</span>' if report.title(i) != i else "")
        + "</th>"
        for i in impls
    )
    rows = []
    for check in report.checks:
        cells = []
        for impl in impls:
            res = check.result(impl)
            detail = []
            if res.outcome != "missing":
                detail.append(f'<span class="time">{res.time_s:.1f} s</span>')
            line = _request_line(res)
            if line:
                detail.append(f'<span class="reqs">{line}</span>')
            key = _key_evidence(res)
            if key:
                detail.append(f'<span class="key">{key}</span>')
            cells.append(
                f'<td class="cell {_OUTCOME[res.outcome][1]}">{_badge(res.outcome)} '
                + " ".join(detail)
                + "</td>"
            )
        same, cls = _writes_same(check, impls)
        why = esc(_first_sentence(check.why))
        rows.append(
            f'<tr><th scope="row"><a href="#{anchor(check.id)}"><code>{esc(check.id)}</code></a>'
            f'<span class="why">{why}</span></th>{"".join(cells)}'
            f'<td class="writes {cls}">{esc(same)}</td></tr>'
        )
    passed, total = _run_counts(report)
    return (
        '<section id="summary">\n<h2>Summary</h2>\n'
        '<table class="summary">\n<thead><tr><th scope="col">check</th>'
        f'{head}<th scope="col">API writes</th></tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + f'\n</tbody>\n</table>\n<p class="muted">{passed} of {total} runs passed. '
        "“API writes” compares the successful writes each implementation made during the check, "
        "in order (from the audit log); like the request count, they include the check's "
        "set-up, which is not judged: the evidence says which writes a check judged (noop-stable: "
        "successful_writes, beside set_up_writes_not_judged).</p>\n</section>"
    )


def _first_sentence(text: str, limit: int = 140) -> str:
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = m.group(1) if m else text
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _key_evidence(result: Result) -> str:
    """The first short item of the check's own evidence (UIDs say nothing here), as HTML."""
    for key, value in result.check_evidence.items():
        text = _compact(value)
        if len(text) <= 64 and not _UUID.search(text):
            return f"{esc(key)} = <code>{esc(text)}</code>"
    return ""


def _how_to_read(report: Report) -> str:
    return (
        '<section id="how-to-read" class="howto">\n<h2>How to read the request timelines</h2>\n'
        "<p>Under each check, one lane per implementation shows every request it sent to the API "
        "server during the check, at its time since that implementation's first request. "
        f"{_legend()} Writes are numbered in order; the list beside the timeline gives each "
        "numbered write in full and lines the implementations up, so a write one made and the "
        "other did not stands out. Hover a mark for its details.</p>\n"
        "<p>What to look for: a level-triggered controller reads (list, then watch) and writes "
        "only the difference between what the ModelService asks for and what exists. Two "
        "correct implementations make the same writes in the same order; a 409 Conflict is the "
        "API server refusing a write based on a stale resourceVersion, after which a correct "
        "controller re-reads and tries again.</p>\n</section>"
    )


def _legend() -> str:
    def swatch(cls: str) -> str:
        return (
            f'<svg class="swatch" width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">'
            f'<circle cx="7" cy="7" r="5.5" class="{cls}"/></svg>'
        )

    return (
        f"{swatch('dot write')} blue above the line: a write (create, update, patch, delete). "
        f"{swatch('dot read')} grey below the line: a read (get, list, watch). "
        f"{swatch('dot write failed')} red: the API server refused it (4xx/5xx, e.g. 409 "
        "Conflict). Dashed purple lines: what the harness did (started, killed or signalled the "
        "operator, or wrote to the ModelService or a child itself), the causes of what follows."
    )


# --------------------------------------------------------------------------- one check
def _check_section(report: Report, check: Check, matrix: KillMatrix | None) -> str:
    impls = report.implementations
    badges = " ".join(
        f'<span class="pill">{esc(i)} {_badge(check.result(i).outcome)}</span>' for i in impls
    )
    parts = [
        f'<section class="check" id="{anchor(check.id)}">',
        f'<h2><code>{esc(check.id)}</code> <span class="pills">{badges}</span></h2>',
    ]
    if check.why:
        parts.append(
            f'<p class="why-full"><span class="label">{ui_label(report.lang, "What it proves")}</span> '
            f"{esc(check.why)}</p>"
        )
    if check.teaches:
        parts.append(
            f'<p class="teaches"><span class="label">{ui_label(report.lang, "Why")}</span> '
            f"{esc(check.teaches)}</p>"
        )
    if matrix is not None:
        killed = matrix.kills(check.id)
        if killed:
            names = ", ".join(f"<code>{esc(m)}</code>" for m in killed)
            parts.append(
                f'<p class="kills">Catches the mutant{"s" if len(killed) > 1 else ""} '
                f'{names} (see <a href="#mutants">Mutants</a>).</p>'
            )
    parts.append(f'<div class="results" style="--n:{max(1, len(impls))}">')
    parts += [_result_card(report, impl, check.result(impl)) for impl in impls]
    parts.append("</div>")
    parts.append(_api_section(report, check))
    parts.append("</section>")
    return "\n".join(parts)


def _result_card(report: Report, impl: str, res: Result) -> str:
    colour = impl_colour(report.implementations, impl)
    head = (
        f'<div class="card-head"><span class="impl" style="--c:{colour}">{esc(report.title(impl))}'
        f"</span>{_badge(res.outcome)}"
    )
    if res.outcome != "missing":
        head += f'<span class="time">{res.time_s:.2f} s</span>'
    parts = [f'<article class="card {_OUTCOME[res.outcome][1]}">', head + "</div>"]
    if res.outcome == "missing":
        parts.append(
            '<p class="muted">No result: this implementation\'s JUnit file has no such '
            "check (the run crashed, or the check was not selected).</p>"
        )
    elif res.outcome == "xfailed":
        parts.append(
            f'<p class="skip-reason">Expected failure, declared by the implementation: '
            f"{esc(res.message or 'no reason given')}</p>"
        )
    elif res.outcome == "skipped":
        parts.append(f'<p class="skip-reason">Skipped: {esc(res.message or "no reason given")}</p>')
    elif res.message:
        lines = res.message.splitlines()
        shown = "\n".join(lines[:8]) + ("\n…" if len(lines) > 8 else "")
        parts.append(f'<pre class="failure">{esc(shown)}</pre>')
        if res.artifacts:
            parts.append(
                f'<p class="artifacts">Operator logs, objects and audit events: '
                f"<code>{esc(res.artifacts)}</code></p>"
            )
        if res.details:
            tail = res.details.splitlines()[-80:]
            parts.append(
                '<details class="ev"><summary>full pytest output</summary>'
                f'<pre class="trace">{esc(chr(10).join(tail))}</pre></details>'
            )
    evidence = res.check_evidence
    if evidence:
        rows = "".join(
            f'<tr><th scope="row">{esc(k)}</th><td>{_value_html(v)}</td></tr>'
            for k, v in evidence.items()
        )
        parts.append(f'<table class="evidence"><caption>evidence</caption>{rows}</table>')
    elif res.outcome in ("passed", "failed", "error"):
        parts.append('<p class="muted">The check recorded no evidence of its own.</p>')
    premises = res.premise_evidence
    if premises:
        rows = "".join(
            f'<tr><th scope="row">{esc(k)}</th><td>{_value_html(v)}</td></tr>'
            for k, v in premises.items()
        )
        parts.append(
            '<table class="evidence premise"><caption>premises: what the experiment '
            "established (the API server's part), not the operator's proof</caption>"
            f"{rows}</table>"
        )
    parts.append("</article>")
    return "\n".join(parts)


def _compact(value: str) -> str:
    try:
        return json.dumps(json.loads(value), separators=(", ", ": "))
    except ValueError:
        return value


def _value_html(value: str) -> str:
    """One evidence value: scalars and short JSON inline (wrapping), longer JSON objects and
    lists pretty-printed behind a one-line preview."""
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    if not isinstance(parsed, dict | list):
        text = value if isinstance(parsed, str) else json.dumps(parsed)
        if len(text) <= 240 and text.count("\n") <= 3:
            return f'<code class="v">{esc(text)}</code>'
        return (
            f'<details class="ev"><summary><code>{esc(text[:60])}…</code></summary>'
            f"<pre>{esc(text)}</pre></details>"
        )
    compact = json.dumps(parsed, separators=(", ", ": "))
    if len(compact) <= 240:
        return f'<code class="v">{esc(compact)}</code>'
    pretty = json.dumps(parsed, indent=2)
    size = f"{len(parsed)} {'keys' if isinstance(parsed, dict) else 'items'}"
    return (
        f'<details class="ev"><summary><code>{esc(compact[:48])}…</code> '
        f'<span class="muted">({size})</span></summary><pre>{esc(pretty)}</pre></details>'
    )


def _api_section(report: Report, check: Check) -> str:
    impls = report.implementations
    lanes = {i: check.result(i).calls for i in impls if check.result(i).outcome != "missing"}
    if not any(lanes.values()):
        if all(check.result(i).outcome in ("skipped", "missing") for i in impls):
            return ""
        return (
            '<div class="api"><h3>Requests to the API server</h3><p class="muted">No request '
            "timeline was recorded for this check (the harness accounts requests only in the "
            "namespaces of checks that use its audit log).</p></div>"
        )
    stats = []
    for i in lanes:
        ev = check.result(i).evidence
        ok, failed, c409 = (
            ev.get("writes_ok", "?"),
            ev.get("writes_failed", "?"),
            ev.get("conflicts_409", "0"),
        )
        calls = lanes[i]
        if 0 < len(calls) < 400:  # the whole timeline: a 404 of what is already gone is no refusal
            writes = [c for c in calls if c.is_write]
            ok = str(sum(1 for c in writes if not c.failed))
            failed = str(sum(1 for c in writes if c.refused))
            c409 = str(sum(1 for c in writes if c.code == 409))
        extra = f", {esc(c409)} × 409 Conflict" if c409 not in ("0", "?") else ""
        stats.append(f"<b>{esc(i)}</b>: {esc(ok)} writes accepted, {esc(failed)} refused{extra}")
    acts = {i: check.result(i).acts for i in lanes}
    why = []
    for i, calls in lanes.items():
        for label, n, reason in refusals(calls):
            why.append(f"<li><b>{esc(i)}</b>: <code>{esc(label)}</code> × {n}: {esc(reason)}</li>")
    refused_note = (
        '<details class="ev refusals"><summary>Why requests were refused</summary>'
        f'<ul>{"".join(why)}</ul><p class="muted">A 404 on a lookup or a delete of what is '
        "already gone is expected and not counted as refused.</p></details>\n"
        if why
        else ""
    )
    truncated = [i for i, calls in lanes.items() if len(calls) >= 400]
    note = (
        f'<p class="muted">Timeline of {", ".join(map(esc, truncated))} cut at 400 requests.</p>'
        if truncated
        else ""
    )
    return (
        '<div class="api">\n<h3>Requests to the API server <span class="muted">(audit log)</span></h3>\n'
        f'<p class="stats">{"; ".join(stats)}.</p>\n{refused_note}'
        f'<figure class="timeline">{timeline_svg(lanes, title=check.id, acts=acts)}'
        f"<figcaption>{_legend()}</figcaption></figure>\n{note}"
        '<div class="side">\n'
        f"{_write_order_table(report, check)}\n{_request_counts_table(report, check)}\n"
        "</div>\n</div>"
    )


def _write_order_table(report: Report, check: Check) -> str:
    impls = [i for i in report.implementations if check.result(i).outcome != "missing"]
    seqs = {i: check.result(i).write_sequence for i in impls}
    codes = {i: _write_codes(check.result(i)) for i in impls}
    # rows are lined up on the normalised labels (an Event's generated name reduced to its
    # object), so that two Events about the same object share a row
    keys = {i: normalised_writes(check.result(i)) for i in impls}
    rows = align(keys)
    if not rows:
        return '<div class="writes-table"><h4>Writes in order</h4><p class="muted">No writes.</p></div>'
    body = []
    differ = 0
    for row in rows:
        texts = {keys[i][j] if j is not None else None for i, j in row.items()}
        diff = len(texts) > 1
        differ += diff
        cells = []
        for i in impls:
            j = row[i]
            if j is None:
                cells.append('<td class="none">—</td>')
                continue
            code = codes[i][j]
            cls = ' class="refused"' if code is not None and not 200 <= code < 300 else ""
            cells.append(f'<td{cls}><span class="n">{j + 1}</span>{esc(seqs[i][j])}</td>')
        body.append(f'<tr class="{"diff" if diff else "same"}">{"".join(cells)}</tr>')
    head = "".join(f'<th scope="col">{esc(i)}</th>' for i in impls)
    comp = compare_writes(check, impls)
    if comp is not None:
        verdict = (
            comp.summary()
            if comp.objects_differ == 0
            else (f'<span class="diff-note">{esc(comp.summary())}</span>')
        )
    else:
        verdict = (
            "same writes in the same order"
            if not differ
            else f'<span class="diff-note">{differ} row{"s" if differ != 1 else ""} differ</span>'
        )
    table = (
        f'<table class="aligned"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    if len(rows) > 40:
        table = f'<details class="ev"><summary>{len(rows)} rows</summary>{table}</details>'
    return (
        f'<div class="writes-table"><h4>Writes in order, aligned <span class="muted">'
        f"({verdict})</span></h4>{table}</div>"
    )


def _request_counts_table(report: Report, check: Check) -> str:
    impls = [i for i in report.implementations if check.result(i).outcome != "missing"]
    counts = {i: check.result(i).request_counts for i in impls}
    keys = sorted(
        {k for c in counts.values() for k in c},
        key=lambda k: (k.split()[0] not in ("get", "list", "watch"), k),
    )
    if not keys:
        return ""
    body = []
    for k in keys:
        values = [counts[i].get(k, 0) for i in impls]
        cls = "diff" if len(set(values)) > 1 else "same"
        code = k.rsplit(" ", 1)[-1]
        kcls = ' class="refused"' if code.isdigit() and not 200 <= int(code) < 300 else ""
        body.append(
            f'<tr class="{cls}"><th scope="row"{kcls}>{esc(k)}</th>'
            + "".join(f"<td>{v}</td>" for v in values)
            + "</tr>"
        )
    head = "".join(f'<th scope="col">{esc(i)}</th>' for i in impls)
    return (
        '<div class="counts-table"><h4>Requests by verb, resource and code</h4>'
        f'<table class="counts"><thead><tr><th scope="col">request</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
