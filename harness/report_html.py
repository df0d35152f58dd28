"""HTML writer of the comparison report: ``reports/comparison.html``, the page that teaches.

``render_html(report, bench, mutants)`` turns a ``harness.report.Report`` (and optionally the
dicts of ``reports/bench.json`` and ``reports/mutants.json``) into one self-contained page:
inline CSS, inline SVG drawn here in Python, no fonts, scripts or images from anywhere else,
and a print stylesheet. The only script opens every collapsed block before printing and
backs the "expand all" button; all content is there without it.

The page, top to bottom:

1. A summary table, check x implementation: PASS/FAIL, time, the API requests and writes the
   implementation made, and whether the implementations' writes were the same.
2. Per check: what it proves and why (the check's docstring), each implementation's result
   side by side with its evidence, then what each did to the API server (from the audit log):
   a swimlane per implementation (``timeline_svg``), the writes in order aligned side by side
   (``report.align``) and the request counts, differences highlighted.
3. Benchmarks (when ``bench`` is given): a ratio table and plots of the latency
   distribution, time to converge N objects, and peak RSS.
4. Mutants (when ``mutants`` is given): the kill matrix, mutant x check.

Like the Markdown writer, this module reads only the model: it knows nothing of JUnit.
"""

from __future__ import annotations

import datetime
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.report import (
    Ablation,
    Bench,
    Call,
    Check,
    KillMatrix,
    Report,
    Result,
    align,
    bench_model,
    format_number,
    kill_matrix,
    rbac_ablation,
)
from harness.runs import write_text_atomic

#: One colour per implementation, in report order (Okabe-Ito: safe for colour blindness).
IMPL_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")

_OUTCOME = {"passed": ("PASS", "pass"), "failed": ("FAIL", "fail"), "error": ("ERROR", "fail"),
            "skipped": ("SKIP", "skip"), "xfailed": ("XFAIL", "skip"),
            "missing": ("MISSING", "missing")}


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def anchor(check_id: str) -> str:
    """The page anchor of a check, e.g. ``check-watch-recovers-cut``."""
    return "check-" + re.sub(r"[^a-z0-9]+", "-", check_id.lower()).strip("-")


def impl_colour(report_impls: Sequence[str], impl: str) -> str:
    i = list(report_impls).index(impl) if impl in report_impls else len(report_impls)
    return IMPL_COLOURS[i % len(IMPL_COLOURS)]


# --------------------------------------------------------------------------- page
def render_html(report: Report, bench: Mapping[str, Any] | None = None,
                mutants: Mapping[str, Any] | None = None,
                ablation: Mapping[str, Any] | None = None) -> str:
    """The whole page as a string. ``bench``: the dict of reports/bench.json (shape in
    ``report.bench_model``); ``mutants``: the dict of reports/mutants.json (shape in
    ``report.kill_matrix``); ``ablation``: reports/rbac-ablation.json (shape in
    ``report.rbac_ablation``). Each section is left out when its data is None or empty."""
    matrix = kill_matrix(mutants) if mutants else None
    bench_data = bench_model(bench) if bench else None
    rights = rbac_ablation(ablation) if ablation else None
    impls = " and ".join(report.title(i) for i in report.implementations) or "no implementation"
    body = [
        _header(report, bench_data is not None, matrix is not None, rights is not None),
        _summary(report),
        _how_to_read(report),
        '<section id="checks">',
        *(_check_section(report, check, matrix) for check in report.checks),
        "</section>",
    ]
    if bench_data is not None:
        body.append(_bench_section(bench_data))
    if matrix is not None:
        body.append(_mutants_section(report, matrix))
    if rights is not None:
        body.append(_ablation_section(report, rights))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>ModelDock conformance: {esc(impls)}</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n"
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def write_html(report: Report, path: Path, bench: Mapping[str, Any] | None = None,
               mutants: Mapping[str, Any] | None = None,
               ablation: Mapping[str, Any] | None = None) -> Path:
    """Write ``render_html(...)`` to ``path`` atomically (folders created); return ``path``."""
    return write_text_atomic(Path(path), render_html(report, bench, mutants, ablation))


def _badge(outcome: str) -> str:
    text, cls = _OUTCOME.get(outcome, (outcome.upper(), "missing"))
    return f'<span class="badge {cls}">{text}</span>'


def _run_counts(report: Report) -> tuple[int, int]:
    runs = [c.result(i) for c in report.checks for i in report.implementations]
    return sum(1 for r in runs if r.outcome == "passed"), len(runs)


def _header(report: Report, has_bench: bool, has_mutants: bool,
            has_ablation: bool = False) -> str:
    passed, total = _run_counts(report)
    not_ok = sum(1 for c in report.checks for i in report.implementations
                 if c.result(i).outcome not in ("passed", "skipped", "xfailed"))
    if not report.checks:
        verdict = '<p class="verdict bad">No check results: the JUnit files hold no testcase.</p>'
    elif report.all_passed:
        skipped = (f" or were skipped or failed as declared ({passed} passed)"
                   if passed < total else "")
        verdict = f'<p class="verdict ok">All {total} check runs passed{skipped}.</p>'
    else:
        verdict = (f'<p class="verdict bad">{not_ok} of {total} check runs did not pass '
                   f'({passed} passed).</p>')
    names = " and ".join(
        f'<span class="impl" style="--c:{impl_colour(report.implementations, i)}">{esc(i)}</span>'
        for i in report.implementations)
    runs = []
    for i in report.implementations:
        run = report.runs.get(i)
        title = f" ({esc(report.title(i))})" if report.title(i) != i else ""
        if run is None:
            runs.append(f"<li><b>{esc(i)}</b>{title}: no JUnit file (the run did not finish)</li>")
            continue
        where = f" on {esc(run.hostname)}" if run.hostname else ""
        runs.append(f"<li><b>{esc(i)}</b>{title}: suite started {esc(_when(run.timestamp))}"
                    f"{where}, {run.time_s:.1f} s</li>")
    nav = ['<a href="#summary">Summary</a>', '<a href="#how-to-read">How to read</a>',
           '<a href="#checks">Checks</a>']
    if has_bench:
        nav.append('<a href="#bench">Benchmarks</a>')
    if has_mutants:
        nav.append('<a href="#mutants">Mutants</a>')
    if has_ablation:
        nav.append('<a href="#rbac-ablation">RBAC ablation</a>')
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
        f'<nav>{" · ".join(nav)}'
        '<button type="button" id="toggle-all" class="noprint">expand all evidence</button></nav>\n'
        "</header>"
    )


def _when(stamp: str) -> str:
    """A JUnit timestamp as ``2026-11-29 11:44:31 UTC`` (or as given if it has no zone)."""
    try:
        when = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:
        return when.strftime("%Y-%m-%d %H:%M:%S")
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# --------------------------------------------------------------------------- summary
def _writes_same(check: Check, impls: Sequence[str]) -> tuple[str, str]:
    """(text, css class) saying whether the implementations made the same successful writes
    in the same order; ("", "") when fewer than two have a write list."""
    seqs = {i: [w for w, c in zip(check.result(i).write_sequence, _write_codes(check.result(i)),
                                  strict=True) if c is None or 200 <= c < 300]
            for i in impls if check.result(i).write_sequence}
    if len(seqs) < 2:
        return "", ""
    rows = align(seqs)
    differ = sum(1 for row in rows if len({seqs[i][j] if j is not None else None
                                           for i, j in row.items()}) > 1)
    n = len(next(iter(seqs.values())))
    if differ == 0:
        return f"same {n} write{'s' if n != 1 else ''}, same order", "same"
    return f"{differ} write{'s' if differ != 1 else ''} differ", "differ"


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
    refused = [c for c in calls if c.failed]
    text = f"{len(calls)} requests · {len(writes)} writes"
    if refused:
        codes = sorted({c.code for c in refused})
        text += f' · <span class="refused">{len(refused)} refused ({", ".join(map(str, codes))})</span>'
    return text


def _summary(report: Report) -> str:
    impls = report.implementations
    head = "".join(f'<th scope="col">{esc(i)}' + (f'<span class="title">{esc(report.title(i))}</span>'
                                                   if report.title(i) != i else "") + "</th>"
                   for i in impls)
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
            cells.append(f'<td class="cell {_OUTCOME[res.outcome][1]}">{_badge(res.outcome)} '
                         + " ".join(detail) + "</td>")
        same, cls = _writes_same(check, impls)
        why = esc(_first_sentence(check.why))
        rows.append(
            f'<tr><th scope="row"><a href="#{anchor(check.id)}"><code>{esc(check.id)}</code></a>'
            f'<span class="why">{why}</span></th>{"".join(cells)}'
            f'<td class="writes {cls}">{esc(same)}</td></tr>')
    passed, total = _run_counts(report)
    return (
        '<section id="summary">\n<h2>Summary</h2>\n'
        '<table class="summary">\n<thead><tr><th scope="col">check</th>'
        f'{head}<th scope="col">API writes</th></tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + f"\n</tbody>\n</table>\n<p class=\"muted\">{passed} of {total} check runs passed. "
        "“API writes” compares the successful writes each implementation made during the check, "
        "in order (from the audit log).</p>\n</section>"
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
        return (f'<svg class="swatch" width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">'
                f'<circle cx="7" cy="7" r="5.5" class="{cls}"/></svg>')

    return (f'{swatch("dot write")} blue above the line: a write (create, update, patch, delete). '
            f'{swatch("dot read")} grey below the line: a read (get, list, watch). '
            f'{swatch("dot write failed")} red: the API server refused it (4xx/5xx, e.g. 409 '
            "Conflict).")


# --------------------------------------------------------------------------- one check
def _check_section(report: Report, check: Check, matrix: KillMatrix | None) -> str:
    impls = report.implementations
    badges = " ".join(f'<span class="pill">{esc(i)} {_badge(check.result(i).outcome)}</span>'
                      for i in impls)
    parts = [f'<section class="check" id="{anchor(check.id)}">',
             f'<h2><code>{esc(check.id)}</code> <span class="pills">{badges}</span></h2>']
    if check.why:
        parts.append(f'<p class="why-full"><span class="label">What it proves</span> {esc(check.why)}</p>')
    if check.teaches:
        parts.append(f'<p class="teaches"><span class="label">Why</span> {esc(check.teaches)}</p>')
    if matrix is not None:
        killed = matrix.kills(check.id)
        if killed:
            names = ", ".join(f"<code>{esc(m)}</code>" for m in killed)
            parts.append(f'<p class="kills">Catches the mutant{"s" if len(killed) > 1 else ""} '
                         f'{names} (see <a href="#mutants">Mutants</a>).</p>')
    parts.append(f'<div class="results" style="--n:{max(1, len(impls))}">')
    parts += [_result_card(report, impl, check.result(impl)) for impl in impls]
    parts.append("</div>")
    parts.append(_api_section(report, check))
    parts.append("</section>")
    return "\n".join(parts)


def _result_card(report: Report, impl: str, res: Result) -> str:
    colour = impl_colour(report.implementations, impl)
    head = (f'<div class="card-head"><span class="impl" style="--c:{colour}">{esc(report.title(impl))}'
            f"</span>{_badge(res.outcome)}")
    if res.outcome != "missing":
        head += f'<span class="time">{res.time_s:.2f} s</span>'
    parts = [f'<article class="card {_OUTCOME[res.outcome][1]}">', head + "</div>"]
    if res.outcome == "missing":
        parts.append('<p class="muted">No result: this implementation\'s JUnit file has no such '
                     "check (the run crashed, or the check was not selected).</p>")
    elif res.outcome == "skipped":
        parts.append(f'<p class="skip-reason">Skipped: {esc(res.message or "no reason given")}</p>')
    elif res.outcome == "xfailed":
        parts.append(f'<p class="skip-reason">Expected failure, declared by the implementation: '
                     f'{esc(res.message or "no reason given")}</p>')
    elif res.message:
        lines = res.message.splitlines()
        shown = "\n".join(lines[:8]) + ("\n…" if len(lines) > 8 else "")
        parts.append(f'<pre class="failure">{esc(shown)}</pre>')
        if res.artifacts:
            parts.append(f'<p class="artifacts">Operator logs, objects and audit events: '
                         f"<code>{esc(res.artifacts)}</code></p>")
        if res.details:
            tail = res.details.splitlines()[-80:]
            parts.append('<details class="ev"><summary>full pytest output</summary>'
                         f'<pre class="trace">{esc(chr(10).join(tail))}</pre></details>')
    evidence = res.check_evidence
    if evidence:
        rows = "".join(f'<tr><th scope="row">{esc(k)}</th><td>{_value_html(v)}</td></tr>'
                       for k, v in evidence.items())
        parts.append(f'<table class="evidence"><caption>evidence</caption>{rows}</table>')
    elif res.outcome in ("passed", "failed", "error"):
        parts.append('<p class="muted">The check recorded no evidence of its own.</p>')
    premises = res.premise_evidence
    if premises:
        rows = "".join(f'<tr><th scope="row">{esc(k)}</th><td>{_value_html(v)}</td></tr>'
                       for k, v in premises.items())
        parts.append('<table class="evidence premise"><caption>premises: what the experiment '
                     "established (the API server's part), not the operator's proof</caption>"
                     f"{rows}</table>")
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
        return (f'<details class="ev"><summary><code>{esc(text[:60])}…</code></summary>'
                f"<pre>{esc(text)}</pre></details>")
    compact = json.dumps(parsed, separators=(", ", ": "))
    if len(compact) <= 240:
        return f'<code class="v">{esc(compact)}</code>'
    pretty = json.dumps(parsed, indent=2)
    size = f"{len(parsed)} {'keys' if isinstance(parsed, dict) else 'items'}"
    return (f'<details class="ev"><summary><code>{esc(compact[:48])}…</code> '
            f'<span class="muted">({size})</span></summary><pre>{esc(pretty)}</pre></details>')


def _api_section(report: Report, check: Check) -> str:
    impls = report.implementations
    lanes = {i: check.result(i).calls for i in impls if check.result(i).outcome != "missing"}
    if not any(lanes.values()):
        if all(check.result(i).outcome in ("skipped", "missing") for i in impls):
            return ""
        return ('<div class="api"><h3>Requests to the API server</h3><p class="muted">No request '
                "timeline was recorded for this check (the harness accounts requests only in the "
                "namespaces of checks that use its audit log).</p></div>")
    stats = []
    for i in lanes:
        ev = check.result(i).evidence
        ok, failed, c409 = ev.get("writes_ok", "?"), ev.get("writes_failed", "?"), ev.get("conflicts_409", "0")
        extra = f", {esc(c409)} × 409 Conflict" if c409 not in ("0", "?") else ""
        stats.append(f"<b>{esc(i)}</b>: {esc(ok)} writes accepted, {esc(failed)} refused{extra}")
    truncated = [i for i, calls in lanes.items() if len(calls) >= 400]
    note = (f'<p class="muted">Timeline of {", ".join(map(esc, truncated))} cut at 400 requests.</p>'
            if truncated else "")
    return (
        '<div class="api">\n<h3>Requests to the API server <span class="muted">(audit log)</span></h3>\n'
        f'<p class="stats">{"; ".join(stats)}.</p>\n'
        f'<figure class="timeline">{timeline_svg(lanes, title=check.id)}'
        f"<figcaption>{_legend()}</figcaption></figure>\n{note}"
        '<div class="side">\n'
        f"{_write_order_table(report, check)}\n{_request_counts_table(report, check)}\n"
        "</div>\n</div>"
    )


def _write_order_table(report: Report, check: Check) -> str:
    impls = [i for i in report.implementations if check.result(i).outcome != "missing"]
    seqs = {i: check.result(i).write_sequence for i in impls}
    codes = {i: _write_codes(check.result(i)) for i in impls}
    rows = align(seqs)
    if not rows:
        return '<div class="writes-table"><h4>Writes in order</h4><p class="muted">No writes.</p></div>'
    body = []
    differ = 0
    for row in rows:
        texts = {seqs[i][j] if j is not None else None for i, j in row.items()}
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
    verdict = ("same writes in the same order" if not differ
               else f'<span class="diff-note">{differ} row{"s" if differ != 1 else ""} differ</span>')
    table = (f'<table class="aligned"><thead><tr>{head}</tr></thead>'
             f'<tbody>{"".join(body)}</tbody></table>')
    if len(rows) > 40:
        table = (f'<details class="ev"><summary>{len(rows)} rows</summary>{table}</details>')
    return (f'<div class="writes-table"><h4>Writes in order, aligned <span class="muted">'
            f"({verdict})</span></h4>{table}</div>")


def _request_counts_table(report: Report, check: Check) -> str:
    impls = [i for i in report.implementations if check.result(i).outcome != "missing"]
    counts = {i: check.result(i).request_counts for i in impls}
    keys = sorted({k for c in counts.values() for k in c},
                  key=lambda k: (k.split()[0] not in ("get", "list", "watch"), k))
    if not keys:
        return ""
    body = []
    for k in keys:
        values = [counts[i].get(k, 0) for i in impls]
        cls = "diff" if len(set(values)) > 1 else "same"
        code = k.rsplit(" ", 1)[-1]
        kcls = ' class="refused"' if code.isdigit() and not 200 <= int(code) < 300 else ""
        body.append(f'<tr class="{cls}"><th scope="row"{kcls}>{esc(k)}</th>'
                    + "".join(f"<td>{v}</td>" for v in values) + "</tr>")
    head = "".join(f'<th scope="col">{esc(i)}</th>' for i in impls)
    return ('<div class="counts-table"><h4>Requests by verb, resource and code</h4>'
            f'<table class="counts"><thead><tr><th scope="col">request</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


# --------------------------------------------------------------------------- timeline SVG
#: Geometry of the swimlane (SVG user units; the SVG scales to the page width).
TL_WIDTH = 1100
TL_LEFT = 150  # lane titles
TL_RIGHT = 18
TL_R = 7.5  # radius of a write mark
TL_ROW = 18  # vertical step between stacked write marks
TL_READ = 3.5  # radius of a read mark
TL_READ_ROW = 9
TL_MAX_WRITE_ROWS = 7
TL_MAX_READ_ROWS = 4
TL_MAX_BAND_ROWS = 4  # rows of labels above the marks
TL_BAND = 14  # vertical step between label rows
TL_BAND_WRITES = 12  # lanes with more writes label only beside the marks
TL_CHAR = 6.7  # width of one character of an 11px monospace label


def nice_ticks(hi: float, count: int = 6) -> list[float]:
    """Round tick values from 0 to at least ``hi`` (steps of 1, 2, 2.5 or 5 x 10^k)."""
    if hi <= 0:
        return [0.0]
    raw = hi / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(hi / step - 1e-9)
    return [round(k * step, 10) for k in range(n + 1)]


def _fmt_time(t: float, span: float) -> str:
    if span < 2:
        return f"{t * 1000:.0f} ms"
    return f"{t:g} s"


def _stack(xs: Sequence[float], gap: float, max_rows: int) -> list[int]:
    """Row of each mark (marks in x order): the lowest row whose last mark is at least ``gap``
    to the left; when every row is taken, the row whose last mark is furthest left."""
    ends: list[float] = []
    rows = []
    for x in xs:
        row = next((k for k, end in enumerate(ends) if x - end >= gap), None)
        if row is None and len(ends) < max_rows:
            row = len(ends)
            ends.append(-math.inf)
        if row is None:
            row = min(range(len(ends)), key=lambda k: ends[k])
        ends[row] = x
        rows.append(row)
    return rows


def timeline_svg(lanes: Mapping[str, Sequence[Call]], *, titles: Mapping[str, str] | None = None,
                 title: str = "", width: int = TL_WIDTH) -> str:
    """A swimlane diagram of API requests: one lane per implementation (``lanes``: impl ->
    its Calls), time running right on one shared axis (seconds since each lane's first
    request). Each request is one ``<g class="mark ...">`` (classes ``write``/``read`` and
    ``failed`` for a refused one, ``data-impl``, ``data-code``, a ``<title>``): writes are
    numbered circles above the lane's line, reads small dots below it; marks that would
    overlap stack upwards (writes) or downwards (reads). A write is labelled
    ``verb resource name code`` beside its mark, or on a row above the marks joined to it by
    a leader line, where there is room (``_place_labels``)."""
    titles = titles or {}
    right = width - TL_RIGHT
    span = max([c.t for calls in lanes.values() for c in calls] or [0.0])
    ticks = nice_ticks(span if span > 0 else 0.001)
    axis_max = ticks[-1] if ticks[-1] > 0 else 0.001

    def x_of(t: float) -> float:
        return TL_LEFT + (right - TL_LEFT) * t / axis_max

    blocks: list[str] = []
    y = 8.0
    for li, (impl, calls) in enumerate(lanes.items()):
        writes = [c for c in calls if c.is_write]
        reads = [c for c in calls if not c.is_write]
        w_x = [x_of(c.t) for c in writes]
        r_x = [x_of(c.t) for c in reads]
        w_rows = _stack(w_x, 2 * TL_R + 1, TL_MAX_WRITE_ROWS)
        r_rows = _stack(r_x, 2 * TL_READ + 1, TL_MAX_READ_ROWS)
        labels = _place_labels(writes, w_x, w_rows, TL_LEFT, right)
        mark_rows = max(w_rows) + 1 if writes else 0
        band_rows = max([p[1] + 1 for p in labels if p and p[0] == "band"] or [0])
        above = max(mark_rows * TL_ROW + band_rows * TL_BAND + 16, 34)
        below = max((max(r_rows) + 1) * TL_READ_ROW + 10 if reads else 0, 26)
        top, base = y, y + above
        bottom = base + below

        def mark_y(row: int, base: float = base) -> float:
            return base - 12 - row * TL_ROW

        def band_y(row: int, base: float = base, mark_rows: int = mark_rows) -> float:
            return base - 12 - (mark_rows - 1) * TL_ROW - TL_R - 8 - row * TL_BAND

        colour = IMPL_COLOURS[li % len(IMPL_COLOURS)]
        refused = sum(1 for c in calls if c.failed)
        out = [f'<g class="lane" data-impl="{esc(impl)}">',
               f'<rect class="lane-bg{" alt" if li % 2 else ""}" x="0" y="{top:.1f}" '
               f'width="{width}" height="{bottom - top:.1f}"/>',
               f'<line class="lane-line" x1="{TL_LEFT}" y1="{base:.1f}" x2="{right}" y2="{base:.1f}"/>',
               f'<rect x="8" y="{base - 24:.1f}" width="4" height="44" fill="{colour}"/>',
               f'<text class="lane-title" x="18" y="{base - 10:.1f}">{esc(titles.get(impl, impl))}</text>',
               f'<text class="lane-sub" x="18" y="{base + 5:.1f}">{len(calls)} requests</text>',
               f'<text class="lane-sub" x="18" y="{base + 17:.1f}">{len(writes)} writes'
               + (f'<tspan class="refused">, {refused} refused</tspan>' if refused else "")
               + "</text>"]
        if not calls:
            out.append(f'<text class="lane-sub" x="{TL_LEFT + 8}" y="{base - 6:.1f}">'
                       "no requests recorded</text>")
        # reads: small dots below the line
        for c, x, row in zip(reads, r_x, r_rows, strict=True):
            cy = base + 7 + row * TL_READ_ROW
            failed = " failed" if c.failed else ""
            out.append(f'<g class="mark read{failed}" data-impl="{esc(impl)}" data-code="{c.code}">'
                       f"<title>{esc(c.label())} at {c.t:.3f} s</title>"
                       f'<circle class="dot read{failed}" cx="{x:.1f}" cy="{cy:.1f}" r="{TL_READ}"/></g>')
        # leader lines first, so that marks and labels are drawn over them
        for x, row, place in zip(w_x, w_rows, labels, strict=True):
            if place and place[0] == "band":
                out.append(f'<line class="leader" x1="{x:.1f}" y1="{mark_y(row) - TL_R:.1f}" '
                           f'x2="{x:.1f}" y2="{band_y(place[1]) + 2:.1f}"/>')
        # writes: numbered circles above the line, on stems
        for n, (c, x, row) in enumerate(zip(writes, w_x, w_rows, strict=True), start=1):
            cy = mark_y(row)
            failed = " failed" if c.failed else ""
            number = (f'<text class="num" x="{x:.1f}" y="{cy + 3.2:.1f}">{n}</text>'
                      if len(writes) < 100 else "")
            out.append(f'<g class="mark write{failed}" data-impl="{esc(impl)}" data-code="{c.code}">'
                       f"<title>#{n} {esc(c.label())} at {c.t:.3f} s</title>"
                       f'<line class="stem" x1="{x:.1f}" y1="{base:.1f}" x2="{x:.1f}" y2="{cy + TL_R:.1f}"/>'
                       f'<circle class="dot write{failed}" cx="{x:.1f}" cy="{cy:.1f}" r="{TL_R}"/>'
                       f"{number}</g>")
        for c, row, place in zip(writes, w_rows, labels, strict=True):
            if place is None:
                continue
            kind, label_row, anchor_, tx = place
            ty = (mark_y(row) + 3.5) if kind == "row" else band_y(label_row)
            out.append(f'<text class="wlabel{" failed" if c.failed else ""}" x="{tx:.1f}" '
                       f'y="{ty:.1f}" text-anchor="{anchor_}">{esc(c.label())}</text>')
        out.append("</g>")
        blocks.append("\n".join(out))
        y = bottom + 4
    # the shared time axis with grid lines through every lane
    axis_y = y + 4
    grid = []
    for t in ticks:
        x = x_of(t)
        grid.append(f'<line class="grid" x1="{x:.1f}" y1="8" x2="{x:.1f}" y2="{axis_y:.1f}"/>')
        grid.append(f'<text class="tick" x="{x:.1f}" y="{axis_y + 14:.1f}" text-anchor="middle">'
                    f"{_fmt_time(t, axis_max)}</text>")
    axis = (f'<line class="axis" x1="{TL_LEFT}" y1="{axis_y:.1f}" x2="{right}" y2="{axis_y:.1f}"/>'
            f'<text class="axis-title" x="{TL_LEFT}" y="{axis_y + 30:.1f}">time since the '
            "implementation's first request in this check</text>")
    height = axis_y + 38
    desc = "; ".join(f"{impl}: {len(calls)} requests, {sum(c.is_write for c in calls)} writes"
                     for impl, calls in lanes.items())
    label = f"API requests per implementation{': ' + title if title else ''}"
    return (f'<svg class="swimlane" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {width} {height:.0f}" width="100%" role="img" aria-label="{esc(label)}">'
            f"<title>API requests during {esc(title or 'the check')}</title><desc>{esc(desc)}</desc>"
            + "".join(grid) + "\n" + "\n".join(blocks) + axis + "</svg>")


#: Where a write's label goes: ("row", mark row, text-anchor, x) beside its mark, or
#: ("band", band row, text-anchor, x) on a row above all marks; None: no room.
LabelPlace = tuple[str, int, str, float] | None


def _place_labels(writes: Sequence[Call], xs: Sequence[float], rows: Sequence[int],
                  left: float, right: float) -> list[LabelPlace]:
    """Place each write's label (in x order) where it overlaps no mark and no other label:
    first beside its mark in the mark's row (right, else left), then, for a lane of at most
    ``TL_BAND_WRITES`` writes or a refused write, on the first of ``TL_MAX_BAND_ROWS`` rows
    above the marks (starting at the mark's x, else ending there). In a busier lane labels
    far from their marks would be harder to read than the numbered list beside the diagram."""
    taken: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for x, row in zip(xs, rows, strict=True):
        taken.setdefault(("row", row), []).append((x - TL_R - 1, x + TL_R + 1))

    def free(key: tuple[str, int], lo: float, hi: float, own: tuple[float, float] | None) -> bool:
        return lo >= left and hi <= right and all(
            b <= lo or hi <= a for a, b in taken.get(key, []) if (a, b) != own)

    places: list[LabelPlace] = []
    for call, x, row in zip(writes, xs, rows, strict=True):
        w = len(call.label()) * TL_CHAR
        own = (x - TL_R - 1, x + TL_R + 1)
        found: LabelPlace = None
        options = [("row", row, "start", x + TL_R + 3, x + TL_R + 3 + w),
                   ("row", row, "end", x - TL_R - 3, x - TL_R - 3 - w)]
        if len(writes) <= TL_BAND_WRITES or call.failed:
            options += [opt for b in range(TL_MAX_BAND_ROWS)
                        for opt in (("band", b, "start", x - 1, x - 1 + w),
                                    ("band", b, "end", x + 1, x + 1 - w))]
        for kind, r, anchor_, tx, other in options:
            lo, hi = min(tx, other) - 3, max(tx, other) + 3
            if free((kind, r), lo, hi, own if kind == "row" else None):
                taken.setdefault((kind, r), []).append((lo, hi))
                found = (kind, r, anchor_, tx)
                break
        places.append(found)
    return places


# --------------------------------------------------------------------------- bench
def _bench_section(bench: Bench) -> str:
    impls = bench.implementations
    machine = "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>"
                      for k, v in bench.machine.items())
    head = "".join(f'<th scope="col">{esc(i)}</th>' for i in impls)
    head += "".join(f'<th scope="col">{esc(r)}</th>' for r in bench.ratio_names)
    rows = []
    for row in bench.rows:
        cells = "".join(f'<td class="num">{esc(format_number(row.values.get(i), row.unit))}</td>'
                        for i in impls)
        for r in bench.ratio_names:
            ratio = row.ratios.get(r)
            cls = "" if ratio is None else (" worse" if ratio > 1.25 else " better" if ratio < 0.8 else "")
            text = "–" if ratio is None else f"{format_number(ratio)}×"
            cells += f'<td class="num ratio{cls}">{esc(text)}</td>'
        ideal = f' <span class="muted">({esc(row.ideal)})</span>' if row.ideal else ""
        rows.append(f'<tr><th scope="row">{esc(row.label)}{ideal}</th>{cells}</tr>')
    if any(bench.latency_samples.values()):
        about = ("the fraction of ModelServices converged (up) within a given time (right). "
                 "Further left is faster")
    else:
        about = "the median (p50) and the 95th percentile (p95). Shorter is faster"
    plots = [_figure("Convergence latency", latency_svg(bench),
                     f"Time from creating a ModelService to its converged status: {about}; "
                     "the gap between p50 and p95 is the tail.")]
    if any(bench.throughput.values()):
        plots.append(_figure("Throughput", throughput_svg(bench),
                             "N ModelServices created at once, time until all converged. A "
                             "straight line is linear scaling; a steeper one is a slower queue."))
    if bench.rss_mib:
        plots.append(_figure("Memory", rss_svg(bench),
                             "Peak resident set size of each operator process at N = 1000."))
    return (
        '<section id="bench">\n<h2>Benchmarks</h2>\n'
        '<p class="lede">Both implementations, one run, the same control plane (DESIGN.md '
        "section 8). Absolute figures belong to this machine; the ratios travel better. For "
        "every figure lower is better; a writes figure above its floor is wasted work.</p>\n"
        + (f'<dl class="machine">{machine}</dl>\n' if machine else "")
        + f'<table class="bench"><thead><tr><th scope="col">figure</th>{head}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>\n'
        f'<div class="plots">{"".join(plots)}</div>\n</section>'
    )


def _figure(title: str, svg: str, caption: str) -> str:
    return (f'<figure class="plot"><h3>{esc(title)}</h3>{svg}'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


_PW, _PH = 520, 300  # plot size (SVG units)
_PL, _PR, _PT, _PB = 58, 18, 16, 46  # margins


def _frame(x_max: float, y_max: float, x_label: str, y_label: str,
           x_fmt: Any = None, y_fmt: Any = None) -> tuple[list[str], Any, Any]:
    """Axes, ticks and grid of a plot; returns (svg parts, x scale, y scale)."""
    xt, yt = nice_ticks(x_max, 5), nice_ticks(y_max, 5)
    xm, ym = xt[-1] or 1.0, yt[-1] or 1.0

    def sx(v: float) -> float:
        return _PL + (_PW - _PL - _PR) * v / xm

    def sy(v: float) -> float:
        return _PH - _PB - (_PH - _PT - _PB) * v / ym

    fx = x_fmt or (lambda v: f"{v:g}")
    fy = y_fmt or (lambda v: f"{v:g}")
    parts = []
    for v in yt:
        parts.append(f'<line class="grid" x1="{_PL}" y1="{sy(v):.1f}" x2="{_PW - _PR}" y2="{sy(v):.1f}"/>'
                     f'<text class="tick" x="{_PL - 6}" y="{sy(v) + 4:.1f}" text-anchor="end">{esc(fy(v))}</text>')
    for v in xt:
        parts.append(f'<text class="tick" x="{sx(v):.1f}" y="{_PH - _PB + 16:.1f}" '
                     f'text-anchor="middle">{esc(fx(v))}</text>')
    parts.append(f'<line class="axis" x1="{_PL}" y1="{_PH - _PB}" x2="{_PW - _PR}" y2="{_PH - _PB}"/>'
                 f'<line class="axis" x1="{_PL}" y1="{_PT}" x2="{_PL}" y2="{_PH - _PB}"/>'
                 f'<text class="axis-title" x="{(_PL + _PW - _PR) / 2:.1f}" y="{_PH - 8}" '
                 f'text-anchor="middle">{esc(x_label)}</text>'
                 f'<text class="axis-title" transform="translate(14 {(_PT + _PH - _PB) / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle">{esc(y_label)}</text>')
    return parts, sx, sy


def _svg(parts: Sequence[str], label: str, height: int = _PH) -> str:
    return (f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_PW} {height}" '
            f'width="100%" role="img" aria-label="{esc(label)}"><title>{esc(label)}</title>'
            + "".join(parts) + "</svg>")


def _key(impls: Sequence[str], x: float = _PL + 12, y: float = _PT + 8) -> list[str]:
    out = []
    for k, impl in enumerate(impls):
        colour = IMPL_COLOURS[k % len(IMPL_COLOURS)]
        yy = y + k * 16
        out.append(f'<rect x="{x:.1f}" y="{yy:.1f}" width="12" height="4" fill="{colour}"/>'
                   f'<text class="key" x="{x + 18:.1f}" y="{yy + 6:.1f}">{esc(impl)}</text>')
    return out


def latency_svg(bench: Bench) -> str:
    """The latency distribution: an empirical CDF per implementation from the samples, with
    p50 and p95 marked; without samples, p50 and p95 as bars."""
    impls = bench.implementations
    if any(bench.latency_samples.values()):
        x_max = max(max(s) for s in bench.latency_samples.values() if s)
        parts, sx, sy = _frame(x_max, 1.0, "seconds to converged", "fraction converged",
                               y_fmt=lambda v: f"{v * 100:.0f}%")
        for k, impl in enumerate(impls):
            samples = bench.latency_samples.get(impl) or []
            if not samples:
                continue
            colour = IMPL_COLOURS[k % len(IMPL_COLOURS)]
            n = len(samples)
            d = f"M{sx(0):.1f},{sy(0):.1f}"
            for j, v in enumerate(samples):
                d += f" H{sx(v):.1f} V{sy((j + 1) / n):.1f}"
            parts.append(f'<path class="series" data-impl="{esc(impl)}" d="{d}" stroke="{colour}"/>')
            for q, value in zip(("p50", "p95"), bench.latency_pct.get(impl, (None, None)), strict=True):
                if value is None:
                    continue
                frac = 0.5 if q == "p50" else 0.95
                parts.append(f'<circle cx="{sx(value):.1f}" cy="{sy(frac):.1f}" r="3.5" fill="{colour}"/>'
                             f'<text class="point" x="{sx(value) + 6:.1f}" y="{sy(frac) + 12 + 12 * k:.1f}" '
                             f'fill="{colour}">{q} {format_number(value, "s")}</text>')
        parts += _key(impls, x=_PW - _PR - 110, y=_PT + 130)
        return _svg(parts, "convergence latency distribution per implementation")
    # no samples: p50 and p95 as bars
    bars = [(f"{impl} {q}", value, IMPL_COLOURS[k % len(IMPL_COLOURS)], q == "p50", impl)
            for k, impl in enumerate(impls)
            for q, value in zip(("p50", "p95"), bench.latency_pct.get(impl, (None, None)), strict=True)
            if value is not None]
    return _hbars(bars, "s", "seconds to converged", "convergence latency p50 and p95 per implementation")


def throughput_svg(bench: Bench) -> str:
    """Seconds until all N converged against N, one line per implementation."""
    impls = bench.implementations
    points = [p for series in bench.throughput.values() for p in series]
    parts, sx, sy = _frame(max(n for n, _ in points), max(s for _, s in points) * 1.08,
                           "N ModelServices created at once", "seconds until all converged")
    for k, impl in enumerate(impls):
        series = bench.throughput.get(impl) or []
        if not series:
            continue
        colour = IMPL_COLOURS[k % len(IMPL_COLOURS)]
        d = " ".join(f"{'M' if j == 0 else 'L'}{sx(n):.1f},{sy(s):.1f}" for j, (n, s) in enumerate(series))
        parts.append(f'<path class="series" data-impl="{esc(impl)}" d="{d}" stroke="{colour}"/>')
        for n, s in series:
            parts.append(f'<circle cx="{sx(n):.1f}" cy="{sy(s):.1f}" r="3.5" fill="{colour}"/>'
                         f'<text class="point" x="{sx(n) - 6:.1f}" y="{sy(s) - 7:.1f}" '
                         f'text-anchor="end" fill="{colour}">{format_number(s, "s")}</text>')
    parts += _key(impls)
    return _svg(parts, "time to converge N ModelServices per implementation")


def rss_svg(bench: Bench) -> str:
    """Peak RSS per implementation as horizontal bars."""
    bars = [(impl, bench.rss_mib[impl], IMPL_COLOURS[k % len(IMPL_COLOURS)], True, impl)
            for k, impl in enumerate(bench.implementations) if impl in bench.rss_mib]
    return _hbars(bars, "MiB", "peak RSS, MiB", "peak RSS per implementation")


def _hbars(bars: Sequence[tuple[str, float, str, bool, str]], unit: str, x_label: str,
           label: str) -> str:
    """Horizontal bars ``(label, value, colour, solid, implementation)`` on one value axis."""
    ticks = nice_ticks(max([b[1] for b in bars] or [1.0]), 4)
    left = 110
    scale = (_PW - _PR - 60 - left) / (ticks[-1] or 1.0)
    base_y = 14 + 32 * len(bars)
    parts = []
    for t in ticks:
        x = left + t * scale
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="8" x2="{x:.1f}" y2="{base_y:.1f}"/>'
                     f'<text class="tick" x="{x:.1f}" y="{base_y + 16:.1f}" text-anchor="middle">{t:g}</text>')
    for k, (text, value, colour, solid, impl) in enumerate(bars):
        yy = 12 + 32 * k
        parts.append(f'<text class="tick" x="{left - 8}" y="{yy + 15}" text-anchor="end">{esc(text)}</text>'
                     f'<rect class="bar" data-impl="{esc(impl)}" x="{left}" y="{yy}" '
                     f'width="{value * scale:.1f}" height="22" fill="{colour}" '
                     f'fill-opacity="{1 if solid else 0.55}"/>'
                     f'<text class="point" x="{left + value * scale + 6:.1f}" y="{yy + 15}">'
                     f"{esc(format_number(value, unit))}</text>")
    parts.append(f'<line class="axis" x1="{left}" y1="{base_y:.1f}" x2="{_PW - _PR}" y2="{base_y:.1f}"/>'
                 f'<text class="axis-title" x="{(left + _PW - _PR) / 2:.1f}" y="{base_y + 34:.1f}" '
                 f'text-anchor="middle">{esc(x_label)}</text>')
    return _svg(parts, label, base_y + 44)


# --------------------------------------------------------------------------- mutants
def _mutants_section(report: Report, matrix: KillMatrix) -> str:
    present = {c.id for c in report.checks}
    idle = set(matrix.idle_checks)
    head = "".join(
        f'<th scope="col" class="rot{" idle" if c in idle else ""}"><span>'
        + (f'<a href="#{anchor(c)}">{esc(c)}</a>' if c in present else esc(c))
        + "</span></th>" for c in matrix.checks)
    rows = []
    for m in matrix.mutants:
        cells = []
        for c in matrix.checks:
            if c not in m.killed_by:
                cells.append("<td></td>")
                continue
            cases = m.cases.get(c) or []
            more = f' <span class="n">{len(cases)}</span>' if len(cases) > 1 else ""
            title = "killed" + (f" by {', '.join(cases)}" if cases else "")
            cells.append(f'<td class="hit" title="{esc(title)}">●{more}</td>')
        if not m.ran:
            outcome = '<td class="outcome survived">did not run</td>'
        elif m.survived:
            outcome = '<td class="outcome survived">survived</td>'
        else:
            outcome = f'<td class="outcome killed">killed by {len(m.killed_by)}</td>'
        rows.append(f'<tr class="{"survived" if m.survived else "killed"}"><th scope="row">'
                    f'<code>{esc(m.name)}</code><span class="doc">{esc(m.doc)}</span></th>'
                    f'{"".join(cells)}{outcome}</tr>')
    survivors = [m.name for m in matrix.mutants if m.survived]
    killed = len(matrix.mutants) - len(survivors)
    summary = f"{killed} of {len(matrix.mutants)} mutants killed."
    survived = [m.name for m in matrix.mutants if m.survived and m.ran]
    not_run = [m.name for m in matrix.mutants if not m.ran]
    if survived:
        summary += (" Survived: " + ", ".join(f"<code>{esc(s)}</code>" for s in survived)
                    + ": no check caught what they break, a gap in the suite.")
    if not_run:
        summary += (" Did not run (so nothing could catch them): "
                    + ", ".join(f"<code>{esc(s)}</code>" for s in not_run) + ".")
    if idle:
        summary += (" Checks that caught no mutant: "
                    + ", ".join(f"<code>{esc(c)}</code>" for c in matrix.idle_checks) + ".")
    bad = bool(survivors or idle)
    return (
        '<section id="mutants">\n<h2>Mutants: does the suite catch broken controllers?</h2>\n'
        '<p class="lede">A suite is only as good as what it catches. Each mutant is the operator '
        "with one deliberate, realistic mistake; a dot means that check failed against it (the "
        "mutant was killed; a number: how many cases of the check did). Every mutant should be "
        "killed by at least one check, and every check should kill at least one mutant.</p>\n"
        f'<p class="verdict {"bad" if bad else "ok"}">{summary}</p>\n'
        f'<div class="scroll"><table class="matrix"><thead><tr><th scope="col">mutant</th>{head}'
        f'<th scope="col">verdict</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>\n'
        "</section>"
    )


# --------------------------------------------------------------------------- RBAC ablation
def _ablation_section(report: Report, ablation: Ablation) -> str:
    present = {c.id for c in report.checks}

    def check_link(check: str) -> str:
        return (f'<a href="#{anchor(check)}"><code>{esc(check)}</code></a>' if check in present
                else f"<code>{esc(check)}</code>")

    rows = []
    for r in ablation.rights:
        if r.needed_by:
            shown = "<br>".join(f"{check_link(c)} <span class=\"n\">{esc(', '.join(i))}</span>"
                                for c, i in r.needed_by.items())
        elif r.status == "pending":
            shown = f"pending: {esc(r.pending)}"
        else:
            shown = f"<b>{esc(r.status)}</b>"
        refused = "<br>".join(f"<code>{esc(x)}</code>" for x in r.refusals)
        cls = "killed" if r.needed_by else "pending" if r.status == "pending" else "survived"
        rows.append(f'<tr class="{cls}"><th scope="row"><code>{esc(r.unit)}</code></th>'
                    f"<td>{shown}</td><td>{refused}</td></tr>")
    needed = sum(1 for r in ablation.rights if r.status == "needed")
    pending = sum(1 for r in ablation.rights if r.status == "pending")
    summary = f"{needed} of {len(ablation.rights)} rights shown needed"
    summary += f", {pending} pending." if pending else "."
    if ablation.unneeded:
        summary += (" Needed by nothing, to remove from role.yaml: "
                    + ", ".join(f"<code>{esc(u)}</code>" for u in ablation.unneeded) + ".")
    for line in ablation.uncovered:
        summary += f" A need no rule covers: {esc(line)}."
    subset = " (CI subset)" if ablation.subset == "ci" else ""
    return (
        '<section id="rbac-ablation">\n<h2>RBAC ablation: is every right the operator holds '
        "needed?</h2>\n"
        '<p class="lede">The operator runs with only the rights in <code>config/rbac/role.yaml'
        "</code>. Each right (API group, resource, verb) is taken away in turn and checks run "
        "again; a right counts as needed when a check then fails and the audit log shows the "
        "operator refused (403) for want of it. Rights nothing needs are attack surface: they "
        f"go. Implementations: {esc(', '.join(ablation.implementations))}{subset}.</p>\n"
        f'<p class="verdict {"ok" if ablation.ok else "bad"}">{summary}</p>\n'
        '<div class="scroll"><table class="matrix ablation"><thead><tr><th scope="col">right'
        '</th><th scope="col">checks that failed without it</th><th scope="col">refused '
        f'(audit log)</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>\n'
        "</section>"
    )


# --------------------------------------------------------------------------- style
CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --soft:#f6f8fa; --pass:#1a7f37;
  --pass-bg:#dafbe1; --fail:#cf222e; --fail-bg:#ffebe9; --skip:#59636e; --skip-bg:#eff2f5;
  --miss:#9a6700; --miss-bg:#fff8c5; --write:#0969da; --read:#8c959f; --diff:#fff8c5;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin:0; color:var(--fg); background:#fff;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", "Helvetica Neue", "DejaVu Sans", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 28px 32px 80px; }
h1 { font-size: 28px; line-height: 1.25; margin: 4px 0 12px; }
h2 { font-size: 22px; margin: 0 0 10px; }
h3 { font-size: 16px; margin: 18px 0 8px; }
h4 { font-size: 14px; margin: 0 0 6px; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
a { color: #0550ae; }
section { margin-top: 36px; }
.muted { color: var(--muted); font-weight: normal; }
.kicker { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: var(--muted); margin: 0; }
.lede { max-width: 78ch; color: #31373d; }
.impl { border-bottom: 3px solid var(--c); padding-bottom: 1px; font-weight: 600; }
.verdict { display: inline-block; padding: 6px 12px; border-radius: 6px; font-weight: 600; margin: 4px 0; }
.verdict.ok { background: var(--pass-bg); color: var(--pass); }
.verdict.bad { background: var(--fail-bg); color: var(--fail); }
.runs { color: var(--muted); font-size: 13px; margin: 8px 0; padding-left: 18px; }
nav { border-top: 1px solid var(--line); border-bottom: 1px solid var(--line); padding: 8px 0;
  margin-top: 12px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
nav button { margin-left: auto; font: inherit; font-size: 13px; padding: 3px 10px; border: 1px solid var(--line);
  border-radius: 6px; background: var(--soft); cursor: pointer; }
.badge { display: inline-block; font: 700 11px/1 var(--mono); letter-spacing: .04em; padding: 4px 6px;
  border-radius: 4px; vertical-align: 1px; }
.badge.pass { background: var(--pass-bg); color: var(--pass); }
.badge.fail { background: var(--fail); color: #fff; }
.badge.skip { background: var(--skip-bg); color: var(--skip); }
.badge.missing { background: var(--miss-bg); color: var(--miss); }
table { border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; }
table.summary { width: 100%; font-size: 14px; }
table.summary th, table.summary td { border-bottom: 1px solid var(--line); padding: 8px 10px; }
table.summary thead th { border-bottom: 2px solid var(--fg); font-size: 14px; }
table.summary thead .title { display: block; font-weight: normal; color: var(--muted); font-size: 12px; }
table.summary tbody th a { font-weight: 600; text-decoration: none; }
table.summary tbody th { width: 30%; } table.summary tbody th code { white-space: nowrap; }
table.summary .why { display: block; font-weight: normal; color: var(--muted); font-size: 13px; max-width: 46ch; }
table.summary td.cell.fail { background: #fff5f5; }
table.summary td span { margin-left: 6px; }
table.summary td .reqs, table.summary td .key { display: block; margin: 3px 0 0; color: var(--muted); font-size: 12.5px; }
table.summary td .key code { font-size: 11.5px; }
td.writes { font-size: 13px; white-space: nowrap; }
td.writes.same { color: var(--pass); }
td.writes.same::before { content: "✓ "; }
td.writes.differ { color: var(--miss); font-weight: 600; }
td.writes.differ::before { content: "≠ "; }
.refused { color: var(--fail); }
.howto { background: var(--soft); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; }
.howto h2 { font-size: 17px; }
.howto p { margin: 6px 0; max-width: 100ch; }
svg.swatch { vertical-align: -2px; }
section.check { border-top: 3px solid var(--fg); padding-top: 14px; margin-top: 44px; }
section.check h2 code { font-size: 21px; }
.pills { font-size: 13px; font-weight: normal; margin-left: 8px; }
.pill { margin-right: 10px; color: var(--muted); }
.why-full { font-size: 16px; font-weight: 600; max-width: 90ch; margin: 6px 0; }
.teaches { max-width: 90ch; margin: 6px 0 10px; color: #31373d; }
.label { display: inline-block; font: 700 10.5px/1.6 var(--mono); text-transform: uppercase; letter-spacing: .06em;
  color: var(--muted); border: 1px solid var(--line); border-radius: 3px; padding: 0 5px; margin-right: 6px; vertical-align: 2px; }
.kills { font-size: 14px; color: var(--muted); }
.results { display: grid; grid-template-columns: repeat(var(--n), minmax(0, 1fr)); gap: 16px; margin: 12px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px 12px; background: #fff; min-width: 0; }
.card.fail { border-color: var(--fail); box-shadow: inset 4px 0 0 var(--fail); }
.card-head { display: flex; gap: 10px; align-items: baseline; margin-bottom: 6px; font-size: 15px; }
.card-head .time { margin-left: auto; color: var(--muted); font-size: 13px; }
pre.failure { background: var(--fail-bg); color: #82071e; border-radius: 6px; padding: 8px 10px; margin: 6px 0; }
pre.trace { background: var(--soft); padding: 8px; border-radius: 6px; max-height: 420px; overflow: auto; font-size: 11.5px; }
.artifacts { font-size: 13px; margin: 4px 0; }
.skip-reason { color: var(--skip); font-style: italic; }
table.evidence { width: 100%; font-size: 13px; margin-top: 6px; }
table.evidence caption { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); padding-bottom: 2px; }
table.evidence th { font-family: var(--mono); font-weight: normal; font-size: 12px; color: #31373d;
  width: 38%; padding: 4px 8px 4px 0; border-top: 1px solid #eaeef2; word-break: break-word; }
table.evidence td { padding: 4px 0; border-top: 1px solid #eaeef2; min-width: 0; word-break: break-word; }
table.evidence code.v { white-space: pre-wrap; word-break: break-word; font-size: 12px; }
table.evidence pre { background: var(--soft); padding: 6px 8px; border-radius: 4px; font-size: 12px; }
table.evidence.premise { opacity: .8; }
table.evidence.premise caption { text-transform: none; letter-spacing: 0; }
details.ev summary { cursor: pointer; }
details.ev[open] summary { margin-bottom: 4px; }
.api { margin-top: 8px; }
.api h3 { margin-top: 14px; }
.stats { font-size: 13.5px; margin: 4px 0 6px; }
figure { margin: 0; }
figure.timeline { border: 1px solid var(--line); border-radius: 8px; padding: 6px 8px 4px; }
figure.timeline figcaption { font-size: 12.5px; color: var(--muted); padding: 2px 6px 4px; }
svg text { font-family: var(--mono); }
svg .lane-bg { fill: #fff; } svg .lane-bg.alt { fill: #f8fafc; }
svg .lane-line { stroke: #57606a; stroke-width: 1.2; }
svg .lane-title { font: 700 13px system-ui, "DejaVu Sans", sans-serif; fill: var(--fg); }
svg .lane-sub { font-size: 10.5px; fill: var(--muted); } svg .lane-sub .refused { fill: var(--fail); }
svg .grid { stroke: #e4e8ec; stroke-width: 1; }
svg .axis { stroke: #57606a; stroke-width: 1; }
svg .tick { font-size: 11px; fill: var(--muted); }
svg .axis-title { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: var(--muted); }
svg .dot.write { fill: var(--write); stroke: #fff; stroke-width: 1; }
svg .dot.read { fill: var(--read); }
svg .dot.failed { fill: var(--fail); }
svg .stem { stroke: #9ab7dd; stroke-width: 1; }
svg .leader { stroke: #8c959f; stroke-width: 0.8; }
svg .failed .stem { stroke: #f0a3a8; }
svg .num { font: 700 8.5px var(--mono); fill: #fff; text-anchor: middle; pointer-events: none; }
svg .wlabel { font-size: 11px; fill: #24292f; paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
svg .wlabel.failed { fill: var(--fail); font-weight: 700; }
svg .mark:hover .dot { stroke: #000; stroke-width: 1.5; }
.side { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 18px; margin-top: 12px; align-items: start; }
table.aligned, table.counts { width: 100%; font: 12px/1.4 var(--mono); }
table.aligned th, table.counts th, table.aligned td, table.counts td { padding: 3px 8px; border-bottom: 1px solid #eaeef2; }
table.aligned thead th, table.counts thead th { font-family: system-ui, "DejaVu Sans", sans-serif; font-size: 12.5px; border-bottom: 1px solid var(--fg); }
table.aligned td { width: 50%; }
table.aligned .n { display: inline-block; min-width: 20px; height: 16px; line-height: 16px; margin-right: 6px; border-radius: 8px;
  background: var(--write); color: #fff; text-align: center; font-size: 10px; font-weight: 700; padding: 0 4px; }
table.aligned td.refused .n { background: var(--fail); }
table.aligned td.refused { color: var(--fail); }
table.aligned td.none { color: var(--muted); text-align: center; }
tr.diff td, tr.diff th { background: var(--diff); }
.diff-note { color: var(--miss); font-weight: 600; }
table.counts td { text-align: right; width: 14%; }
table.counts tbody th { font-weight: normal; }
dl.machine { display: flex; flex-wrap: wrap; gap: 4px 20px; font-size: 13px; margin: 8px 0 14px; }
dl.machine div { display: flex; gap: 6px; } dl.machine dt { color: var(--muted); } dl.machine dd { margin: 0; }
table.bench { font-size: 14px; min-width: 60%; }
table.bench th, table.bench td { padding: 6px 12px; border-bottom: 1px solid var(--line); }
table.bench thead th { border-bottom: 2px solid var(--fg); }
table.bench td.num { text-align: right; font-family: var(--mono); font-size: 13px; }
table.bench tbody th { font-weight: normal; }
td.ratio { font-weight: 700; } td.ratio.worse { color: #9a3412; } td.ratio.better { color: var(--pass); }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 18px; margin-top: 18px; }
figure.plot { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px 10px; }
figure.plot h3 { margin: 2px 0 4px; font-size: 15px; }
figure.plot figcaption { font-size: 12.5px; color: var(--muted); }
svg .series { fill: none; stroke-width: 2.2; }
svg .point { font-size: 11.5px; fill: #24292f; paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
svg .key { font: 12px system-ui, "DejaVu Sans", sans-serif; fill: var(--fg); }
.scroll { overflow-x: auto; }
table.matrix { font-size: 13px; }
table.matrix th, table.matrix td { border-bottom: 1px solid var(--line); padding: 6px 8px; }
table.matrix tbody th { max-width: 420px; font-weight: normal; }
table.matrix tbody th code { font-weight: 700; font-size: 13px; }
table.matrix .doc { display: block; color: var(--muted); font-size: 12.5px; }
table.matrix thead th { vertical-align: bottom; }
table.matrix th.rot { padding: 4px 2px; }
table.matrix th.rot span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font: 12px var(--mono); }
table.matrix th.rot a { text-decoration: none; }
table.matrix td.hit { text-align: center; color: var(--pass); font-size: 16px; background: #f0fbf3; white-space: nowrap; }
table.matrix td.hit .n { font-size: 10px; vertical-align: super; }
table.matrix th.idle span { color: var(--fail); }
table.matrix td.outcome { white-space: nowrap; font-weight: 600; }
table.matrix td.outcome.killed { color: var(--pass); }
table.matrix tr.survived th, table.matrix tr.survived td { background: var(--fail-bg); }
table.matrix td.outcome.survived { color: var(--fail); text-transform: uppercase; }
@media (max-width: 900px) { .results, .side { grid-template-columns: minmax(0, 1fr); } main { padding: 16px; } }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  .noprint, nav button { display: none; }
  nav { display: none; }
  a { color: inherit; text-decoration: none; }
  section.check { break-before: page; border-top: none; margin-top: 0; }
  figure, table.summary tr, .card, table.aligned tr, table.counts tr, table.bench, table.matrix tr { break-inside: avoid; }
  h2, h3, h4 { break-after: avoid; }
  .results { grid-template-columns: repeat(var(--n), minmax(0, 1fr)); }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  pre.trace { max-height: none; overflow: visible; }
}
"""

SCRIPT = """
(function () {
  var all = function () { return document.querySelectorAll('details.ev'); };
  var button = document.getElementById('toggle-all');
  var opened = [];
  if (button) button.addEventListener('click', function () {
    var open = button.dataset.open !== '1';
    all().forEach(function (d) { d.open = open; });
    button.dataset.open = open ? '1' : '0';
    button.textContent = open ? 'collapse all evidence' : 'expand all evidence';
  });
  window.addEventListener('beforeprint', function () {
    opened = [];
    all().forEach(function (d) { if (!d.open) { d.open = true; opened.push(d); } });
  });
  window.addEventListener('afterprint', function () {
    opened.forEach(function (d) { d.open = false; });
  });
})();
"""
