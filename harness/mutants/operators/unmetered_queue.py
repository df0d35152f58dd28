"""unmetered-queue: the controller's work queue reports no metrics.

Anti-pattern: the work queue is built without the controller's metrics (here
``metrics.QueueMetrics`` hands back the no-op ``workqueue.NoMetrics``), so
``workqueue_depth`` and ``workqueue_adds_total{name="modelservice"}`` stay at 0 however busy
the queue is: a dashboard or an alert on queue depth sees an idle controller, and a harness
that waits for a depth of 0 takes a busy queue for a settled one.

Why people write it: the metrics object is an optional argument of the queue, and a queue
without it works exactly the same.

What the correct operator does: the controller gives its queue the metrics named after it,
as controller-runtime does for every controller (create-converges: the adds counted).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import metrics, workqueue


def no_queue_metrics(name: str) -> Any:
    """The mutant: whatever the name, a queue metrics object that records nothing."""
    return workqueue.NoMetrics()


PATCHES = (mutants.Patch(metrics, "QueueMetrics", no_queue_metrics),)

if __name__ == "__main__":
    mutants.main(PATCHES)
