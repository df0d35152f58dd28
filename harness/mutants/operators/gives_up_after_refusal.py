"""gives-up-after-refusal: drops the key after a child write the API server refused, so a spec changed while refused is never written once the refusal is lifted.

Anti-pattern: a reconcile whose Deployment or Service write was refused (403 from an
admission policy or a webhook, 422 Invalid) reports the refusal in the status, logs it and
returns success, as if a refusal were final: the work queue forgets the key. Nothing brings it
back when the cause goes away: removing an admission policy changes nothing the operator
watches, so the ModelService keeps its old Deployment and the stale refusal in its status
until some unrelated event arrives, which for a quiet object is never.

Why people write it: "a refusal is the user's problem, retrying cannot help" (true of a 422
until the spec is fixed, and the spec's change is an event), or a wish to stop the stream of
refused requests; in tests the policy is never removed, so the lost retry never shows.

What the correct operator does: it reports the refusal and raises the error, and the
rate-limited work queue tries the key again with backoff (5 ms doubling per failure, at most
1000 s): once the policy is gone, the next attempt, within the backoff of the failures so far,
reads the current spec and writes it (refused-write-reported[refusal-lifted]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import log
from python_operator.runtime.reconcile import Request, Result

_reconcile = controller.ModelServiceReconciler.reconcile


def reconcile_dropping_refusals(self: controller.ModelServiceReconciler, req: Request) -> Result:
    """The real reconcile, but a refused child write (after its report) is logged and dropped."""
    try:
        return _reconcile(self, req)
    except controller.RefusedWrite as err:
        log.get_logger("mutant").info(
            "child write refused, not retried", modelservice=str(req), error=str(err)
        )
        return Result()


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "reconcile", reconcile_dropping_refusals),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
