"""The figures of reports/bench.json and the arithmetic on them.

FIGURES is an object with the keys of ``FIGURE_KEYS``, in that order (docs/design.md, section
"Measurements"): seconds (``*_s``), counts per ModelService or per reconcile, MiB; each a
number or None when its phase did not run. ``throughput_s`` is an object keyed by N as a
string (``{"100": 2.5}``). Pure functions: no API server, no processes.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: The figures of every implementation, in this order (docs/design.md, "Measurements").
FIGURE_KEYS: tuple[str, ...] = (
    "latency_p50_s",
    "latency_p95_s",
    "throughput_s",
    "writes_per_object",
    "object_writes_per_object",
    "event_writes_per_object",
    "failed_writes_per_object",
    "quiet_writes",
    "reconciles_per_object",
    "requests_per_reconcile",
    "peak_rss_mib",
    "restart_to_converged_s",
)

#: Labels for the table printed at the end.
FIGURE_LABELS = {
    "latency_p50_s": "latency p50 (s)",
    "latency_p95_s": "latency p95 (s)",
    "throughput_s": "N at once until all converged (s)",
    "writes_per_object": "writes per ModelService, Events included",
    "object_writes_per_object": "object writes per ModelService (floor 4)",
    "event_writes_per_object": "Event writes per ModelService (2 promised)",
    "failed_writes_per_object": "failed writes per ModelService",
    "quiet_writes": "writes in the quiet period (floor 0)",
    "reconciles_per_object": "reconciles per ModelService",
    "requests_per_reconcile": "API requests per reconcile",
    "peak_rss_mib": "peak RSS (MiB)",
    "restart_to_converged_s": "SIGKILL, restart to converged (s)",
}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks (numpy's
    default, "linear"). Raises ValueError on an empty sequence."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} outside 0..100")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def median_or_none(values: Iterable[float | None]) -> float | None:
    """The median of the values that are not None, or None if there are none."""
    present = [v for v in values if v is not None]
    return float(statistics.median(present)) if present else None


def ratio(num: float | None, den: float | None, digits: int = 2) -> float | None:
    """num / den rounded, or None when either is missing or den is 0 (no ratio to a floor of
    zero: 0/0 writes in a quiet period are both perfect, not "undefined times better")."""
    if num is None or den is None or isinstance(num, bool) or isinstance(den, bool):
        return None
    if den == 0:
        return None
    return round(num / den, digits)


def ratio_figures(num: Mapping[str, Any], den: Mapping[str, Any]) -> dict[str, Any]:
    """FIGURES of num / den, key by key; ``throughput_s`` N by N."""
    out: dict[str, Any] = {}
    for key in FIGURE_KEYS:
        if key == "throughput_s":
            a, b = num.get(key) or {}, den.get(key) or {}
            out[key] = {n: ratio(a.get(n), b.get(n)) for n in sorted({*a, *b}, key=int)}
        else:
            out[key] = ratio(num.get(key), den.get(key))
    return out


def empty_figures() -> dict[str, Any]:
    """FIGURES with nothing measured: every key None, ``throughput_s`` an empty object."""
    return {key: ({} if key == "throughput_s" else None) for key in FIGURE_KEYS}


#: The figures of one worker count (``implementations.<impl>.workers.<W>``), in this order.
WORKER_KEYS: tuple[str, ...] = (
    "throughput_s",
    "latency_p50_s",
    "latency_p95_s",
    "cpu_s",
    "peak_rss_mib",
    "failed_writes_per_object",
)

#: Labels of ``WORKER_KEYS`` for tables.
WORKER_LABELS = {
    "throughput_s": "N at once until all converged (s)",
    "latency_p50_s": "one change under that load, p50 (s)",
    "latency_p95_s": "one change under that load, p95 (s)",
    "cpu_s": "operator CPU while loaded (s)",
    "peak_rss_mib": "peak RSS (MiB)",
    "failed_writes_per_object": "failed writes per ModelService",
}

#: A client on a core this fraction of the wall time or more is limited by its own CPU.
CLIENT_BOUND = 0.85
#: The machine's cores busy (every process, ours or not) this fraction of the time or more:
#: limited by the machine's CPU.
MACHINE_BOUND = 0.9


def time_split(
    delta: Mapping[str, float | None],
    client_cpu_s: float | None,
    who: str,
    harness_cpu_s: float | None = None,
) -> dict[str, Any]:
    """Where the wall time of one run went, from the CPU seconds used meanwhile
    (``harness.bench.measure.CpuSnapshot.delta``: ``wall``, ``kube-apiserver``, ``etcd``,
    ``harness``, ``machine_busy``, ``machine_total``). ``client_cpu_s``: the operator
    process's CPU, or the floor client's threads'; ``harness_cpu_s`` overrides ``harness``
    (the floor subtracts its own threads). ``who`` names the client in ``limited_by``.

    Returns the seconds of each, ``other_cpu_s`` (the machine's busy time no process of the
    run accounts for: other users of the machine), ``machine_busy`` (fraction of all cores),
    ``client_waiting_s`` (wall minus the client's CPU: time it waited on answers, events or
    a core) and ``limited_by`` with ``why``: "<who> CPU" when the client was on a core at
    least ``CLIENT_BOUND`` of the time, else "machine CPU" when every core was busy at least
    ``MACHINE_BOUND`` of the time, else "waiting" (round trips: neither the client nor the
    machine was busy)."""
    wall = float(delta.get("wall") or 0.0)
    api, etcd = delta.get("kube-apiserver"), delta.get("etcd")
    harness = delta.get("harness") if harness_cpu_s is None else harness_cpu_s
    busy_s, total_s = (
        float(delta.get("machine_busy") or 0.0),
        float(delta.get("machine_total") or 0.0),
    )
    ours = sum(v for v in (client_cpu_s, api, etcd, harness) if v is not None)
    busy = busy_s / total_s if total_s > 0 else None
    out: dict[str, Any] = {
        "wall_s": round(wall, 3),
        "client_cpu_s": None if client_cpu_s is None else round(client_cpu_s, 2),
        "apiserver_cpu_s": api,
        "etcd_cpu_s": etcd,
        "harness_cpu_s": None if harness is None else round(harness, 2),
        "other_cpu_s": round(max(0.0, busy_s - ours), 2) if total_s > 0 else None,
        "machine_busy": None if busy is None else round(busy, 3),
        "client_waiting_s": (
            None if client_cpu_s is None else round(max(0.0, wall - client_cpu_s), 3)
        ),
    }
    label, why = limited_by(wall, client_cpu_s, (api or 0.0) + (etcd or 0.0), busy, who)
    out["limited_by"], out["why"] = label, why
    return out


def limited_by(
    wall: float,
    client_cpu_s: float | None,
    server_cpu_s: float,
    machine_busy: float | None,
    who: str,
) -> tuple[str, str]:
    """The resource that limited a run, and the numbers that say so (``time_split``'s rule).
    Cores are CPU seconds per wall second."""
    if wall <= 0 or client_cpu_s is None:
        return "unknown", "no CPU times"
    client, server = client_cpu_s / wall, server_cpu_s / wall
    numbers = f"{who} {client:.2f} cores, kube-apiserver + etcd {server:.2f} cores" + (
        "" if machine_busy is None else f", machine {machine_busy:.0%} busy"
    )
    if client >= CLIENT_BOUND:
        return f"{who} CPU", numbers
    if machine_busy is not None and machine_busy >= MACHINE_BOUND:
        return "machine CPU", numbers
    return "waiting", numbers


def spread_of(values: Sequence[float], digits: int = 3) -> dict[str, Any]:
    """``{"median", "min", "max", "runs"}`` of the values of one figure's runs."""
    return {
        "median": round(float(statistics.median(values)), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
        "runs": len(values),
    }
