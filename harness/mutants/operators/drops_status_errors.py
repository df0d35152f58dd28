"""drops-status-errors: a status write that fails is logged and dropped, so a refused status is never written once the refusal is lifted.

Anti-pattern: the status is treated as best effort. Step 6's write fails (403 from an
admission policy or a webhook, a 422, a 5xx) and the reconcile logs it and returns success:
the work queue forgets the key. The Warning Event is there, but nothing brings the key back
when the cause goes away, since removing a policy changes nothing the operator watches: the
status keeps describing an older generation until some unrelated event arrives.

Why people write it: "the children are right, the status is only a report", often written as
``_ = r.Status().Update(ctx, obj)``; a status that fails to write looks harmless in a demo,
where the next event comes soon enough.

What the correct operator does: it returns the status write's error (a 404 excepted: the
ModelService is gone), and the rate-limited work queue tries the key again with backoff (5 ms
doubling per failure, at most 1000 s); once the refusal is lifted that attempt writes the
status (refused-write-reported[status-refused]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client, log

_update_status = controller.ModelServiceReconciler.update_status


def update_status_best_effort(
    self: controller.ModelServiceReconciler, ms: Any, status: Any, rlog: Any
) -> None:
    """The real status write, but a failure other than 404 is logged and dropped."""
    try:
        _update_status(self, ms, status, rlog)
    except client.ApiError as err:
        if client.is_not_found(err):
            raise
        log.get_logger("mutant").info("status not written, not retried", error=str(err))


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "update_status", update_status_best_effort),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
