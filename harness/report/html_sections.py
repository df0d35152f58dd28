"""The optional sections of the HTML report: benchmarks, mutants, RBAC ablation, exploration;
and the body of the tiers page (``tiers_section``).

Each takes its part of the model (``harness.report.model.Bench``, ``KillMatrix``,
``Ablation``; ``harness.report.exploration.Exploration``) and returns one ``<section>`` of the page as a string; ``harness.report.html``
puts them after the checks when their data is there. ``anchor`` is the page anchor of a
check, which these sections link to.
"""

from __future__ import annotations

import datetime
import re

from harness.i18n import label as ui_label
from harness.i18n import tr
from harness.report.bench_scaling import WORKER_FIGURES, Scaling, scaling_note
from harness.report.exploration import (
    EXPLAINED,
    VARIANTS,
    WHOLE_RUN,
    Exploration,
    ExploreImpl,
    case_id,
)
from harness.report.html_svg import (
    esc,
    latency_svg,
    rss_svg,
    scaling_svg,
    throughput_svg,
)
from harness.report.matrices import Ablation, KillMatrix
from harness.report.model import Bench, Report, Result, format_number
from harness.report.mutation_score import HEADER, INTRO, MutationScore
from harness.report.svg_split import split_svg
from harness.report.teaching import GLOSSARY, INTRODUCTION, LESSON_NOT_MADE
from harness.report.tiers import TierComparison


def anchor(check_id: str) -> str:
    """The page anchor of a check, e.g. ``check-watch-recovers-cut``."""
    return "check-" + re.sub(r"[^a-z0-9]+", "-", check_id.lower()).strip("-")


# --------------------------------------------------------------------------- bench
def bench_section(bench: Bench, scaling: Scaling | None = None) -> str:
    """The benchmarks section (``id="bench"``): the machine, a table of every figure per
    implementation with the ratios, the latency, throughput and memory plots, and with
    ``scaling`` the floor and worker scaling (``scaling_section``)."""
    impls = bench.implementations
    machine = "".join(
        f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in bench.machine.items()
    )
    head = "".join(f'<th scope="col">{esc(i)}</th>' for i in impls)
    head += "".join(f'<th scope="col">{esc(r)}</th>' for r in bench.ratio_names)
    rows = []
    for row in bench.rows:
        cells = "".join(
            f'<td class="num">{esc(format_number(row.values.get(i), row.unit))}</td>' for i in impls
        )
        for r in bench.ratio_names:
            ratio = row.ratios.get(r)
            cls = (
                ""
                if ratio is None
                else (" worse" if ratio > 1.25 else " better" if ratio < 0.8 else "")
            )
            text = "–" if ratio is None else f"{format_number(ratio)}×"
            cells += f'<td class="num ratio{cls}">{esc(text)}</td>'
        ideal = f' <span class="muted">({esc(row.ideal)})</span>' if row.ideal else ""
        rows.append(f'<tr><th scope="row">{esc(row.label)}{ideal}</th>{cells}</tr>')
    if any(bench.latency_samples.values()):
        about = (
            "the fraction of ModelServices converged (up) within a given time (right). "
            "Further left is faster"
        )
    else:
        about = "the median (p50) and the 95th percentile (p95). Shorter is faster"
    plots = [
        _figure(
            "Convergence latency",
            latency_svg(bench),
            f"Time from creating a ModelService to its converged status: {about}; "
            "the gap between p50 and p95 is the tail.",
        )
    ]
    if any(bench.throughput.values()):
        plots.append(
            _figure(
                "Throughput",
                throughput_svg(bench, scaling),
                "N ModelServices created at once, time until all converged (the median of "
                "the runs; a bar, where there is one, from the fastest run to the slowest). A "
                "straight line is linear scaling; a steeper one is a slower queue.",
            )
        )
    if bench.rss_mib:
        plots.append(
            _figure(
                "Memory",
                rss_svg(bench),
                "Peak resident set size of each operator process at N = 1000.",
            )
        )
    return (
        '<section id="bench">\n<h2>Benchmarks</h2>\n'
        '<p class="lede">Both implementations, one run, the same control plane '
        "(docs/design.md, “Measurements”). Absolute figures belong to this machine; the ratios travel better. For "
        "every figure lower is better; a writes figure above its floor is wasted work.</p>\n"
        + (f'<dl class="machine">{machine}</dl>\n' if machine else "")
        + f'<table class="bench"><thead><tr><th scope="col">figure</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>\n"
        f'<div class="plots">{"".join(plots)}</div>\n'
        + scaling_section(bench, scaling)
        + "</section>"
    )


def scaling_section(bench: Bench, sc: Scaling | None) -> str:
    """The floor and worker scaling (``id="bench-scaling"``): the note, a table per worker
    count and who, and the plots of time, CPU, latency under load and the CPU split. "" when
    bench.json has neither."""
    if sc is None:
        return ""
    note = "".join(f"<p>{esc(line)}</p>" for line in scaling_note(sc, bench.implementations))
    head = "".join(f'<th scope="col">{esc(label)}</th>' for _, label, _ in WORKER_FIGURES)
    rows = []
    for w in sc.worker_counts:
        for who in sc.who:
            fig = (sc.workers.get(who) or {}).get(w)
            if fig is None:
                continue
            cells = "".join(
                f'<td class="num">{esc(format_number(fig.get(k), unit))}</td>'
                for k, _, unit in WORKER_FIGURES
            )
            r = 1.0 if who == "floor" else sc.worker_ratios.get(who, {}).get(w)
            split = (sc.splits_w.get(who) or {}).get(w) or {}
            rows.append(
                f'<tr><th scope="row">{esc(who)} ×{w}</th>{cells}'
                f'<td class="num ratio">{esc("–" if r is None else format_number(r) + "×")}</td>'
                f'<td title="{esc(split.get("why", ""))}">{esc(split.get("limited_by", "–"))}</td></tr>'
            )
    table = (
        (
            f'<table class="bench"><thead><tr><th scope="col">who × workers</th>{head}'
            '<th scope="col">× floor</th><th scope="col">limited by</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>\n"
        )
        if rows
        else ""
    )
    plots = []
    for key, label, caption in (
        (
            "throughput_s",
            "seconds until all converged",
            "N ModelServices created at once with 1, 4, 16 workers; the floor dashed: the same "
            "writes with no informer and no queue; bars from the fastest run to the slowest. "
            "Flat from one count to the next: more workers bought nothing.",
        ),
        (
            "cpu_s",
            "operator CPU seconds",
            "CPU seconds of the operator process (the floor: its writer threads) from the first "
            "create to the last converged.",
        ),
        (
            "latency_p95_s",
            "seconds, p95",
            "One change (spec.replicas of a probe ModelService) under that load: p95 of change "
            "sent to converged.",
        ),
    ):
        svg = scaling_svg(bench, sc, key, label)
        if svg:
            plots.append(_figure(label[0].upper() + label[1:] + " by workers", svg, caption))
    svg = split_svg(sc)
    if svg:
        plots.append(
            _figure(
                "Where the time went",
                svg,
                "Cores each process kept busy on average during each scaling run "
                "(its CPU seconds over the run's wall seconds); the label is what "
                "limited the run by the bench's rule (settings.time_split).",
            )
        )
    return (
        '<h3 id="bench-scaling">The floor and worker scaling</h3>\n'
        f'<div class="note">{note}</div>\n{table}'
        f'<div class="plots">{"".join(plots)}</div>\n'
    )


def _figure(title: str, svg: str, caption: str) -> str:
    return (
        f'<figure class="plot"><h3>{esc(title)}</h3>{svg}'
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


# --------------------------------------------------------------------------- mutants
def mutants_section(report: Report, matrix: KillMatrix) -> str:
    """The mutants section (``id="mutants"``): the kill matrix, mutant x check, linking each
    check present in ``report`` to its section, and a verdict naming survivors and idle checks."""
    present = {c.id for c in report.checks}
    idle = set(matrix.idle_checks)
    head = "".join(
        f'<th scope="col" class="rot{" idle" if c in idle else ""}"><span>'
        + (f'<a href="#{anchor(c)}">{esc(c)}</a>' if c in present else esc(c))
        + "</span></th>"
        for c in matrix.checks
    )
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
        rows.append(
            f'<tr class="{"survived" if m.survived else "killed"}"><th scope="row">'
            f'<code>{esc(m.name)}</code><span class="doc">{esc(m.doc)}</span></th>'
            f"{''.join(cells)}{outcome}</tr>"
        )
    survivors = [m.name for m in matrix.mutants if m.survived]
    killed = len(matrix.mutants) - len(survivors)
    summary = f"{killed} of {len(matrix.mutants)} mutants killed."
    survived = [m.name for m in matrix.mutants if m.survived and m.ran]
    not_run = [m.name for m in matrix.mutants if not m.ran]
    if survived:
        summary += (
            " Survived: "
            + ", ".join(f"<code>{esc(s)}</code>" for s in survived)
            + ": no check caught what they break, a gap in the suite."
        )
    if not_run:
        summary += (
            " Did not run (so nothing could catch them): "
            + ", ".join(f"<code>{esc(s)}</code>" for s in not_run)
            + "."
        )
    if idle:
        summary += (
            " Checks that caught no mutant: "
            + ", ".join(f"<code>{esc(c)}</code>" for c in matrix.idle_checks)
            + "."
        )
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
def ablation_section(report: Report, ablation: Ablation) -> str:
    """The RBAC ablation section (``id="rbac-ablation"``): per right of the operator's role, the
    checks that failed without it (linked when present in ``report``) and the 403s refused."""
    present = {c.id for c in report.checks}

    def check_link(check: str) -> str:
        return (
            f'<a href="#{anchor(check)}"><code>{esc(check)}</code></a>'
            if check in present
            else f"<code>{esc(check)}</code>"
        )

    rows = []
    for r in ablation.rights:
        if r.needed_by:
            shown = "<br>".join(
                f'{check_link(c)} <span class="n">{esc(", ".join(i))}</span>'
                for c, i in r.needed_by.items()
            )
        elif r.status == "pending":
            shown = f"pending: {esc(r.pending)}"
        else:
            shown = f"<b>{esc(r.status)}</b>"
        refused = "<br>".join(f"<code>{esc(x)}</code>" for x in r.refusals)
        cls = "killed" if r.needed_by else "pending" if r.status == "pending" else "survived"
        rows.append(
            f'<tr class="{cls}"><th scope="row"><code>{esc(r.unit)}</code></th>'
            f"<td>{shown}</td><td>{refused}</td></tr>"
        )
    needed = sum(1 for r in ablation.rights if r.status == "needed")
    pending = sum(1 for r in ablation.rights if r.status == "pending")
    summary = f"{needed} of {len(ablation.rights)} rights shown needed"
    summary += f", {pending} pending." if pending else "."
    if ablation.unneeded:
        summary += (
            " Needed by nothing, to remove from role.yaml: "
            + ", ".join(f"<code>{esc(u)}</code>" for u in ablation.unneeded)
            + "."
        )
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
        f"(audit log)</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>\n"
        "</section>"
    )


# --------------------------------------------------------------------------- exploration
_CELL = {
    "passed": ("✓", "pass", "survived: the end state equalled the clean run's"),
    "failed": ("✗", "fail", "did not survive: the oracle failed"),
    "error": ("E", "error", "harness error: not judged"),
    "skipped": ("·", "skip", "boundary not reached in that run"),
}


def _explore_cell(m: ExploreImpl, scenario: str, pert: str, what: str) -> str:
    outcome = m.outcome(scenario, pert)
    if not outcome:
        return '<td class="xc none"></td>'
    mark, cls, said = _CELL.get(outcome, (outcome, "skip", outcome))
    failure = m.failure(scenario, pert)
    if failure is not None and failure.message:
        said += f": {failure.message}"
    title = f"{case_id(scenario, pert)}, {what}: {said}"
    return f'<td class="xc {cls}" title="{esc(title)}">{mark}</td>'


def _explore_matrix(m: ExploreImpl) -> str:
    kmax = m.kmax
    top = "".join(
        f'<th scope="colgroup" colspan="{len(VARIANTS)}">k={k}</th>' for k in range(1, kmax + 1)
    )
    sub = "".join(
        f'<th scope="col" class="v">{esc(title)}</th>' for _ in range(kmax) for _, title in VARIANTS
    )
    rest = "".join(f'<th scope="col" rowspan="2">{esc(title)}</th>' for _, title in WHOLE_RUN)
    rows = []
    for scenario, writes in m.clean_writes.items():
        cells = []
        for k in range(1, kmax + 1):
            write = writes[k - 1] if k <= len(writes) else ""
            for v, title in VARIANTS:
                what = f"crash after write {k}" if v != "conflict" else f"409 for write {k}"
                what += f" ({write})" if write else ""
                what += f", answer {title}" if v != "conflict" else ""
                cells.append(_explore_cell(m, scenario, f"write-{k}-{v}", what))
        cells += [_explore_cell(m, scenario, pert, title) for pert, title in WHOLE_RUN]
        clean = "\n".join(f"{i}. {w}" for i, w in enumerate(writes, 1))
        rows.append(
            f'<tr><th scope="row"><code>{esc(scenario)}</code></th>'
            f'<td class="num" title="{esc(clean)}">{len(writes)}</td>{"".join(cells)}</tr>'
        )
    return (
        '<div class="scroll"><table class="matrix explore"><thead>'
        '<tr><th scope="col" rowspan="2">scenario</th><th scope="col" rowspan="2">clean '
        f"writes</th>{top}{rest}</tr><tr>{sub}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _explore_failures(m: ExploreImpl) -> str:
    if not m.failures:
        return ""
    items = []
    for f in m.failures:
        badge = (
            '<span class="badge fail">ERROR</span>'
            if f.outcome == "error"
            else ('<span class="badge fail">FAIL</span>')
        )
        said = esc(f.message) if f.message else '<span class="muted">no message recorded</span>'
        details = (
            f'<details class="ev"><summary>every problem and the writes</summary>'
            f"<pre>{esc(f.details)}</pre></details>"
            if f.details
            else ""
        )
        items.append(f"<li><code>{esc(f.case)}</code> {badge} {said}{details}</li>")
    return (
        f"<h4>Did not survive ({len(m.failures)}): what the oracle said</h4>"
        f'<ul class="explore-failures">{"".join(items)}</ul>'
    )


def explore_section(model: Exploration) -> str:
    """The exploration section (``id="explore"``): what exploration proves, then per
    implementation the matrix, scenario x perturbation (per write boundary k: answer
    withheld, delivered, 409; then stale view, coalesced; hover a cell for the case id, the
    write it crashed after and what the oracle said), the failed cases with the oracle's
    message, and the exploration-only mutants."""
    paras = "".join(
        f'<p class="{"lede" if i == 0 else "muted" if i == len(EXPLAINED) - 1 else "note"}">'
        f"{esc(p)}</p>"
        for i, p in enumerate(EXPLAINED)
    )
    verdicts = "; ".join(
        f"{esc(m.impl)}: {m.survived} of {m.cases} cases survived" for m in model.implementations
    )
    bad = any(m.failures for m in model.implementations) or any(
        not mu.killed for mu in model.mutants
    )
    parts = [
        '<section id="explore">',
        "<h2>Exploration: a crash at every write boundary</h2>",
        paras,
        f'<p class="verdict {"bad" if bad else "ok"}">{verdicts or "no implementation explored"}.</p>',
        '<p class="muted">Per write boundary k, three cells: the operator SIGKILLed right after its '
        "k-th write with the answer withheld, with it delivered, and the write answered 409. "
        "✓ survived, ✗ the oracle failed, E harness error, · boundary not reached in that run, "
        "blank: not run. Hover a cell for the case, the write and what the oracle said; hover "
        "a scenario's write count for its clean run's writes.</p>",
    ]
    for m in model.implementations:
        parts.append(
            f'<h3>{esc(m.impl)} <span class="muted">{m.survived} of {m.cases} survived · '
            f"{m.boundaries} write boundaries · {m.seconds:.0f} s</span></h3>"
        )
        parts += [_explore_matrix(m), _explore_failures(m)]
    if model.mutants:
        rows = []
        for mu in model.mutants:
            said = "<br>".join(
                f"<code>{esc(c)}</code>: {esc(t)}" for c, t in mu.messages.items() if t
            )
            cls = "killed" if mu.killed else "survived"
            rows.append(
                f'<tr class="{cls}"><th scope="row">'
                f"<code>{esc(mu.name)}</code></th><td>"
                + ", ".join(f"<code>{esc(c)}</code>" for c in mu.cases)
                + f'</td><td class="outcome {cls}">'
                f"{mu.outcome}</td><td>{said}</td></tr>"
            )
        parts.append(
            "<h3>Mutants only exploration catches</h3>"
            '<p class="muted">Each passes every check of the suite; the cases named must kill '
            "it.</p>"
            '<div class="scroll"><table class="matrix"><thead><tr><th scope="col">mutant</th>'
            '<th scope="col">cases that must kill it</th><th scope="col">verdict</th>'
            '<th scope="col">what the oracle said</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>"
        )
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


# --------------------------------------------------------------------------- tiers
_TIER_CLASS = {"passed": "pass", "failed": "fail", "error": "fail", "skipped": "skip"}


def _tier_cell(res: Result) -> str:
    cls = _TIER_CLASS.get(res.outcome, "missing")
    word = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP"}.get(
        res.outcome, res.outcome.upper()
    )
    text = f'<span class="badge {cls}">{word}</span>'
    if res.outcome == "passed":
        text += f' <span class="time">{res.time_s:.1f} s</span>'
    elif res.message:
        first = next((ln.strip() for ln in res.message.splitlines() if ln.strip()), "")
        text += f' <span class="{"skip-reason" if cls == "skip" else "reason"}">{esc(first)}</span>'
    return f'<td class="cell {cls}">{text}</td>'


def tiers_section(comp: TierComparison) -> str:
    """One implementation's tiers side by side (``id="tiers-<impl>"``): its runs (tier,
    Kubernetes version, counts, commit), the capabilities each tier offers, and per check
    (linked to nothing: the comparison pages of each tier have the evidence) its outcome on
    each tier, a skip with its reason; rows that differ between tiers are marked."""
    labels = comp.labels
    head = "".join(f'<th scope="col">{esc(lbl)}</th>' for lbl in labels)
    runs = []
    for label, run in zip(labels, comp.runs, strict=True):
        if not run.present:
            runs.append(
                f"<li><b>{esc(label)}</b>: no <code>junit-{esc(comp.impl)}.xml</code> in "
                f"<code>{esc(str(run.folder))}</code></li>"
            )
            continue
        bad = run.count("failed") + run.count("error")
        runs.append(
            f"<li><b>{esc(label)}</b> (<code>{esc(str(run.folder))}</code>): Kubernetes "
            f"{esc(run.kubernetes_version or '?')}, {run.count('passed')} passed, {bad} failed, "
            f"{run.count('skipped')} skipped; harness {esc(run.harness_commit or '?')}</li>"
        )
    caps = "".join(
        f"<tr><th scope='row'><code>{esc(c)}</code></th>"
        + "".join(f'<td class="hit">{"●" if c in r.capabilities else ""}</td>' for r in comp.runs)
        + "</tr>"
        for c in comp.capabilities
    )
    rows = "".join(
        f'<tr class="{"diff" if comp.differs(check) else "same"}"><th scope="row">'
        f"<code>{esc(check)}</code>"
        + (f'<span class="why">{esc(comp.why[check])}</span>' if comp.why.get(check) else "")
        + "</th>"
        + "".join(_tier_cell(r.result(check)) for r in comp.runs)
        + "</tr>"
        for check in comp.checks
    )
    return (
        f'<section id="tiers-{esc(comp.impl)}">\n<h2>{esc(comp.impl)} on '
        f"{len(comp.runs)} tiers</h2>\n"
        f'<ul class="runs">{"".join(runs)}</ul>\n'
        f'<table class="summary tiers"><thead><tr><th scope="col">check</th>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table>\n"
        '<p class="muted">A marked row differs between tiers. SKIP: the tier does not offer what '
        "the check needs; the reason says what.</p>\n"
        f'<h3>What each tier offers</h3><div class="scroll"><table class="matrix"><thead><tr>'
        f'<th scope="col">capability</th>{head}</tr></thead><tbody>{caps}</tbody></table></div>\n'
        "</section>"
    )


def introduction_section(lang: str = "en", lesson_href: str = "lesson.html") -> str:
    """The ten-line introduction and the glossary (``harness.report.teaching``), the glossary
    behind a fold, in ``lang`` (``harness.i18n``), with a link to the lesson at
    ``lesson_href`` (``make lesson`` writes it); ``lesson_href`` empty (no lesson made,
    ``Report.lesson_href``): one line that says how to make it instead."""
    intro = "".join(
        f"<p>{esc(tr(lang, f'intro:{n}', p))}</p>" for n, p in enumerate(INTRODUCTION, 1)
    )
    terms = "".join(
        f"<dt>{esc(tr(lang, f'glossary:{t}:term', t))}</dt>"
        f"<dd>{esc(tr(lang, f'glossary:{t}', d))}</dd>"
        for t, d in GLOSSARY
    )
    lesson = ui_label(lang, "The lesson: the article's story with this run's evidence")
    link = (
        f'<a href="{esc(lesson_href)}">{esc(lesson)}</a> (<code>make lesson</code>)'
        if lesson_href
        else esc(ui_label(lang, LESSON_NOT_MADE))
    )
    return (
        '<section id="introduction" class="howto">\n'
        f"<h2>{esc(ui_label(lang, 'New to controllers? Read this first'))}</h2>\n"
        f'{intro}\n<p class="lesson-link">{link}</p>\n'
        f'<details class="glossary"><summary>{esc(ui_label(lang, "Words this report uses"))}'
        f"</summary><dl>{terms}</dl></details>\n</section>"
    )


def junit_when(stamp: str) -> str:
    """A JUnit timestamp as ``2026-11-29 11:44:31 UTC`` (or as given if it has no zone)."""
    try:
        when = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:
        return when.strftime("%Y-%m-%d %H:%M:%S")
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# --------------------------------------------------------------------------- mutation score
def mutation_score_section(score: MutationScore) -> str:
    """The mutation-score section (``id="mutation-score"``): the tool mutants' counts and score
    per language and file, then the survivors (``harness.report.mutation_score``)."""
    e = esc
    head = "".join(f"<th>{e(h)}</th>" for h in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in score.rows)
    parts = [
        '<section id="mutation-score">',
        "<h2>Mutation score (tool mutants)</h2>",
        f"<p>{e(INTRO)}</p>",
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>',
    ]
    if score.survivors:
        items = "".join(
            f"<tr><td><code>{e(i)}</code></td><td>{e(k)}</td><td>{e(r)}</td></tr>"
            for i, k, r in score.survivors
        )
        parts.append(
            "<table><thead><tr><th>survivor</th><th>kind</th><th>reason</th></tr></thead>"
            f"<tbody>{items}</tbody></table>"
        )
    parts.append("</section>")
    return "\n".join(parts)
