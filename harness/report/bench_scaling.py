"""The floor, the worker scaling and the spread over runs of ``reports/bench.json`` as parts of
the report model (``Scaling``, ``Spread``; ``harness.report.model.bench_model`` puts them on
its ``Bench``), and the note that says in words what the scaling measured.

Reads (all optional; shapes in ``harness.bench``)::

    {"floor": {"throughput_s": {"<N>": s}, "workers": {"<W>": {"throughput_s": s, ...}},
               "max_concurrent_reconciles": W},
     "implementations": {"<impl>": {..., "workers": {"<W>": {"throughput_s": s, ...}}}},
     "ratios": {"<impl>/floor": {"throughput_s": {"<N>": r}, "workers": {"<W>": r}}},
     "time_split": {"throughput": {"<who>": {"<N>": SPLIT}}, "workers": {"<who>": {"<W>": SPLIT}}}}

``who`` is an implementation or ``floor``; SPLIT has ``wall_s``, ``client_cpu_s``,
``apiserver_cpu_s``, ``etcd_cpu_s``, ``harness_cpu_s``, ``other_cpu_s``, ``machine_busy``,
``limited_by`` and ``why``. The spread (``spread_model``) reads
``{"floor": {"capacity": {"writes_per_s": x}}, "spread": {who: {figure: {"median", "min",
"max", "runs"}}}}``, ``throughput_s`` and ``workers`` figures keyed by N or W. Pure: no files,
no HTML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The figures of one worker count, with their labels and units, in table order.
WORKER_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("throughput_s", "N at once until all converged", "s"),
    ("latency_p50_s", "one change under that load, p50", "s"),
    ("latency_p95_s", "one change under that load, p95", "s"),
    ("cpu_s", "CPU while loaded", "s"),
    ("peak_rss_mib", "peak RSS", "MiB"),
    ("failed_writes_per_object", "failed writes per ModelService", ""),
)


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


@dataclass
class Scaling:
    """The floor and the worker scaling of one bench run."""

    #: the floor's worker count for ``floor`` (the bench's MAX_CONCURRENT_RECONCILES)
    floor_workers: int
    #: [(N, seconds until all N converged)] of the floor, by N
    floor: list[tuple[int, float]]
    #: implementation -> N -> its time / the floor's
    floor_ratios: dict[str, dict[int, float | None]]
    #: who (an implementation or "floor") -> W -> {figure key: value}
    workers: dict[str, dict[int, dict[str, float | None]]]
    #: implementation -> W -> its throughput / the floor's at W
    worker_ratios: dict[str, dict[int, float | None]]
    #: who -> N -> SPLIT (throughput runs)
    splits_n: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    #: who -> W -> SPLIT (scaling runs)
    splits_w: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    #: bench.json's ``cpu`` (``harness.bench.paired.cpu_figures``): CPU ms per object, ratios
    cpu: dict[str, Any] = field(default_factory=dict)

    @property
    def worker_counts(self) -> list[int]:
        """Every worker count measured, ascending."""
        return sorted({w for by_w in self.workers.values() for w in by_w})

    @property
    def who(self) -> list[str]:
        """``floor`` first (when measured), then the implementations with scaling runs."""
        return sorted(self.workers, key=lambda w: (w != "floor", 0))


def _by_int(obj: Any) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for key, value in (obj or {}).items() if isinstance(obj, Mapping) else ():
        try:
            out[int(key)] = value
        except ValueError:
            continue
    return dict(sorted(out.items()))


def scaling_model(data: Mapping[str, Any], impls: list[str]) -> Scaling | None:
    """The floor and scaling figures of a bench.json dict, or None when it has neither."""
    floor = data.get("floor") or {}
    figures: Mapping[str, Any] = data.get("implementations") or {}
    has_workers = any((figures.get(i) or {}).get("workers") for i in impls)
    if not floor and not has_workers:
        return None
    ratios = data.get("ratios") or {}
    floor_s = [
        (n, s) for n, v in _by_int(floor.get("throughput_s")).items() if (s := _num(v)) is not None
    ]
    floor_map = dict(floor_s)
    floor_ratios: dict[str, dict[int, float | None]] = {}
    for impl in impls:
        given = _by_int((ratios.get(f"{impl}/floor") or {}).get("throughput_s"))
        mine = _by_int((figures.get(impl) or {}).get("throughput_s"))
        floor_ratios[impl] = {
            n: _num(given.get(n))
            if _num(given.get(n)) is not None
            else (round(v, 2) if (v := _ratio(_num(mine.get(n)), base)) is not None else None)
            for n, base in floor_map.items()
        }
    workers: dict[str, dict[int, dict[str, float | None]]] = {}
    if floor.get("workers"):
        workers["floor"] = {
            w: {k: _num((f or {}).get(k)) for k, _, _ in WORKER_FIGURES}
            for w, f in _by_int(floor.get("workers")).items()
        }
    for impl in impls:
        by_w = _by_int((figures.get(impl) or {}).get("workers"))
        if by_w:
            workers[impl] = {
                w: {k: _num((f or {}).get(k)) for k, _, _ in WORKER_FIGURES}
                for w, f in by_w.items()
            }
    worker_ratios: dict[str, dict[int, float | None]] = {}
    for impl in impls:
        if impl not in workers:
            continue
        given = _by_int((ratios.get(f"{impl}/floor") or {}).get("workers"))
        worker_ratios[impl] = {}
        for w, f in workers[impl].items():
            r = _num(given.get(w))
            if r is None:
                base = (workers.get("floor") or {}).get(w, {}).get("throughput_s")
                q = _ratio(f.get("throughput_s"), base)
                r = None if q is None else round(q, 2)
            worker_ratios[impl][w] = r
    splits = data.get("time_split") or {}
    return Scaling(
        floor_workers=int(_num(floor.get("max_concurrent_reconciles")) or 1),
        floor=floor_s,
        floor_ratios=floor_ratios,
        workers=workers,
        worker_ratios=worker_ratios,
        cpu=dict(data.get("cpu") or {}),
        splits_n={who: _by_int(v) for who, v in (splits.get("throughput") or {}).items()},
        splits_w={who: _by_int(v) for who, v in (splits.get("workers") or {}).items()},
    )


@dataclass(frozen=True)
class SpreadRow:
    """One figure that is a median of runs, with its min and max."""

    who: str
    #: the figure's label (``N = 10 at once``, ``2 worker(s), N at once`` or its key)
    label: str
    median: Any
    min: Any
    max: Any
    runs: Any


@dataclass
class Spread:
    """The API server's write capacity and the spread over runs of each median figure."""

    #: writes/s of the floor client at a saturating concurrency (None: not measured)
    capacity_writes_per_s: float | None
    rows: list[SpreadRow]


def spread_model(data: Mapping[str, Any]) -> Spread:
    """``floor.capacity`` and ``spread`` of a bench.json dict (empty when it has neither)."""
    capacity = ((data.get("floor") or {}).get("capacity") or {}).get("writes_per_s")
    rows = []
    what = {"throughput_s": "N = {} at once", "workers": "{} worker(s), N at once"}
    for who, figs in (data.get("spread") or {}).items():
        for key, value in figs.items():
            items = value.items() if key in what else [("", value)]
            for at, sp in items:
                label = what[key].format(at) if key in what else key
                rows.append(
                    SpreadRow(
                        who, label, sp.get("median"), sp.get("min"), sp.get("max"), sp.get("runs")
                    )
                )
    number = capacity if isinstance(capacity, int | float) else None
    return Spread(capacity_writes_per_s=number, rows=rows)


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _s(value: float | None) -> str:
    return "–" if value is None else (f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}")


def scaling_note(sc: Scaling, impls: list[str]) -> list[str]:
    """The note, one paragraph per item: each implementation's ratio to the floor at each N,
    then each one's scaling curve with what limited it at each worker count (the bench's
    ``limited_by``, from measured CPU times)."""
    out = []
    if sc.floor:
        parts = []
        for n, s in sc.floor:
            ratios = ", ".join(
                f"{impl} {_s(sc.floor_ratios.get(impl, {}).get(n))}×" for impl in impls
            )
            parts.append(f"N = {n}: floor {_s(s)} s; {ratios}")
        out.append(
            f"Against the floor (the four writes per ModelService and nothing else, "
            f"{sc.floor_workers} worker(s)): " + "; ".join(parts) + "."
        )
        limits = _limits(sc.splits_n, [n for n, _ in sc.floor], ["floor", *impls])
        if limits:
            out.append("What limited those runs (measured CPU): " + limits + ".")
    cpu = cpu_note(sc.cpu)
    if cpu:
        out.append(cpu)
    counts = sc.worker_counts
    for who in sc.who:
        by_w = sc.workers.get(who) or {}
        if not by_w:
            continue
        curve = " → ".join(f"{_s(f.get('throughput_s'))} s" for _, f in sorted(by_w.items()))
        first, last = min(by_w), max(by_w)
        speed = _ratio(by_w[first].get("throughput_s"), by_w[last].get("throughput_s"))
        text = f"{who}, {'/'.join(str(w) for w in sorted(by_w))} workers: {curve}" + (
            f" ({speed:.2f}× as fast at {last} as at {first})" if speed else ""
        )
        if who != "floor":
            ratios = ", ".join(f"{_s(r)}× at {w}" for w, r in sc.worker_ratios.get(who, {}).items())
            if ratios:
                text += f"; to the floor {ratios}"
            cpu = " → ".join(f"{_s(f.get('cpu_s'))}" for _, f in sorted(by_w.items()))
            p95 = " → ".join(f"{_s(f.get('latency_p95_s'))}" for _, f in sorted(by_w.items()))
            text += f"; CPU {cpu} s; one change's p95 under load {p95} s"
        limits = _limits(sc.splits_w, counts, [who], unit="worker(s)")
        if limits:
            text += f". Limited by: {limits}"
        out.append(text + ".")
    return out


def cpu_note(cpu: Mapping[str, Any]) -> str:
    """One paragraph of bench.json's ``cpu``: each ratio of CPU per object (``python/go``,
    ``<impl>/floor``) for the latency runs, each N and each worker count. "" without it."""
    parts = []
    for key, figs in (cpu.get("ratios") or {}).items():
        cells = []
        if _num(figs.get("latency")) is not None:
            cells.append(f"one at a time {_s(_num(figs.get('latency')))}×")
        for fig, label in (("throughput", "N = {}"), ("workers", "{} worker(s)")):
            cells += [
                f"{label.format(at)} {_s(_num(v))}×" for at, v in _by_int(figs.get(fig)).items()
            ]
        if cells:
            parts.append(f"{key}: " + ", ".join(cells))
    if not parts:
        return ""
    return (
        "CPU per object (the operator's CPU time from the first create until its Events were "
        "written, not counting waits for a core; the floor client's for its writes): "
        + "; ".join(parts)
        + "."
    )


def split_numbers(sp: Mapping[str, Any], who: str = "operator") -> str:
    """A SPLIT's cores in words: the client's (``who``: an implementation, "floor"), the API
    server's and etcd's, other processes' (not the run's: a shared machine), the machine's."""
    wall = _num(sp.get("wall_s")) or 0.0
    if wall <= 0:
        return ""
    client = (_num(sp.get("client_cpu_s")) or 0.0) / wall
    server = ((_num(sp.get("apiserver_cpu_s")) or 0.0) + (_num(sp.get("etcd_cpu_s")) or 0.0)) / wall
    busy, other = _num(sp.get("machine_busy")), _num(sp.get("other_cpu_s"))
    name = "floor client" if who == "floor" else f"{who} operator"
    return (
        f"{name} {client:.2f} cores, kube-apiserver + etcd {server:.2f}"
        + ("" if other is None else f", other processes {other / wall:.2f}")
        + ("" if busy is None else f", machine {busy:.0%} busy")
    )


def _limits(
    splits: Mapping[str, Mapping[int, Mapping[str, Any]]],
    keys: list[int],
    who: list[str],
    unit: str = "",
) -> str:
    parts = []
    for w in who:
        for k in keys:
            sp = (splits.get(w) or {}).get(k)
            if not sp or not sp.get("limited_by"):
                continue
            where = f"{k} {unit}" if unit else f"{w} N = {k}"
            parts.append(f"{where}: {sp['limited_by']} ({split_numbers(sp, w)})")
    return "; ".join(parts)
