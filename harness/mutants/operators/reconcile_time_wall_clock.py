"""reconcile-time-wall-clock: the reconcile-time histogram observes a reconcile's end on the
wall clock minus its start on the monotonic clock.

Anti-pattern: the reconcile's start is read from ``time.monotonic()`` (seconds since boot)
and its end from ``time.time()`` (seconds since 1970), so every observation of
``controller_runtime_reconcile_time_seconds`` is about the epoch minus the uptime: some
fifty years per reconcile. Every one lands in the +Inf bucket, the mean is meaningless, and an
alert on slow reconciles fires for ever (or is silenced, and misses the real ones).

Why people write it: both are "the time" in seconds as a float; a refactoring moves one of
the two reads, and nothing that reconciles looks at the histogram.

What the correct operator does: one reconcile's duration in seconds, its end minus its start
on the same monotonic clock (controller-runtime: ``time.Since(reconcileStartTS)``;
CONTRACT.md, "Metrics"). create-converges bounds the histogram's sum by its count times the
seconds the process has run.
"""

from __future__ import annotations

import time
from typing import Any

from harness import mutants
from python_operator.runtime import metrics

real_histogram = metrics.RECONCILE_TIME


class _Series:
    """One labelled series of the real histogram, observed as the mutant does."""

    def __init__(self, series: Any) -> None:
        self._series = series

    def observe(self, amount: float) -> None:
        # the caller measured monotonic() - start; the mutant's end is on the wall clock
        start = time.monotonic() - amount
        self._series.observe(time.time() - start)


class WallClockHistogram:
    """The mutant's RECONCILE_TIME: the real histogram (still the one /metrics exposes)."""

    def labels(self, **labels: str) -> _Series:
        return _Series(real_histogram.labels(**labels))


PATCHES = (mutants.Patch(metrics, "RECONCILE_TIME", WallClockHistogram()),)

if __name__ == "__main__":
    mutants.main(PATCHES)
