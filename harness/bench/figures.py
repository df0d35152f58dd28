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
    "writes_per_object": "writes per ModelService (floor 4)",
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
