"""The worker-scaling runs' CPU split as an SVG drawing of the HTML report: ``split_svg``
draws, for each scaling run of ``harness.report.bench_scaling.Scaling``, whose CPU the run
used (the operator or floor client, kube-apiserver, etcd, the bench, the rest of the
machine) as stacked bars. Split from ``harness.report.html_svg`` (its frame, ticks and
escaping are shared); a drawing that reads no model, not a writer: ``html_sections`` places
it in the page.
"""

from __future__ import annotations

from harness.report.bench_scaling import Scaling
from harness.report.html_svg import _PW, _svg, esc, nice_ticks, value_grid

#: The parts of a run's CPU split, their labels and colours, in stacking order.
SPLIT_PARTS = (
    ("client_cpu_s", "operator / floor client", "#0072b2"),
    ("apiserver_cpu_s", "kube-apiserver", "#d55e00"),
    ("etcd_cpu_s", "etcd", "#e69f00"),
    ("harness_cpu_s", "bench (creates, watch)", "#009e73"),
    ("other_cpu_s", "other processes", "#bbbbbb"),
)


def split_svg(sc: Scaling) -> str:
    """Where the time of each scaling run went: per run (who, W) stacked bars of the cores
    each process kept busy on average (CPU seconds / wall seconds), with what limited it."""
    rows = [
        (f"{who} ×{w}", sp)
        for who in sc.who
        for w, sp in sorted((sc.splits_w.get(who) or {}).items())
        if sp.get("wall_s")
    ]
    if not rows:
        return ""
    totals = [
        sum(float(sp.get(k) or 0.0) for k, _, _ in SPLIT_PARTS) / float(sp["wall_s"])
        for _, sp in rows
    ]
    ticks = nice_ticks(max([*totals, 1.0]), 4)
    left, right = 110, 150
    scale = (_PW - right - left) / (ticks[-1] or 1.0)
    base_y = 14 + 26 * len(rows)
    parts = value_grid(ticks, left, scale, base_y)
    for k, (label, sp) in enumerate(rows):
        yy, x = 12 + 26 * k, float(left)
        parts.append(
            f'<text class="tick" x="{left - 8}" y="{yy + 13}" text-anchor="end">{esc(label)}</text>'
        )
        for key, name, colour in SPLIT_PARTS:
            width = float(sp.get(key) or 0.0) / float(sp["wall_s"]) * scale
            if width > 0:
                parts.append(
                    f'<rect class="bar" data-part="{key}" x="{x:.1f}" y="{yy}" '
                    f'width="{width:.1f}" height="18" fill="{colour}"><title>{esc(name)}: '
                    f"{float(sp.get(key) or 0.0):.2f} s CPU in {float(sp['wall_s']):.2f} s"
                    f"</title></rect>"
                )
                x += width
        parts.append(
            f'<text class="point" x="{x + 6:.1f}" y="{yy + 13}">'
            f"{esc(sp.get('limited_by', ''))}</text>"
        )
    key_y = base_y + 30
    for k, (_, name, colour) in enumerate(SPLIT_PARTS):
        kx = 20 + (k % 3) * 170
        ky = key_y + (k // 3) * 16
        parts.append(
            f'<rect x="{kx}" y="{ky}" width="12" height="8" fill="{colour}"/>'
            f'<text class="key" x="{kx + 16}" y="{ky + 8}">{esc(name)}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{left}" y1="{base_y:.1f}" x2="{_PW - right}" y2="{base_y:.1f}"/>'
        f'<text class="axis-title" x="{(left + _PW - right) / 2:.1f}" y="{base_y + 30 + 40:.1f}" '
        f'text-anchor="middle">cores busy on average (CPU s / wall s)</text>'
    )
    return _svg(parts, "CPU split of each scaling run", base_y + 80)
