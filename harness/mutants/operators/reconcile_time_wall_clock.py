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

from harness import mutants
from python_operator.runtime import controller as controller_
from python_operator.runtime import metrics
from python_operator.runtime.reconcile import Request


class WallClockController(controller_.Controller):
    """The real controller, whose reconcile_handler (copied, one line changed) observes the
    reconcile's end on the wall clock against its start on the monotonic clock."""

    def reconcile_handler(self, req: Request) -> None:
        start = time.monotonic()
        try:
            try:
                result = self._reconciler.reconcile(req)
            except Exception as err:
                error = controller_._describe(err)
                if not isinstance(err, self.errors):
                    self._observe_panic(req, err)
                    error = f"panic: {error} [recovered]"
                self.queue.add_rate_limited(req)
                metrics.RECONCILE_ERRORS.labels(controller=self.name).inc()
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="error").inc()
                self._log.error(
                    "Reconciler error",
                    namespace=req.namespace,
                    name=req.name,
                    modelservice=str(req),
                    error=error,
                )
                return
            if result.requeue_after.total_seconds() > 0:
                self.queue.forget(req)
                self.queue.add_after(req, result.requeue_after)
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="requeue_after").inc()
            elif result.requeue:
                self.queue.add_rate_limited(req)
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="requeue").inc()
            else:
                self.queue.forget(req)
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="success").inc()
        finally:
            # the mutant: the end on the wall clock, the start on the monotonic one
            metrics.RECONCILE_TIME.labels(controller=self.name).observe(time.time() - start)


PATCHES = (mutants.Patch(controller_, "Controller", WallClockController),)

if __name__ == "__main__":
    mutants.main(PATCHES)
