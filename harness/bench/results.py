"""The measurements of a bench run and the bench.json document made of them.

Each phase appends a run record (``LatencyRun``, ``LoadRun``, ``RestartRun``, ``QuietRun``) to
its implementation's ``ImplResults``; ``build_report`` turns them into the document written to
``reports/bench.json`` (shape in the ``harness.bench`` docstring) and ``render_table`` into the
table printed at the end.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.bench.accounting import Accounting, explain_failed
from harness.bench.figures import (
    FIGURE_KEYS,
    FIGURE_LABELS,
    WORKER_KEYS,
    WORKER_LABELS,
    empty_figures,
    median_or_none,
    percentile,
    ratio,
    ratio_figures,
)


@dataclass
class LatencyRun:
    """One latency run: create-to-converged seconds of each object, in creation order."""

    samples: list[float]

    @property
    def p50(self) -> float:
        """The median sample, seconds."""
        return percentile(self.samples, 50)

    @property
    def p95(self) -> float:
        """The 95th percentile sample, seconds."""
        return percentile(self.samples, 95)


@dataclass
class LoadRun:
    """One phase that created objects: its counts from the audit log and /metrics."""

    phase: str  # "latency" or "throughput"
    n: int
    objects: int
    seconds: float | None  # throughput: first create to last converged
    create_seconds: float
    reconciles: float
    accounting: Accounting
    #: user + system CPU seconds of the operator process from its start to settled
    operator_cpu_s: float | None = None
    #: throughput: where the time went (``harness.bench.figures.time_split``)
    split: dict[str, Any] | None = None


@dataclass
class RestartRun:
    """One SIGKILL and restart after N converged: seconds from the new process's start until
    it was ready, the changed objects converged, every object was reconciled; the total."""

    n: int
    changed: int
    seconds: float
    ready_s: float
    changed_converged_s: float
    all_reconciled_s: float
    reconciles: float
    accounting: Accounting


@dataclass
class QuietRun:
    """A period of ``seconds`` in which nothing changed: what the operator did meanwhile."""

    seconds: float
    writes: int
    requests: int
    reconciles: float
    requests_by_kind: dict[str, int]


@dataclass
class FloorRun:
    """One run of the floor client (``harness.bench.floor``): N ModelServices, W threads;
    seconds from the first create sent to the last converged seen (the operators' measure),
    and to the last write answered."""

    n: int
    workers: int
    seconds: float
    writes_done_s: float
    create_seconds: float
    accounting: Accounting
    split: dict[str, Any]


@dataclass
class WorkersRun:
    """One scaling run: an operator with ``workers`` workers, N created at once, and the
    changes of probe objects made meanwhile (``probe_samples``: change sent to converged)."""

    workers: int
    n: int
    seconds: float
    probe_samples: list[float]
    cpu_s: float | None
    peak_rss_mib: float | None
    reconciles: float
    accounting: Accounting
    split: dict[str, Any]

    @property
    def objects(self) -> int:
        """ModelServices created plus probe changes: what the failed writes are divided by."""
        return self.n + len(self.probe_samples)


@dataclass
class ImplResults:
    """Everything measured for one implementation."""

    latency: list[LatencyRun] = field(default_factory=list)
    loads: list[LoadRun] = field(default_factory=list)
    restarts: list[RestartRun] = field(default_factory=list)
    quiet: list[QuietRun] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    rss_by_n: dict[int, list[float]] = field(default_factory=dict)
    #: create-to-converged of the unmeasured first ModelService of each run
    warmups_s: list[float] = field(default_factory=list)
    workers_runs: list[WorkersRun] = field(default_factory=list)


def figures_of(res: ImplResults) -> dict[str, Any]:
    """FIGURES from one implementation's measurements (None where a phase did not run)."""
    fig = empty_figures()
    if res.latency:
        fig["latency_p50_s"] = round(statistics.median(r.p50 for r in res.latency), 4)
        fig["latency_p95_s"] = round(statistics.median(r.p95 for r in res.latency), 4)
    by_n: dict[int, list[float]] = {}
    for run in res.loads:
        if run.phase == "throughput" and run.seconds is not None:
            by_n.setdefault(run.n, []).append(run.seconds)
    fig["throughput_s"] = {str(n): round(statistics.median(v), 3) for n, v in sorted(by_n.items())}
    objects = sum(r.objects for r in res.loads)
    if objects:
        fig["writes_per_object"] = round(
            sum(r.accounting.writes_ok for r in res.loads) / objects, 3
        )
        fig["failed_writes_per_object"] = round(
            sum(r.accounting.writes_failed for r in res.loads) / objects, 3
        )
        fig["reconciles_per_object"] = round(sum(r.reconciles for r in res.loads) / objects, 3)
    reconciles = sum(r.reconciles for r in res.loads)
    if reconciles:
        fig["requests_per_reconcile"] = round(
            sum(r.accounting.requests for r in res.loads) / reconciles, 3
        )
    if res.quiet:
        fig["quiet_writes"] = max(q.writes for q in res.quiet)
    if res.rss_mib:
        fig["peak_rss_mib"] = round(statistics.median(res.rss_mib), 1)
    if res.restarts:
        fig["restart_to_converged_s"] = round(statistics.median(r.seconds for r in res.restarts), 3)
    return fig


def details_of(res: ImplResults) -> dict[str, Any]:
    """The per-run numbers behind the figures."""
    failed: Counter[str] = Counter()
    writes: Counter[str] = Counter()
    for run in res.loads:
        failed.update(run.accounting.failed_by_kind)
        writes.update(run.accounting.writes_by_kind)
    return {
        "latency_runs": [
            {
                "objects": len(r.samples),
                "p50_s": round(r.p50, 4),
                "p95_s": round(r.p95, 4),
                "max_s": round(max(r.samples), 4),
                "samples_in_creation_order_s": [round(x, 4) for x in r.samples],
            }
            for r in res.latency
        ],
        "load_runs": [
            {
                "phase": r.phase,
                "n": r.n,
                "seconds": r.seconds,
                "create_seconds": round(r.create_seconds, 3),
                "reconciles": r.reconciles,
                "requests": r.accounting.requests,
                "operator_cpu_s": r.operator_cpu_s,
                "writes_ok": r.accounting.writes_ok,
                "writes_failed": r.accounting.writes_failed,
                "writes_by_kind": r.accounting.writes_by_kind,
                "failed_by_kind": r.accounting.failed_by_kind,
                "requests_by_kind": r.accounting.requests_by_kind,
                "time_split": r.split,
            }
            for r in res.loads
        ],
        "writes_by_kind": dict(sorted(writes.items())),
        "failed_writes": explain_failed(failed),
        "restart_runs": [asdict(r) for r in res.restarts],
        "quiet_runs": [asdict(q) for q in res.quiet],
        "peak_rss_mib_runs": res.rss_mib,
        "peak_rss_mib_by_n": {str(n): v for n, v in sorted(res.rss_by_n.items())},
        "warmup_object_s": res.warmups_s,
        "workers_runs": [workers_run_details(r) for r in res.workers_runs],
    }


def workers_run_details(run: WorkersRun) -> dict[str, Any]:
    """The numbers of one scaling run, failed writes by kind and the probe samples included."""
    acc = run.accounting
    return {
        "workers": run.workers,
        "n": run.n,
        "seconds": round(run.seconds, 3),
        "probe_changes": len(run.probe_samples),
        "probe_samples_s": [round(x, 4) for x in run.probe_samples],
        "cpu_s": run.cpu_s,
        "peak_rss_mib": run.peak_rss_mib,
        "reconciles": run.reconciles,
        "requests": acc.requests,
        "writes_ok": acc.writes_ok,
        "writes_failed": acc.writes_failed,
        "failed_by_kind": acc.failed_by_kind,
        "time_split": run.split,
    }


def _middle(runs: Sequence[Any]) -> Any:
    """The run with the median seconds (the lower middle of an even count)."""
    return sorted(runs, key=lambda r: r.seconds)[(len(runs) - 1) // 2]


def workers_figures(runs: Sequence[WorkersRun]) -> dict[str, dict[str, Any]]:
    """``{"<W>": {WORKER_KEYS...}}``: medians over the runs of each worker count."""
    out: dict[str, dict[str, Any]] = {}
    for w in sorted({r.workers for r in runs}):
        mine = [r for r in runs if r.workers == w]
        p50 = [percentile(r.probe_samples, 50) for r in mine if r.probe_samples]
        p95 = [percentile(r.probe_samples, 95) for r in mine if r.probe_samples]
        objects = sum(r.objects for r in mine)
        fig = {
            "throughput_s": round(statistics.median(r.seconds for r in mine), 3),
            "latency_p50_s": None if not p50 else round(statistics.median(p50), 4),
            "latency_p95_s": None if not p95 else round(statistics.median(p95), 4),
            "cpu_s": median_or_none(r.cpu_s for r in mine),
            "peak_rss_mib": median_or_none(r.peak_rss_mib for r in mine),
            "failed_writes_per_object": (
                round(sum(r.accounting.writes_failed for r in mine) / objects, 3)
                if objects
                else None
            ),
        }
        out[str(w)] = {k: fig[k] for k in WORKER_KEYS}
    return out


def floor_figures(
    runs: Sequence[FloorRun], workers: int, scaling_size: int, sizes: Sequence[int] | None = None
) -> dict[str, Any]:
    """The ``floor`` object of bench.json: ``throughput_s`` by N (of ``sizes``; None: any) at
    ``workers`` threads,
    ``workers`` by thread count at N = ``scaling_size`` (``throughput_s``, the client's
    ``cpu_s``, ``writes_per_object``, ``failed_writes_per_object``), and ``writes_per_object``
    over every run (4 when the floor did what it says)."""
    by_n: dict[int, list[float]] = {}
    for r in runs:
        if r.workers == workers and (sizes is None or r.n in sizes):
            by_n.setdefault(r.n, []).append(r.seconds)
    scaled: dict[str, Any] = {}
    for w in sorted({r.workers for r in runs if r.n == scaling_size}):
        mine = [r for r in runs if r.workers == w and r.n == scaling_size]
        objects = sum(r.n for r in mine)
        scaled[str(w)] = {
            "throughput_s": round(statistics.median(r.seconds for r in mine), 3),
            "cpu_s": median_or_none(r.split.get("client_cpu_s") for r in mine),
            "writes_per_object": round(sum(r.accounting.writes_ok for r in mine) / objects, 3),
            "failed_writes_per_object": round(
                sum(r.accounting.writes_failed for r in mine) / objects, 3
            ),
        }
    objects = sum(r.n for r in runs)
    return {
        "throughput_s": {str(n): round(statistics.median(v), 3) for n, v in sorted(by_n.items())},
        "workers": scaled,
        "max_concurrent_reconciles": workers,
        "writes_per_object": (
            round(sum(r.accounting.writes_ok for r in runs) / objects, 3) if objects else None
        ),
    }


def floor_ratios(fig: Mapping[str, Any], floor: Mapping[str, Any]) -> dict[str, Any]:
    """``<impl>/floor``: ``throughput_s`` N by N (the N both have) and ``workers`` W by W."""
    mine, base = fig.get("throughput_s") or {}, floor.get("throughput_s") or {}
    w_mine, w_base = fig.get("workers") or {}, floor.get("workers") or {}
    return {
        "throughput_s": {
            n: ratio(mine.get(n), base.get(n)) for n in sorted(set(mine) & set(base), key=int)
        },
        "workers": {
            w: ratio(
                (w_mine.get(w) or {}).get("throughput_s"), (w_base.get(w) or {}).get("throughput_s")
            )
            for w in sorted(set(w_mine) & set(w_base), key=int)
        },
    }


def time_splits(
    results: Mapping[str, ImplResults],
    floor: Sequence[FloorRun],
    workers: int,
    scaling_size: int,
    sizes: Sequence[int] | None = None,
) -> dict[str, Any]:
    """``{"throughput": {who: {"<N>": SPLIT}}, "workers": {who: {"<W>": SPLIT}}}`` for each
    implementation and ``floor``: the split of the median run (``figures.time_split``)."""
    out: dict[str, dict[str, dict[str, Any]]] = {"throughput": {}, "workers": {}}
    for impl, res in results.items():
        loads = [r for r in res.loads if r.phase == "throughput" and r.split and r.seconds]
        out["throughput"][impl] = {
            str(n): _middle([r for r in loads if r.n == n]).split
            for n in sorted({r.n for r in loads})
        }
        out["workers"][impl] = {
            str(w): _middle([r for r in res.workers_runs if r.workers == w]).split
            for w in sorted({r.workers for r in res.workers_runs})
        }
    if floor:
        at_w = [r for r in floor if r.workers == workers and (sizes is None or r.n in sizes)]
        at_n = [r for r in floor if r.n == scaling_size]
        out["throughput"]["floor"] = {
            str(n): _middle([r for r in at_w if r.n == n]).split
            for n in sorted({r.n for r in at_w})
        }
        out["workers"]["floor"] = {
            str(w): _middle([r for r in at_n if r.workers == w]).split
            for w in sorted({r.workers for r in at_n})
        }
    return out


def build_report(
    results: Mapping[str, ImplResults],
    machine: Mapping[str, Any],
    settings: Mapping[str, Any],
    errors: Sequence[str] = (),
    floor: Sequence[FloorRun] = (),
) -> dict[str, Any]:
    """The bench.json document. Ratios are "<impl>/<first impl>" for each other
    implementation (``python/go`` when run as ``--impl go --impl python``), with ``workers``
    W by W; with floor runs, ``floor`` and "<impl>/floor" for each implementation."""
    impls = list(results)
    workers = int(settings.get("max_concurrent_reconciles") or 1)
    scaling_size = int(settings.get("scaling_size") or 0)
    sizes = [int(n) for n in settings.get("sizes") or []] or None
    figures = {impl: figures_of(res) for impl, res in results.items()}
    for impl, res in results.items():
        if res.workers_runs:
            figures[impl]["workers"] = workers_figures(res.workers_runs)
    ratios = {
        f"{impl}/{impls[0]}": ratio_figures(figures[impl], figures[impls[0]]) for impl in impls[1:]
    }
    for impl in impls[1:]:
        mine, base = figures[impl].get("workers") or {}, figures[impls[0]].get("workers") or {}
        if mine and base:
            ratios[f"{impl}/{impls[0]}"]["workers"] = {
                w: {k: ratio(mine[w].get(k), base[w].get(k)) for k in WORKER_KEYS}
                for w in sorted(set(mine) & set(base), key=int)
            }
    extra: dict[str, Any] = {}
    if floor:
        extra["floor"] = floor_figures(floor, workers, scaling_size, sizes)
        for impl in impls:
            ratios[f"{impl}/floor"] = floor_ratios(figures[impl], extra["floor"])
        extra["floor"]["runs"] = [
            {
                "n": r.n,
                "workers": r.workers,
                "seconds": round(r.seconds, 3),
                "writes_done_s": round(r.writes_done_s, 3),
                "create_seconds": round(r.create_seconds, 3),
                "writes_ok": r.accounting.writes_ok,
                "writes_failed": r.accounting.writes_failed,
                "writes_by_kind": r.accounting.writes_by_kind,
                "failed_by_kind": r.accounting.failed_by_kind,
                "time_split": r.split,
            }
            for r in floor
        ]
    splits = time_splits(results, floor, workers, scaling_size, sizes)
    report: dict[str, Any] = {
        "machine": dict(machine),
        "settings": dict(settings),
        "implementations": figures,
        "ratios": ratios,
        "latency_samples_s": {
            impl: sorted(round(s, 4) for r in res.latency for s in r.samples)
            for impl, res in results.items()
        },
        "details": {impl: details_of(res) for impl, res in results.items()},
        "errors": list(errors),
    }
    if "floor" in extra:
        report["floor"] = extra["floor"]
    report["time_split"] = splits
    return report


def missing_figures(report: Mapping[str, Any]) -> list[str]:
    """``impl.key`` (``impl.throughput_s[N]``) for each figure that is absent or None."""
    sizes = [str(n) for n in (report.get("settings") or {}).get("sizes", [])]
    out = []
    for impl, fig in (report.get("implementations") or {}).items():
        for key in FIGURE_KEYS:
            value = fig.get(key)
            if key == "throughput_s":
                out += [f"{impl}.{key}[{n}]" for n in sizes if (value or {}).get(n) is None]
            elif value is None:
                out.append(f"{impl}.{key}")
    return out


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
