"""cleanup-past-refusal: a refused child delete does not end the pass: the next child is deleted, and the refused one is retried on the 1 s poll.

Anti-pattern: step 2 sends every child's delete whatever the previous one answered. A delete
the API server refuses (403 from an admission policy or a webhook, a 5xx) is recorded as a
Warning and the child counted as "still there", so the finalizer stays, but the loop goes on:
the Service is deleted while the refused Deployment keeps its pods running, and the refused
delete comes back on the pass's timed requeue (1 s), not with the work queue's backoff.

Why people write it: "delete what you can" looks more robust than stopping at the first
error, and the finalizer still waits for the refused child, so nothing is left behind.

What the correct operator does: the failed delete is the pass's error (CONTRACT.md,
"Deletion"): the pass ends with it, the children after it (the Service after the Deployment)
stay until the delete is admitted, and the key is retried with backoff
(finalizer-ordered-delete[delete-refused] reads the Service still stored while the
Deployment's deletes are refused).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client, log

_finalize_child = controller.ModelServiceReconciler.finalize_child


def finalize_child_past_refusal(
    self: controller.ModelServiceReconciler, ms: Any, resource: Any, child: Any, rlog: Any
) -> bool:
    """The real finalize_child, but a failed delete only leaves the child "remaining"."""
    try:
        return _finalize_child(self, ms, resource, child, rlog)
    except client.ApiError as err:
        log.get_logger("mutant").info("child not deleted; on to the next", error=str(err))
        return True


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "finalize_child", finalize_child_past_refusal),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
