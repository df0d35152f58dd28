"""unmetered-queue: the controller's work queue reports no metrics.

Anti-pattern: the work queue is built without the controller's metrics (here
``metrics.QueueMetrics`` is replaced by a subclass that records nothing), so
``workqueue_depth`` and ``workqueue_adds_total{name="modelservice"}`` stay at 0 however busy
the queue is: a dashboard or an alert on queue depth sees an idle controller, and a harness
that waits for a depth of 0 takes a busy queue for a settled one.

Why people write it: the metrics object is an optional argument of the queue, and a queue
without it works exactly the same.

What the correct operator does: the controller gives its queue the metrics named after it,
as controller-runtime does for every controller (create-converges: the adds counted).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import metrics


class UnmeteredQueueMetrics(metrics.QueueMetrics):
    """The mutant: whatever the name, queue metrics that create no series and record
    nothing."""

    def __init__(self, name: str) -> None:
        # No super().__init__: the workqueue_* series of the name are never created.
        pass

    def add(self) -> None:
        pass

    def get(self) -> None:
        pass


PATCHES = (mutants.Patch(metrics, "QueueMetrics", UnmeteredQueueMetrics),)

if __name__ == "__main__":
    mutants.main(PATCHES)
