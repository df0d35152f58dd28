"""The lesson's two pages: ``lesson.html`` (each figure the report's timeline drawing,
``harness.report.html_svg.timeline_svg``, with the mutant's lane beside the real
implementations') and ``lesson.md`` (each figure the writes in order per lane, as Mermaid
sequence diagrams, ``harness.report.sequence_diagram``). Both follow ``harness.lesson.story``
and take their text through ``harness.i18n.tr`` in the language asked for.
"""

from __future__ import annotations

import dataclasses
import json
from string import Template
from typing import Any

from harness.i18n import tr
from harness.lesson import story
from harness.lesson.evidence import Evidence, Lane, verdict_line
from harness.report.html import static_text
from harness.report.html_sections import anchor
from harness.report.html_svg import esc, timeline_svg
from harness.report.markdown import key_evidence, sequence_diagram

#: Evidence every check records that says nothing about the operator (the tier it ran on).
HIDDEN_EVIDENCE = frozenset({"tier", "verdict"})

#: Spans (seconds from a lane's first request to its last) further apart than this factor are
#: drawn on time axes of their own (``axes``).
SPAN_RATIO = 3.0

#: The lesson's own styles, after the report's (``report.css``).
LESSON_CSS = """
.part { border-top: 3px solid var(--fg); padding-top: 14px; margin-top: 44px; }
.part > p { max-width: 82ch; }
figure.lesson { margin: 18px 0 26px; }
figure.lesson .look { background: var(--soft); border-left: 4px solid var(--write);
  padding: 8px 12px; max-width: 100ch; }
ul.lanes { list-style: none; padding: 0; margin: 6px 0; font-size: 13.5px; }
ul.lanes li.wrong { color: var(--fail); }
ul.lanes li.right { color: var(--pass); }
.proves { font-weight: 600; max-width: 90ch; }
.needs { background: var(--miss-bg); border: 1px solid var(--miss); padding: 8px 12px; }
nav.parts ol { margin: 8px 0; }
"""


def _colon(lang: str) -> str:
    return "：" if lang.startswith("zh") else ": "


def _t(lang: str, key: str) -> str:
    return tr(lang, key, story.texts()[key])


def _lane_title(lang: str, lane: Lane) -> str:
    side = _t(lang, "lesson:mutant" if lane.wrong else "lesson:right")
    if not lane.wrong:
        return f"{lane.title} ({side})"
    title = tr(lang, f"mutant:{lane.who}:title", lane.title)
    return f"mutant {lane.who} ({side}): {title}"


def _result_line(lane: Lane, shows: tuple[str, ...] = ()) -> str:
    """A lane's outcome, the first line of its failure, and the first evidence the check
    recorded about it (what the operator wrote: conditions, resourceVersions, ...), shortened;
    only the outcome when the figure ``shows`` deciding values the lane has (printed in full
    after it instead)."""
    if deciding_values(lane, shows):
        return verdict_line(lane.result)
    kept = {k: v for k, v in lane.result.check_evidence.items() if k not in HIDDEN_EVIDENCE}
    shown = key_evidence(dataclasses.replace(lane.result, evidence=kept), 2)
    return verdict_line(lane.result) + (f" · {shown}" if shown else "")


def _decided(value: Any) -> str:
    """One recorded evidence value in full: conditions (a list of dicts with ``type``) reduced
    to ``type=status (reason)``, the fields a condition check decides on; a list of strings
    as ``[a, b]``; a dict as ``key value`` pairs, ``before`` and ``after`` first."""
    if value == [] or value == {}:
        return json.dumps(value)
    if isinstance(value, list) and all(isinstance(c, dict) and "type" in c for c in value):
        return ", ".join(f"{c['type']}={c.get('status')} ({c.get('reason')})" for c in value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "[" + ", ".join(value) + "]"
    if isinstance(value, dict):
        first = [k for k in ("before", "after") if k in value]
        order = first + [k for k in value if k not in first]
        return ", ".join(f"{k} {_decided(value[k])}" for k in order)
    return value if isinstance(value, str) else json.dumps(value)


def deciding_values(lane: Lane, keys: tuple[str, ...]) -> str:
    """``key: value`` (untruncated, ``_decided``) of each of ``keys`` the lane's check recorded,
    joined by " · "; "" when it recorded none of them. A value that is not JSON is shown as it
    was recorded."""
    shown = []
    for key in keys:
        raw = lane.result.evidence.get(key)
        if raw is None:
            continue
        try:
            value = _decided(json.loads(raw))
        except (TypeError, ValueError):
            value = str(raw)
        shown.append(f"{key}: {value}")
    return " · ".join(shown)


def _span(lane: Lane) -> float:
    calls = lane.result.calls
    return max([c.t for c in calls] + [t for t, _ in lane.result.acts] + [0.0])


def axes(lanes: list[Lane], ratio: float = SPAN_RATIO) -> list[list[Lane]]:
    """The lanes grouped by the time axis they share: the real implementations on one, unless
    one's span is more than ``ratio`` times another's (each then gets its own), and the mutant
    always on its own: a mutant that never converges runs until the check's bound and would
    squash the others into their first second."""
    real = [lane for lane in lanes if not lane.wrong]
    spans = [_span(lane) for lane in real]
    together = not spans or max(spans) <= ratio * max(min(spans), 0.001)
    groups = [real] if together else [[lane] for lane in real]
    return [g for g in [*groups, [lane for lane in lanes if lane.wrong]] if g]


def _deciding_html(lane: Lane, keys: tuple[str, ...]) -> str:
    shown = deciding_values(lane, keys)
    return f'<br><code class="deciding">{esc(shown)}</code>' if shown else ""


def _figure_html(ev: Evidence, lang: str, part: story.Part, n: int, comparison: str) -> str:
    figure = part.figures[n - 1]
    look = _t(lang, f"lesson:{part.id}:look{n}")
    head = f"<h3><code>{esc(figure.case)}</code></h3>"
    lanes = ev.lanes(figure)
    if part.needs and not ev.has(part.needs):
        note = _t(lang, "lesson:needs-check").replace("{check}", part.needs)
        return (
            f'<figure class="lesson">{head}<p class="needs">{esc(note)}</p>'
            f'<p class="look">{esc(look)}</p></figure>'
        )
    if not lanes:
        return (
            f'<figure class="lesson">{head}<p class="look">{esc(look)}</p>'
            f'<p class="needs">{esc(_t(lang, "lesson:no-evidence"))}</p></figure>'
        )
    svg = "\n".join(
        timeline_svg(
            {lane.who: lane.result.calls for lane in group},
            titles={lane.who: f"mutant {lane.who}" if lane.wrong else lane.who for lane in group},
            title=figure.case,
            acts={lane.who: lane.result.acts for lane in group},
        )
        for group in axes(lanes)
    )
    results = "".join(
        f'<li class="{"wrong" if lane.wrong else "right"}"><b>{esc(_lane_title(lang, lane))}'
        f"</b>: {esc(_result_line(lane, figure.shows))}{_deciding_html(lane, figure.shows)}</li>"
        for lane in lanes
    )
    link = f"{comparison}#{anchor(figure.case)}"
    return (
        f'<figure class="lesson">{head}<p class="look">{esc(look)}</p>\n{svg}\n'
        f'<figcaption>{esc(_t(lang, "lesson:outcome"))}{_colon(lang)}<ul class="lanes">{results}</ul>'
        f'<a href="{esc(link)}">{esc(_t(lang, "lesson:in-report"))}</a></figcaption></figure>'
    )


def render_html(ev: Evidence, lang: str = "en", comparison: str = "comparison.html") -> str:
    """The lesson as one HTML page, in ``lang``; ``comparison``: the comparison report's path
    relative to the page (each figure links to its check there)."""
    toc = "".join(
        f'<li><a href="#{p.id}">{esc(_t(lang, f"lesson:{p.id}:title"))}</a></li>'
        for p in story.PARTS
    )
    body = [
        '<header>\n<p class="kicker">ModelDock</p>\n'
        f"<h1>{esc(_t(lang, 'lesson:title'))}</h1>\n"
        f'<p class="lede">{esc(_t(lang, "lesson:lede"))}</p>\n'
        f'<p><a href="{esc(comparison)}">{esc(_t(lang, "lesson:back"))}</a></p>\n'
        f'<nav class="parts"><ol>{toc}</ol></nav>\n</header>',
        f'<section class="howto"><p>{esc(_t(lang, "lesson:how-to-read"))}</p></section>',
    ]
    for number, part in enumerate(story.PARTS, 1):
        paragraphs = "".join(
            f"<p>{esc(_t(lang, f'lesson:{part.id}:p{k}'))}</p>"
            for k in range(1, len(part.paragraphs) + 1)
        )
        figures = "\n".join(
            _figure_html(ev, lang, part, k, comparison) for k in range(1, len(part.figures) + 1)
        )
        body.append(
            f'<section class="part" id="{part.id}">\n'
            f"<h2>{number}. {esc(_t(lang, f'lesson:{part.id}:title'))}</h2>\n{paragraphs}\n"
            f"{figures}\n"
            f'<p class="proves">{esc(_t(lang, "lesson:proves"))}{_colon(lang)}'
            f"{esc(_t(lang, f'lesson:{part.id}:proves'))}</p>\n</section>"
        )
    return Template(static_text("page.html")).substitute(
        lang=esc(lang),
        title=esc(_t(lang, "lesson:title")),
        css=static_text("report.css") + LESSON_CSS,
        body="\n".join(body),
        script=static_text("report.js"),
    )


def _figure_markdown(
    ev: Evidence, lang: str, part: story.Part, n: int, comparison: str
) -> list[str]:
    figure = part.figures[n - 1]
    lines = [f"### `{figure.case}`", "", f"> {_t(lang, f'lesson:{part.id}:look{n}')}", ""]
    if part.needs and not ev.has(part.needs):
        return [*lines, _t(lang, "lesson:needs-check").replace("{check}", f"`{part.needs}`"), ""]
    lanes = ev.lanes(figure)
    if not lanes:
        return [*lines, _t(lang, "lesson:no-evidence"), ""]
    for lane in lanes:
        acts = ", ".join(f"{t:+.2f}s {a}" for t, a in lane.result.acts)
        lines += [
            f"- **{_lane_title(lang, lane)}**: {_result_line(lane, figure.shows)}",
            *([f"  - {_t(lang, 'lesson:acts')}{_colon(lang)}{acts}"] if acts else []),
        ]
        shown = deciding_values(lane, figure.shows)
        lines += [f"  - `{shown}`"] if shown else []
    lines.append("")
    for lane in lanes:
        writes = [c for c in lane.result.calls if c.is_write]
        lines += sequence_diagram(lane.who, writes)
    lines += [f"[{_t(lang, 'lesson:in-report')}]({comparison}#{anchor(figure.case)})", ""]
    return lines


def render_markdown(ev: Evidence, lang: str = "en", comparison: str = "comparison.md") -> str:
    """The lesson in Markdown, in ``lang``: each figure the writes each lane made, in order
    (a Mermaid sequence diagram per lane), its result line and what the harness did."""
    lines = [
        f"# {_t(lang, 'lesson:title')}",
        "",
        _t(lang, "lesson:lede"),
        "",
        f"[{_t(lang, 'lesson:back')}]({comparison})",
        "",
        f"> {_t(lang, 'lesson:md-legend')}",
        "",
    ]
    for number, part in enumerate(story.PARTS, 1):
        lines += [f"## {number}. {_t(lang, f'lesson:{part.id}:title')}", ""]
        for k in range(1, len(part.paragraphs) + 1):
            lines += [_t(lang, f"lesson:{part.id}:p{k}"), ""]
        for k in range(1, len(part.figures) + 1):
            lines += _figure_markdown(ev, lang, part, k, comparison)
        proves = _t(lang, f"lesson:{part.id}:proves")
        lines += [f"**{_t(lang, 'lesson:proves')}**{_colon(lang)}{proves}", ""]
    return "\n".join(lines)
