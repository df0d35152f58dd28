"""The tables ``python -m harness bench`` prints at the end, from the bench.json document
(``harness.bench.results.build_report``): ``render_table`` (every figure, each implementation
and ratio), ``render_floor_table`` (the floor, the write capacity and the worker scaling),
``render_spread`` (median, min and max of each figure's runs), ``render_cpu`` (CPU per
object and its ratios).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.bench.figures import FIGURE_KEYS, FIGURE_LABELS, WORKER_KEYS, WORKER_LABELS


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def render_table(report: Mapping[str, Any]) -> str:
    """A plain-text table: one row per figure (throughput per N), a column per
    implementation and per ratio."""
    impls = list(report.get("implementations") or {})
    ratios = list(report.get("ratios") or {})
    rows: list[list[str]] = [["figure", *impls, *ratios]]
    for key in FIGURE_KEYS:
        if key == "throughput_s":
            ns = sorted(
                {n for i in impls for n in report["implementations"][i].get(key) or {}}, key=int
            )
            for n in ns:
                rows.append(
                    [
                        f"N = {n} at once until all converged (s)",
                        *[
                            _fmt((report["implementations"][i].get(key) or {}).get(n))
                            for i in impls
                        ],
                        *[_fmt((report["ratios"][r].get(key) or {}).get(n)) for r in ratios],
                    ]
                )
            continue
        rows.append(
            [
                FIGURE_LABELS[key],
                *[_fmt(report["implementations"][i].get(key)) for i in impls],
                *[_fmt(report["ratios"][r].get(key)) for r in ratios],
            ]
        )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(w) if c == 0 else cell.rjust(w)
            for c, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _grid(rows: list[list[str]]) -> str:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(w) if c == 0 else cell.rjust(w)
            for c, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_floor_table(report: Mapping[str, Any]) -> str:
    """The floor and worker scaling as plain text: seconds to converge N with the floor and
    each implementation's ratio to it; then one row per worker count and implementation
    (``WORKER_KEYS``, the ratio to the floor, what limited it). "" when neither ran."""
    floor = report.get("floor") or {}
    impls = list(report.get("implementations") or {})
    ratios = report.get("ratios") or {}
    splits = report.get("time_split") or {}
    parts = []
    if floor.get("throughput_s"):
        rows = [
            [
                "N at once until all converged (s)",
                "floor",
                *[f"{i}/floor" for i in impls],
                *[f"{w} limited by" for w in ("floor", *impls)],
            ]
        ]
        for n, s in floor["throughput_s"].items():
            rows.append(
                [
                    f"N = {n} ({floor.get('max_concurrent_reconciles', 1)} worker(s))",
                    _fmt(s),
                    *[
                        _fmt((ratios.get(f"{i}/floor") or {}).get("throughput_s", {}).get(n))
                        for i in impls
                    ],
                    *[
                        str(
                            ((splits.get("throughput") or {}).get(w) or {})
                            .get(n, {})
                            .get("limited_by", "-")
                        )
                        for w in ("floor", *impls)
                    ],
                ]
            )
        parts.append(_grid(rows))
    capacity = floor.get("capacity") or {}
    if capacity.get("writes_per_s") is not None:
        spread = capacity.get("by_concurrency") or {}
        parts.append(
            f"API server write capacity: {_fmt(capacity['writes_per_s'])} writes/s ("
            + ", ".join(
                f"{c} goroutines: {_fmt(sp.get('median'))} [{_fmt(sp.get('min'))}.."
                f"{_fmt(sp.get('max'))}]"
                for c, sp in spread.items()
            )
            + ")"
        )
    scaled = [(i, (report["implementations"][i].get("workers") or {})) for i in impls]
    if any(w for _, w in scaled):
        rows = [
            ["workers", "who", *[WORKER_LABELS[k] for k in WORKER_KEYS], "x floor", "limited by"]
        ]
        counts = sorted(
            {w for _, ws in scaled for w in ws} | set(floor.get("workers") or {}), key=int
        )
        for w in counts:
            fw = (floor.get("workers") or {}).get(w)
            if fw:
                rows.append(
                    [
                        w,
                        "floor",
                        _fmt(fw.get("throughput_s")),
                        "-",
                        "-",
                        _fmt(fw.get("cpu_s")),
                        "-",
                        _fmt(fw.get("failed_writes_per_object")),
                        "1",
                        str(
                            ((splits.get("workers") or {}).get("floor") or {})
                            .get(w, {})
                            .get("limited_by", "-")
                        ),
                    ]
                )
            for impl, ws in scaled:
                if w not in ws:
                    continue
                rows.append(
                    [
                        w,
                        impl,
                        *[_fmt(ws[w].get(k)) for k in WORKER_KEYS],
                        _fmt(((ratios.get(f"{impl}/floor") or {}).get("workers") or {}).get(w)),
                        str(
                            ((splits.get("workers") or {}).get(impl) or {})
                            .get(w, {})
                            .get("limited_by", "-")
                        ),
                    ]
                )
        parts.append(_grid(rows))
    return "\n\n".join(parts)


def render_spread(report: Mapping[str, Any]) -> str:
    """Median, min and max of each figure that is a median of runs (bench.json's ``spread``),
    one row per implementation (and the floor) and figure. "" when nothing was measured."""
    rows = [["who", "figure", "median", "min", "max", "runs"]]
    for who, figs in (report.get("spread") or {}).items():
        for key, value in figs.items():
            if key in ("throughput_s", "workers"):
                for at, sp in value.items():
                    label = (
                        f"N = {at} at once (s)" if key == "throughput_s" else f"{at} worker(s) (s)"
                    )
                    rows.append([who, label, *_spread_cells(sp)])
            else:
                rows.append([who, FIGURE_LABELS.get(key, key), *_spread_cells(value)])
    return _grid(rows) if len(rows) > 1 else ""


def _spread_cells(sp: Mapping[str, Any]) -> list[str]:
    return [_fmt(sp.get("median")), _fmt(sp.get("min")), _fmt(sp.get("max")), str(sp.get("runs"))]


def render_cpu(report: Mapping[str, Any]) -> str:
    """CPU milliseconds per object (bench.json's ``cpu``, ``harness.bench.paired``): one row
    per figure (latency, N, worker count), a column per implementation and the floor (the
    median over runs, min..max), then kube-apiserver + etcd, then each ratio of the medians.
    "" when no CPU was measured."""
    cpu = report.get("cpu") or {}
    own, server, ratios = (
        cpu.get("ms_per_object") or {},
        cpu.get("server_ms_per_object") or {},
        cpu.get("ratios") or {},
    )
    if not own:
        return ""
    who = list(own)
    rows = [
        [
            "CPU ms per object",
            *who,
            *[f"{w} server" for w in who],
            *ratios,
        ]
    ]
    keys: list[tuple[str, str | None, str]] = [("latency", None, "latency (one at a time)")]
    for fig, label in (("throughput", "N = {} at once"), ("workers", "{} worker(s), N at once")):
        ats = sorted({at for w in who for at in (own[w].get(fig) or {})}, key=int)
        keys += [(fig, at, label.format(at)) for at in ats]

    def cell(d: Mapping[str, Any], fig: str, at: str | None) -> Any:
        v = d.get(fig)
        return v if at is None or v is None else v.get(at)

    for fig, at, label in keys:
        row = [label]
        for src in (own, server):
            for w in who:
                sp = cell(src.get(w) or {}, fig, at)
                row.append(
                    "-"
                    if not sp
                    else f"{_fmt(sp['median'])} ({_fmt(sp['min'])}..{_fmt(sp['max'])})"
                )
        row += [_fmt(cell(ratios[r], fig, at)) for r in ratios]
        rows.append(row)
    return _grid(rows)
