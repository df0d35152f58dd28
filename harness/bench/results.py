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
    empty_figures,
    percentile,
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
        fig["writes_per_object"] = round(sum(r.accounting.writes_ok for r in res.loads) / objects, 3)
        fig["failed_writes_per_object"] = round(
            sum(r.accounting.writes_failed for r in res.loads) / objects, 3)
        fig["reconciles_per_object"] = round(sum(r.reconciles for r in res.loads) / objects, 3)
    reconciles = sum(r.reconciles for r in res.loads)
    if reconciles:
        fig["requests_per_reconcile"] = round(
            sum(r.accounting.requests for r in res.loads) / reconciles, 3)
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
        "latency_runs": [{"objects": len(r.samples), "p50_s": round(r.p50, 4),
                          "p95_s": round(r.p95, 4), "max_s": round(max(r.samples), 4),
                          "samples_in_creation_order_s": [round(x, 4) for x in r.samples]}
                         for r in res.latency],
        "load_runs": [{"phase": r.phase, "n": r.n, "seconds": r.seconds,
                       "create_seconds": round(r.create_seconds, 3),
                       "reconciles": r.reconciles, "requests": r.accounting.requests,
                       "operator_cpu_s": r.operator_cpu_s,
                       "writes_ok": r.accounting.writes_ok,
                       "writes_failed": r.accounting.writes_failed,
                       "writes_by_kind": r.accounting.writes_by_kind,
                       "failed_by_kind": r.accounting.failed_by_kind,
                       "requests_by_kind": r.accounting.requests_by_kind}
                      for r in res.loads],
        "writes_by_kind": dict(sorted(writes.items())),
        "failed_writes": explain_failed(failed),
        "restart_runs": [asdict(r) for r in res.restarts],
        "quiet_runs": [asdict(q) for q in res.quiet],
        "peak_rss_mib_runs": res.rss_mib,
        "peak_rss_mib_by_n": {str(n): v for n, v in sorted(res.rss_by_n.items())},
        "warmup_object_s": res.warmups_s,
    }


def build_report(results: Mapping[str, ImplResults], machine: Mapping[str, Any],
                 settings: Mapping[str, Any], errors: Sequence[str] = ()) -> dict[str, Any]:
    """The bench.json document. Ratios are "<impl>/<first impl>" for each other
    implementation (``python/go`` when run as ``--impl go --impl python``)."""
    impls = list(results)
    figures = {impl: figures_of(res) for impl, res in results.items()}
    ratios = {f"{impl}/{impls[0]}": ratio_figures(figures[impl], figures[impls[0]])
              for impl in impls[1:]}
    return {
        "machine": dict(machine),
        "settings": dict(settings),
        "implementations": figures,
        "ratios": ratios,
        "latency_samples_s": {impl: sorted(round(s, 4) for r in res.latency for s in r.samples)
                              for impl, res in results.items()},
        "details": {impl: details_of(res) for impl, res in results.items()},
        "errors": list(errors),
    }


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
            ns = sorted({n for i in impls for n in report["implementations"][i].get(key) or {}},
                        key=int)
            for n in ns:
                rows.append([f"N = {n} at once until all converged (s)",
                             *[_fmt((report["implementations"][i].get(key) or {}).get(n))
                               for i in impls],
                             *[_fmt((report["ratios"][r].get(key) or {}).get(n)) for r in ratios]])
            continue
        rows.append([FIGURE_LABELS[key], *[_fmt(report["implementations"][i].get(key)) for i in impls],
                     *[_fmt(report["ratios"][r].get(key)) for r in ratios]])
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                       for c, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
