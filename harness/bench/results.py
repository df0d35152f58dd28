"""The measurements of a bench run and the bench.json document made of them.

Each phase appends a run record (``LatencyRun``, ``LoadRun``, ``RestartRun``, ``QuietRun``) to
its implementation's ``ImplResults``; ``build_report`` turns them into the document written to
``reports/bench.json`` (shape in the ``harness.bench`` docstring); ``harness.bench.tables`` prints
it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.bench.accounting import RequestCounts, explain_failed
from harness.bench.figures import (
    FIGURE_KEYS,
    WORKER_KEYS,
    empty_figures,
    median_or_none,
    percentile,
    ratio,
    ratio_figures,
    spread_of,
)
from harness.bench.paired import cpu_figures, floor_pairs, floor_ratio_figures


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
    accounting: RequestCounts
    #: user + system CPU seconds of the operator process from its start to settled
    operator_cpu_s: float | None = None
    #: throughput: where the time went (``harness.bench.figures.time_split``)
    split: dict[str, Any] | None = None
    #: the sum of the counts of the Events in the namespace once their writes stopped
    events_stored: int | None = None
    #: the repeat this run belongs to (runs of one round are made one after another)
    round: int = 0
    #: CPU seconds (``CpuSnapshot.delta``: ``operator``, ``kube-apiserver``, ``etcd``,
    #: ``wall``) from the first create until settled and the Events stopped changing
    window_cpu: dict[str, Any] | None = None


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
    accounting: RequestCounts


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
    accounting: RequestCounts
    split: dict[str, Any]
    #: the repeat this run belongs to (``paired``: compared with the operators' of the round)
    round: int = 0


@dataclass
class CapacityRun:
    """One run of the floor client at a saturating concurrency: the writes the API server
    answered (the audit log's count of the floor user's) over the seconds from the start line to
    the last write answered."""

    n: int
    concurrency: int
    writes: int
    seconds: float
    writes_per_s: float | None
    apiserver_cpu_s: float | None = None
    etcd_cpu_s: float | None = None
    machine_busy: float | None = None


def capacity_figures(runs: Sequence[CapacityRun]) -> dict[str, Any]:
    """The ``floor.capacity`` object: ``writes_per_s`` (the most any concurrency reached, the
    median of its runs), ``by_concurrency`` (``{"<C>": {"median", "min", "max"}}``) and the
    runs."""
    by_c: dict[int, list[float]] = {}
    for r in runs:
        if r.writes_per_s is not None:
            by_c.setdefault(r.concurrency, []).append(r.writes_per_s)
    spread = {str(c): spread_of(v) for c, v in sorted(by_c.items())}
    best = max((s["median"] for s in spread.values()), default=None)
    return {
        "writes_per_s": best,
        "by_concurrency": spread,
        "runs": [asdict(r) for r in runs],
    }


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
    accounting: RequestCounts
    split: dict[str, Any]
    #: the repeat this run belongs to
    round: int = 0
    #: CPU seconds as ``LoadRun.window_cpu``: first create until settled, Events written
    window_cpu: dict[str, Any] | None = None
    #: the sum of the counts of the Events in the namespace once their writes stopped
    events_stored: int | None = None

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
        fig["object_writes_per_object"] = round(
            sum(r.accounting.object_writes for r in res.loads) / objects, 3
        )
        fig["event_writes_per_object"] = round(
            sum(r.accounting.event_writes for r in res.loads) / objects, 3
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
                "object_writes": r.accounting.object_writes,
                "event_writes": r.accounting.event_writes,
                "events_stored": r.events_stored,
                "round": r.round,
                "window_cpu": r.window_cpu,
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
        "object_writes": acc.object_writes,
        "event_writes": acc.event_writes,
        "events_stored": run.events_stored,
        "failed_by_kind": acc.failed_by_kind,
        "round": run.round,
        "window_cpu": run.window_cpu,
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
    capacity: Sequence[CapacityRun] = (),
) -> dict[str, Any]:
    """The bench.json document. Ratios are "<impl>/<first impl>" for each other
    implementation (``python/go`` when run as ``--impl go --impl python``), with ``workers``
    W by W; with floor runs, ``floor`` (``client``: the Go floor client; ``capacity``: the
    API server's write capacity, ``capacity_figures``) and "<impl>/floor" for each
    implementation (the median over rounds of the run's seconds over the floor's of the same
    round, ``paired.floor_pairs``; their min and max in ``spread["<impl>/floor"]``); ``cpu``:
    CPU milliseconds per object and their ratios (``paired.cpu_figures``);
    ``spread`` (``spread_figures``): median, min and max of every figure that
    is a median of runs."""
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
        extra["floor"]["client"] = FLOOR_CLIENT
        if capacity:
            extra["floor"]["capacity"] = capacity_figures(capacity)
        # each implementation's run over the floor's of the same round (``paired``)
        floor_ratios, floor_spread = floor_ratio_figures(
            floor_pairs(results, floor, workers, scaling_size, sizes)
        )
        ratios.update(floor_ratios)
        extra["floor"]["runs"] = [
            {
                "n": r.n,
                "workers": r.workers,
                "round": r.round,
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
    report["spread"] = spread_figures(results, floor, workers, scaling_size, sizes)
    if floor:
        report["spread"].update(floor_spread)
    cpu = cpu_figures(results, floor, workers, scaling_size)
    if cpu:
        report["cpu"] = cpu
    report["time_split"] = splits
    return report


#: ``floor.client`` in bench.json: what made the floor's writes.
FLOOR_CLIENT = (
    "go: harness/bench/floorclient (client-go, no informer, no work queue, no rate limit)"
)


def spread_figures(
    results: Mapping[str, ImplResults],
    floor: Sequence[FloorRun],
    workers: int,
    scaling_size: int,
    sizes: Sequence[int] | None = None,
) -> dict[str, Any]:
    """``{who: {"latency_p50_s", "latency_p95_s", "restart_to_converged_s": SPREAD,
    "throughput_s": {"<N>": SPREAD}, "workers": {"<W>": SPREAD}}}`` for each implementation
    and ``floor`` (``throughput_s`` and ``workers`` only), SPREAD being ``spread_of`` the runs'
    seconds: the figures are their medians, min and max say how far one noisy run can be."""
    out: dict[str, Any] = {}
    for impl, res in results.items():
        mine: dict[str, Any] = {}
        if res.latency:
            mine["latency_p50_s"] = spread_of([r.p50 for r in res.latency], 4)
            mine["latency_p95_s"] = spread_of([r.p95 for r in res.latency], 4)
        loads = [r for r in res.loads if r.phase == "throughput" and r.seconds is not None]
        mine["throughput_s"] = {
            str(n): spread_of([float(r.seconds or 0) for r in loads if r.n == n])
            for n in sorted({r.n for r in loads})
        }
        mine["workers"] = {
            str(w): spread_of([r.seconds for r in res.workers_runs if r.workers == w])
            for w in sorted({r.workers for r in res.workers_runs})
        }
        if res.restarts:
            mine["restart_to_converged_s"] = spread_of([r.seconds for r in res.restarts])
        out[impl] = mine
    if floor:
        at_w = [r for r in floor if r.workers == workers and (sizes is None or r.n in sizes)]
        out["floor"] = {
            "throughput_s": {
                str(n): spread_of([r.seconds for r in at_w if r.n == n])
                for n in sorted({r.n for r in at_w})
            },
            "workers": {
                str(w): spread_of(
                    [r.seconds for r in floor if r.n == scaling_size and r.workers == w]
                )
                for w in sorted({r.workers for r in floor if r.n == scaling_size})
            },
        }
    return out


def floor_violations(report: Mapping[str, Any]) -> list[str]:
    """Each ``<impl>/floor`` ratio below 1, as ``"go/floor throughput_s[100] = 0.96"``: an
    implementation that beat the floor, so the floor is not one (issue 28). [] when none."""
    out = []
    for key, ratios in (report.get("ratios") or {}).items():
        if not key.endswith("/floor"):
            continue
        for figure in ("throughput_s", "workers"):
            for at, value in (ratios.get(figure) or {}).items():
                if value is not None and value < 1:
                    out.append(f"{key} {figure}[{at}] = {value}")
    return out


def floor_gaps(report: Mapping[str, Any]) -> list[str]:
    """Each ``<impl>/floor`` ratio the run should have and has not, as
    ``"python/floor workers[16]"``: one per implementation at every N of ``settings.sizes``
    and every W of ``settings.scaling_workers`` (issue 28: the floor at N = 100/500/1000 and
    at 1/4/16 workers), and each spread of fewer runs than its settings asked for
    (``"spread go throughput_s[1000]: 2 runs of 3"``). [] when the floor was not run
    (``settings.floor`` "not run") or nothing is missing."""
    sets = report.get("settings") or {}
    if not report.get("floor") or sets.get("floor") == "not run":
        return []
    sizes = [str(n) for n in sets.get("sizes") or []]
    workers = [str(w) for w in sets.get("scaling_workers") or []]
    ratios = report.get("ratios") or {}
    out = []
    for impl in report.get("implementations") or {}:
        mine = ratios.get(f"{impl}/floor") or {}
        for figure, keys in (("throughput_s", sizes), ("workers", workers)):
            got = mine.get(figure) or {}
            out += [f"{impl}/floor {figure}[{k}]" for k in keys if got.get(k) is None]
    wanted = {
        "latency_p50_s": sets.get("latency_repeats"),
        "latency_p95_s": sets.get("latency_repeats"),
        "throughput_s": sets.get("throughput_repeats"),
        "workers": sets.get("scaling_repeats"),
    }
    for who, figs in (report.get("spread") or {}).items():
        for figure, runs in wanted.items():
            value = figs.get(figure)
            each = value.items() if figure in ("throughput_s", "workers") else [("", value)]
            for at, sp in each:
                if runs and isinstance(sp, Mapping) and int(sp.get("runs") or 0) < int(runs):
                    where = f"{figure}[{at}]" if at else figure
                    out.append(f"spread {who} {where}: {sp.get('runs')} runs of {runs}")
    return out


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
