"""SVG drawings of the HTML report, and the markup helpers they share with it.

``timeline_svg`` draws the API requests an implementation made during one check as a swimlane
(from ``harness.report.model.Call``s); ``latency_svg``, ``throughput_svg`` and ``rss_svg`` plot
a ``harness.report.model.Bench``. Each returns one inline ``<svg>`` element as a string, styled
by the classes of ``static/report.css``; nothing is fetched from anywhere. ``esc`` escapes text
for HTML and ``impl_colour`` gives each implementation its colour, here and in the page.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.report.bench_scaling import Scaling
from harness.report.model import Bench, Call, format_number

#: One colour per implementation, in report order (Okabe-Ito: safe for colour blindness).
IMPL_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")


def esc(text: object) -> str:
    """``str(text)`` escaped for HTML text and quoted attribute values."""
    return html.escape(str(text), quote=True)


def impl_colour(report_impls: Sequence[str], impl: str) -> str:
    """The colour of ``impl`` by its place in ``report_impls`` (one not in it gets the next)."""
    i = list(report_impls).index(impl) if impl in report_impls else len(report_impls)
    return IMPL_COLOURS[i % len(IMPL_COLOURS)]


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


def _stack_labels(xs: Sequence[float], labels: Sequence[str], right: float) -> list[int]:
    """Row of each act label (in x order) so that no two on a row overlap: a label starts at
    its x (or ends there when it would pass ``right``) and is ``TL_CHAR`` per character wide."""
    ends: list[float] = []
    rows = []
    for x, label in zip(xs, labels, strict=True):
        w = TL_CHAR * (len(label) + 1)
        start, end = (x - w, x) if x + w > right else (x, x + w)
        row = next((k for k, e in enumerate(ends) if start - e >= 4), len(ends))
        if row == len(ends):
            ends.append(end)
        ends[row] = end
        rows.append(row)
    return rows


def timeline_svg(
    lanes: Mapping[str, Sequence[Call]],
    *,
    titles: Mapping[str, str] | None = None,
    title: str = "",
    width: int = TL_WIDTH,
    acts: Mapping[str, Sequence[tuple[float, str]]] | None = None,
) -> str:
    """A swimlane diagram of API requests: one lane per implementation (``lanes``: impl ->
    its Calls), time running right on one shared axis (seconds since each lane's first
    request). Each request is one ``<g class="mark ...">`` (classes ``write``/``read`` and
    ``failed`` for a refused one, ``data-impl``, ``data-code``, a ``<title>``): writes are
    numbered circles above the lane's line, reads small dots below it; marks that would
    overlap stack upwards (writes) or downwards (reads). A write is labelled
    ``verb resource name code`` beside its mark, or on a row above the marks joined to it by
    a leader line, where there is room (``_place_labels``).

    ``acts``: per lane, what the harness did (``Result.acts``: ``[(seconds on the lane's
    clock, act), ...]``, e.g. a SIGKILL or the check's own edit), drawn as dashed vertical
    markers (``<g class="act">``) across the lane, labelled on rows above its marks; an act
    before the lane's first request is drawn at 0."""
    titles = titles or {}
    acts = acts or {}
    right = width - TL_RIGHT
    span = max(
        [c.t for calls in lanes.values() for c in calls]
        + [t for lane in acts.values() for t, _ in lane]
        or [0.0]
    )
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
        lane_acts = sorted((max(t, 0.0), a) for t, a in acts.get(impl, ()))
        a_x = [x_of(t) for t, _ in lane_acts]
        a_rows = _stack_labels(a_x, [a for _, a in lane_acts], right)
        act_rows = max(a_rows) + 1 if lane_acts else 0
        above = max(mark_rows * TL_ROW + band_rows * TL_BAND + act_rows * TL_BAND + 16, 34)
        below = max((max(r_rows) + 1) * TL_READ_ROW + 10 if reads else 0, 26)
        top, base = y, y + above
        bottom = base + below

        def mark_y(row: int, base: float = base) -> float:
            return base - 12 - row * TL_ROW

        def band_y(row: int, base: float = base, mark_rows: int = mark_rows) -> float:
            return base - 12 - (mark_rows - 1) * TL_ROW - TL_R - 8 - row * TL_BAND

        colour = IMPL_COLOURS[li % len(IMPL_COLOURS)]
        refused = sum(1 for c in calls if c.failed)
        out = [
            f'<g class="lane" data-impl="{esc(impl)}">',
            f'<rect class="lane-bg{" alt" if li % 2 else ""}" x="0" y="{top:.1f}" '
            f'width="{width}" height="{bottom - top:.1f}"/>',
            f'<line class="lane-line" x1="{TL_LEFT}" y1="{base:.1f}" x2="{right}" y2="{base:.1f}"/>',
            f'<rect x="8" y="{base - 24:.1f}" width="4" height="44" fill="{colour}"/>',
            f'<text class="lane-title" x="18" y="{base - 10:.1f}">{esc(titles.get(impl, impl))}</text>',
            f'<text class="lane-sub" x="18" y="{base + 5:.1f}">{len(calls)} requests</text>',
            f'<text class="lane-sub" x="18" y="{base + 17:.1f}">{len(writes)} writes'
            + (f'<tspan class="refused">, {refused} refused</tspan>' if refused else "")
            + "</text>",
        ]
        if not calls:
            out.append(
                f'<text class="lane-sub" x="{TL_LEFT + 8}" y="{base - 6:.1f}">'
                "no requests recorded</text>"
            )
        # reads: small dots below the line
        for c, x, row in zip(reads, r_x, r_rows, strict=True):
            cy = base + 7 + row * TL_READ_ROW
            failed = " failed" if c.failed else ""
            out.append(
                f'<g class="mark read{failed}" data-impl="{esc(impl)}" data-code="{c.code}">'
                f"<title>{esc(c.label())} at {c.t:.3f} s</title>"
                f'<circle class="dot read{failed}" cx="{x:.1f}" cy="{cy:.1f}" r="{TL_READ}"/></g>'
            )
        # leader lines first, so that marks and labels are drawn over them
        for x, row, place in zip(w_x, w_rows, labels, strict=True):
            if place and place[0] == "band":
                out.append(
                    f'<line class="leader" x1="{x:.1f}" y1="{mark_y(row) - TL_R:.1f}" '
                    f'x2="{x:.1f}" y2="{band_y(place[1]) + 2:.1f}"/>'
                )
        # writes: numbered circles above the line, on stems
        for n, (c, x, row) in enumerate(zip(writes, w_x, w_rows, strict=True), start=1):
            cy = mark_y(row)
            failed = " failed" if c.failed else ""
            number = (
                f'<text class="num" x="{x:.1f}" y="{cy + 3.2:.1f}">{n}</text>'
                if len(writes) < 100
                else ""
            )
            out.append(
                f'<g class="mark write{failed}" data-impl="{esc(impl)}" data-code="{c.code}">'
                f"<title>#{n} {esc(c.label())} at {c.t:.3f} s</title>"
                f'<line class="stem" x1="{x:.1f}" y1="{base:.1f}" x2="{x:.1f}" y2="{cy + TL_R:.1f}"/>'
                f'<circle class="dot write{failed}" cx="{x:.1f}" cy="{cy:.1f}" r="{TL_R}"/>'
                f"{number}</g>"
            )
        for c, row, place in zip(writes, w_rows, labels, strict=True):
            if place is None:
                continue
            kind, label_row, anchor_, tx = place
            ty = (mark_y(row) + 3.5) if kind == "row" else band_y(label_row)
            out.append(
                f'<text class="wlabel{" failed" if c.failed else ""}" x="{tx:.1f}" '
                f'y="{ty:.1f}" text-anchor="{anchor_}">{esc(c.label())}</text>'
            )
        for (t, act), x, row in zip(lane_acts, a_x, a_rows, strict=True):
            ty = top + 11 + row * TL_BAND
            anchor_ = "end" if x + TL_CHAR * (len(act) + 1) > right else "start"
            tx = x - 3 if anchor_ == "end" else x + 3
            out.append(
                f'<g class="act" data-impl="{esc(impl)}"><title>{esc(act)} at {t:.3f} s '
                "(the harness)</title>"
                f'<line class="act-line" x1="{x:.1f}" y1="{ty - 9:.1f}" x2="{x:.1f}" '
                f'y2="{bottom:.1f}"/>'
                f'<text class="act-label" x="{tx:.1f}" y="{ty:.1f}" text-anchor="{anchor_}">'
                f"{esc(act)}</text></g>"
            )
        out.append("</g>")
        blocks.append("\n".join(out))
        y = bottom + 4
    # the shared time axis with grid lines through every lane
    axis_y = y + 4
    grid = []
    for t in ticks:
        x = x_of(t)
        grid.append(f'<line class="grid" x1="{x:.1f}" y1="8" x2="{x:.1f}" y2="{axis_y:.1f}"/>')
        grid.append(
            f'<text class="tick" x="{x:.1f}" y="{axis_y + 14:.1f}" text-anchor="middle">'
            f"{_fmt_time(t, axis_max)}</text>"
        )
    axis = (
        f'<line class="axis" x1="{TL_LEFT}" y1="{axis_y:.1f}" x2="{right}" y2="{axis_y:.1f}"/>'
        f'<text class="axis-title" x="{TL_LEFT}" y="{axis_y + 30:.1f}">time since the '
        "implementation's first request in this check</text>"
    )
    height = axis_y + 38
    desc = "; ".join(
        f"{impl}: {len(calls)} requests, {sum(c.is_write for c in calls)} writes"
        for impl, calls in lanes.items()
    )
    label = f"API requests per implementation{': ' + title if title else ''}"
    return (
        f'<svg class="swimlane" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height:.0f}" width="100%" role="img" aria-label="{esc(label)}">'
        f"<title>API requests during {esc(title or 'the check')}</title><desc>{esc(desc)}</desc>"
        + "".join(grid)
        + "\n"
        + "\n".join(blocks)
        + axis
        + "</svg>"
    )


#: Where a write's label goes: ("row", mark row, text-anchor, x) beside its mark, or
#: ("band", band row, text-anchor, x) on a row above all marks; None: no room.
LabelPlace = tuple[str, int, str, float] | None


def _place_labels(
    writes: Sequence[Call], xs: Sequence[float], rows: Sequence[int], left: float, right: float
) -> list[LabelPlace]:
    """Place each write's label (in x order) where it overlaps no mark and no other label:
    first beside its mark in the mark's row (right, else left), then, for a lane of at most
    ``TL_BAND_WRITES`` writes or a refused write, on the first of ``TL_MAX_BAND_ROWS`` rows
    above the marks (starting at the mark's x, else ending there). In a busier lane labels
    far from their marks would be harder to read than the numbered list beside the diagram."""
    taken: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for x, row in zip(xs, rows, strict=True):
        taken.setdefault(("row", row), []).append((x - TL_R - 1, x + TL_R + 1))

    def free(key: tuple[str, int], lo: float, hi: float, own: tuple[float, float] | None) -> bool:
        return (
            lo >= left
            and hi <= right
            and all(b <= lo or hi <= a for a, b in taken.get(key, []) if (a, b) != own)
        )

    places: list[LabelPlace] = []
    for call, x, row in zip(writes, xs, rows, strict=True):
        w = len(call.label()) * TL_CHAR
        own = (x - TL_R - 1, x + TL_R + 1)
        found: LabelPlace = None
        options = [
            ("row", row, "start", x + TL_R + 3, x + TL_R + 3 + w),
            ("row", row, "end", x - TL_R - 3, x - TL_R - 3 - w),
        ]
        if len(writes) <= TL_BAND_WRITES or call.failed:
            options += [
                opt
                for b in range(TL_MAX_BAND_ROWS)
                for opt in (
                    ("band", b, "start", x - 1, x - 1 + w),
                    ("band", b, "end", x + 1, x + 1 - w),
                )
            ]
        for kind, r, anchor_, tx, other in options:
            lo, hi = min(tx, other) - 3, max(tx, other) + 3
            if free((kind, r), lo, hi, own if kind == "row" else None):
                taken.setdefault((kind, r), []).append((lo, hi))
                found = (kind, r, anchor_, tx)
                break
        places.append(found)
    return places


# --------------------------------------------------------------------------- bench plots
_PW, _PH = 520, 300  # plot size (SVG units)
_PL, _PR, _PT, _PB = 58, 18, 16, 46  # margins


def _frame(
    x_max: float, y_max: float, x_label: str, y_label: str, x_fmt: Any = None, y_fmt: Any = None
) -> tuple[list[str], Any, Any]:
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
        parts.append(
            f'<line class="grid" x1="{_PL}" y1="{sy(v):.1f}" x2="{_PW - _PR}" y2="{sy(v):.1f}"/>'
            f'<text class="tick" x="{_PL - 6}" y="{sy(v) + 4:.1f}" text-anchor="end">{esc(fy(v))}</text>'
        )
    for v in xt:
        parts.append(
            f'<text class="tick" x="{sx(v):.1f}" y="{_PH - _PB + 16:.1f}" '
            f'text-anchor="middle">{esc(fx(v))}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{_PL}" y1="{_PH - _PB}" x2="{_PW - _PR}" y2="{_PH - _PB}"/>'
        f'<line class="axis" x1="{_PL}" y1="{_PT}" x2="{_PL}" y2="{_PH - _PB}"/>'
        f'<text class="axis-title" x="{(_PL + _PW - _PR) / 2:.1f}" y="{_PH - 8}" '
        f'text-anchor="middle">{esc(x_label)}</text>'
        f'<text class="axis-title" transform="translate(14 {(_PT + _PH - _PB) / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{esc(y_label)}</text>'
    )
    return parts, sx, sy


def _svg(parts: Sequence[str], label: str, height: int = _PH) -> str:
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_PW} {height}" '
        f'width="100%" role="img" aria-label="{esc(label)}"><title>{esc(label)}</title>'
        + "".join(parts)
        + "</svg>"
    )


def _key(impls: Sequence[str], x: float = _PL + 12, y: float = _PT + 8) -> list[str]:
    out = []
    for k, impl in enumerate(impls):
        colour = IMPL_COLOURS[k % len(IMPL_COLOURS)]
        yy = y + k * 16
        out.append(
            f'<rect x="{x:.1f}" y="{yy:.1f}" width="12" height="4" fill="{colour}"/>'
            f'<text class="key" x="{x + 18:.1f}" y="{yy + 6:.1f}">{esc(impl)}</text>'
        )
    return out


def latency_svg(bench: Bench) -> str:
    """The latency distribution: an empirical CDF per implementation from the samples, with
    p50 and p95 marked; without samples, p50 and p95 as bars."""
    impls = bench.implementations
    if any(bench.latency_samples.values()):
        x_max = max(max(s) for s in bench.latency_samples.values() if s)
        parts, sx, sy = _frame(
            x_max,
            1.0,
            "seconds to converged",
            "fraction converged",
            y_fmt=lambda v: f"{v * 100:.0f}%",
        )
        for k, impl in enumerate(impls):
            samples = bench.latency_samples.get(impl) or []
            if not samples:
                continue
            colour = IMPL_COLOURS[k % len(IMPL_COLOURS)]
            n = len(samples)
            d = f"M{sx(0):.1f},{sy(0):.1f}"
            for j, v in enumerate(samples):
                d += f" H{sx(v):.1f} V{sy((j + 1) / n):.1f}"
            parts.append(
                f'<path class="series" data-impl="{esc(impl)}" d="{d}" stroke="{colour}"/>'
            )
            for q, value in zip(
                ("p50", "p95"), bench.latency_pct.get(impl, (None, None)), strict=True
            ):
                if value is None:
                    continue
                frac = 0.5 if q == "p50" else 0.95
                parts.append(
                    f'<circle cx="{sx(value):.1f}" cy="{sy(frac):.1f}" r="3.5" fill="{colour}"/>'
                    f'<text class="point" x="{sx(value) + 6:.1f}" y="{sy(frac) + 12 + 12 * k:.1f}" '
                    f'fill="{colour}">{q} {format_number(value, "s")}</text>'
                )
        parts += _key(impls, x=_PW - _PR - 110, y=_PT + 130)
        return _svg(parts, "convergence latency distribution per implementation")
    # no samples: p50 and p95 as bars
    bars = [
        (f"{impl} {q}", value, IMPL_COLOURS[k % len(IMPL_COLOURS)], q == "p50", impl)
        for k, impl in enumerate(impls)
        for q, value in zip(("p50", "p95"), bench.latency_pct.get(impl, (None, None)), strict=True)
        if value is not None
    ]
    return _hbars(
        bars, "s", "seconds to converged", "convergence latency p50 and p95 per implementation"
    )


def _line(
    parts: list[str],
    who: str,
    series: Sequence[tuple[float, float]],
    colour: str,
    sx: Any,
    sy: Any,
    dashed: bool,
) -> None:
    """One series as a line with its points labelled (dashed: the floor)."""
    d = " ".join(
        f"{'M' if j == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for j, (x, y) in enumerate(series)
    )
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    parts.append(f'<path class="series" data-impl="{esc(who)}" d="{d}" stroke="{colour}"{dash}/>')
    for x, y in series:
        parts.append(
            f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="{colour}"/>'
            f'<text class="point" x="{sx(x) - 6:.1f}" y="{sy(y) - 7:.1f}" '
            f'text-anchor="end" fill="{colour}">{format_number(y)}</text>'
        )


def _whiskers(
    parts: list[str],
    who: str,
    ranges: Sequence[tuple[float, float, float]],
    colour: str,
    sx: Any,
    sy: Any,
) -> None:
    """The min and max of the runs behind each point, ``(x, min, max)``, as a vertical bar
    with caps: how far one noisy run could have moved the median (bench.json's ``spread``)."""
    for x, lo, hi in ranges:
        if hi <= lo:
            continue
        cx, y0, y1 = sx(x), sy(lo), sy(hi)
        parts.append(
            f'<path class="spread" data-impl="{esc(who)}" d="M{cx:.1f},{y0:.1f}L{cx:.1f},{y1:.1f}'
            f"M{cx - 4:.1f},{y0:.1f}L{cx + 4:.1f},{y0:.1f}M{cx - 4:.1f},{y1:.1f}L{cx + 4:.1f},"
            f'{y1:.1f}" stroke="{colour}" stroke-width="1" fill="none" opacity="0.7"/>'
        )


def _spread_at(
    bench: Bench, who: str, key: str, xs: Sequence[tuple[float, str]]
) -> list[tuple[float, float, float]]:
    """``(x, min, max)`` of ``who``'s runs at each ``(x, "<N or W>")`` that has a spread."""
    mine = bench.ranges.get(who) or {}
    return [(x, *mine[f"{key}[{at}]"]) for x, at in xs if f"{key}[{at}]" in mine]


def throughput_svg(bench: Bench, scaling: Scaling | None = None) -> str:
    """Seconds until all N converged against N, one line per implementation; the floor
    (from ``scaling``) dashed; at each point, when bench.json has them, the min and max of the
    runs (``_whiskers``)."""
    impls = bench.implementations
    floor = scaling.floor if scaling else []
    points = [p for series in bench.throughput.values() for p in series] + list(floor)
    ranges = {
        who: _spread_at(bench, who, "throughput_s", [(float(n), str(n)) for n, _ in series])
        for who, series in [*bench.throughput.items(), ("floor", floor)]
    }
    top = max([s for _, s in points] + [hi for r in ranges.values() for _, _, hi in r])
    parts, sx, sy = _frame(
        max(n for n, _ in points),
        top * 1.08,
        "N ModelServices created at once",
        "seconds until all converged",
    )
    for k, impl in enumerate(impls):
        series = bench.throughput.get(impl) or []
        if not series:
            continue
        colour = IMPL_COLOURS[k % len(IMPL_COLOURS)]
        d = " ".join(
            f"{'M' if j == 0 else 'L'}{sx(n):.1f},{sy(s):.1f}" for j, (n, s) in enumerate(series)
        )
        parts.append(f'<path class="series" data-impl="{esc(impl)}" d="{d}" stroke="{colour}"/>')
        _whiskers(parts, impl, ranges.get(impl) or [], colour, sx, sy)
        for n, s in series:
            parts.append(
                f'<circle cx="{sx(n):.1f}" cy="{sy(s):.1f}" r="3.5" fill="{colour}"/>'
                f'<text class="point" x="{sx(n) - 6:.1f}" y="{sy(s) - 7:.1f}" '
                f'text-anchor="end" fill="{colour}">{format_number(s, "s")}</text>'
            )
    if floor:
        _line(parts, "floor", floor, FLOOR_COLOUR, sx, sy, dashed=True)
        _whiskers(parts, "floor", ranges.get("floor") or [], FLOOR_COLOUR, sx, sy)
        parts += _key(["floor"], y=_PT + 8 + 16 * len(impls))
        parts[-1] = parts[-1].replace(IMPL_COLOURS[0], FLOOR_COLOUR)
    parts += _key(impls)
    return _svg(parts, "time to converge N ModelServices per implementation")


#: The floor's colour in the plots (dashed lines).
FLOOR_COLOUR = "#555555"


def _who_colour(impls: Sequence[str], who: str) -> str:
    return (
        FLOOR_COLOUR
        if who not in impls
        else IMPL_COLOURS[list(impls).index(who) % len(IMPL_COLOURS)]
    )


def scaling_svg(bench: Bench, sc: Scaling, key: str, y_label: str) -> str:
    """A worker-scaling figure (``key`` of ``sc.workers``) against the worker count, evenly
    spaced, one line per implementation and the floor dashed."""
    counts = sc.worker_counts
    pos = {w: k for k, w in enumerate(counts)}
    series = {
        who: [(float(pos[w]), v) for w, f in sorted(by_w.items()) if (v := f.get(key)) is not None]
        for who, by_w in sc.workers.items()
    }
    values = [y for pts in series.values() for _, y in pts]
    if not values:
        return ""
    # the spread is of the runs' seconds: only the time to converge has one
    ranges = {
        who: _spread_at(bench, who, "workers", [(float(pos[w]), str(w)) for w in by_w])
        for who, by_w in sc.workers.items()
        if key == "throughput_s"
    }
    values += [hi for r in ranges.values() for _, _, hi in r]
    parts, sx, sy = _frame(
        max(1.0, len(counts) - 1.0),
        max(values) * 1.1,
        "workers (MAX_CONCURRENT_RECONCILES)",
        y_label,
        x_fmt=lambda v: (
            str(counts[int(v)]) if float(v).is_integer() and 0 <= int(v) < len(counts) else ""
        ),
    )
    shown = []
    for who in sc.who:
        if series.get(who):
            _line(
                parts,
                who,
                series[who],
                _who_colour(bench.implementations, who),
                sx,
                sy,
                dashed=who == "floor",
            )
            _whiskers(
                parts, who, ranges.get(who) or [], _who_colour(bench.implementations, who), sx, sy
            )
            shown.append(who)
    for k, who in enumerate(shown):
        colour = _who_colour(bench.implementations, who)
        yy = _PT + 8 + k * 16
        parts.append(
            f'<rect x="{_PW - _PR - 90:.1f}" y="{yy:.1f}" width="12" height="4" '
            f'fill="{colour}"/><text class="key" x="{_PW - _PR - 72:.1f}" '
            f'y="{yy + 6:.1f}">{esc(who)}</text>'
        )
    return _svg(parts, f"{y_label} per worker count")


def rss_svg(bench: Bench) -> str:
    """Peak RSS per implementation as horizontal bars."""
    bars = [
        (impl, bench.rss_mib[impl], IMPL_COLOURS[k % len(IMPL_COLOURS)], True, impl)
        for k, impl in enumerate(bench.implementations)
        if impl in bench.rss_mib
    ]
    return _hbars(bars, "MiB", "peak RSS, MiB", "peak RSS per implementation")


def value_grid(ticks: Sequence[float], left: float, scale: float, base_y: float) -> list[str]:
    """The vertical grid lines and tick labels of a horizontal value axis: one per tick, at
    ``left + tick * scale`` px, from y 8 down to ``base_y``, the label below it."""
    return [
        f'<line class="grid" x1="{left + t * scale:.1f}" y1="8" x2="{left + t * scale:.1f}" '
        f'y2="{base_y:.1f}"/><text class="tick" x="{left + t * scale:.1f}" '
        f'y="{base_y + 16:.1f}" text-anchor="middle">{t:g}</text>'
        for t in ticks
    ]


def _hbars(
    bars: Sequence[tuple[str, float, str, bool, str]], unit: str, x_label: str, label: str
) -> str:
    """Horizontal bars ``(label, value, colour, solid, implementation)`` on one value axis."""
    ticks = nice_ticks(max([b[1] for b in bars] or [1.0]), 4)
    left = 110
    scale = (_PW - _PR - 60 - left) / (ticks[-1] or 1.0)
    base_y = 14 + 32 * len(bars)
    parts = value_grid(ticks, left, scale, base_y)
    for k, (text, value, colour, solid, impl) in enumerate(bars):
        yy = 12 + 32 * k
        parts.append(
            f'<text class="tick" x="{left - 8}" y="{yy + 15}" text-anchor="end">{esc(text)}</text>'
            f'<rect class="bar" data-impl="{esc(impl)}" x="{left}" y="{yy}" '
            f'width="{value * scale:.1f}" height="22" fill="{colour}" '
            f'fill-opacity="{1 if solid else 0.55}"/>'
            f'<text class="point" x="{left + value * scale + 6:.1f}" y="{yy + 15}">'
            f"{esc(format_number(value, unit))}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{left}" y1="{base_y:.1f}" x2="{_PW - _PR}" y2="{base_y:.1f}"/>'
        f'<text class="axis-title" x="{(left + _PW - _PR) / 2:.1f}" y="{base_y + 34:.1f}" '
        f'text-anchor="middle">{esc(x_label)}</text>'
    )
    return _svg(parts, label, base_y + 44)
