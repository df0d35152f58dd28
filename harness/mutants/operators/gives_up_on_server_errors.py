"""gives-up-on-server-errors: drops a reconcile error the API server answered with 5xx, so the key is never retried.

Anti-pattern: a reconcile that failed with 500 InternalError or 503 ServiceUnavailable
(without Retry-After) logs the error and returns success, as if the server's trouble were not
the operator's: the work queue forgets the key, and nothing brings it back until some
unrelated event about that ModelService arrives, which for a quiet object is never.

Why people write it: "5xx is the server's fault, retrying will not help", or an error path
that was meant to stop a hot loop; in tests the API server never answers 5xx, so the lost
object never shows.

What the correct operator does: it raises the error, and the rate-limited work queue tries the
key again with backoff (5 ms doubling per failure): a transient 5xx heals at the next attempt
(errors-retried[server-error]: ten in a row on the finalizer update, then it converges).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client, log
from python_operator.runtime.reconcile import Request, Result

_reconcile = controller.ModelServiceReconciler.reconcile


def reconcile_dropping_5xx(self: controller.ModelServiceReconciler, req: Request) -> Result:
    """The real reconcile, but an API error of status 500 or above is logged and dropped."""
    try:
        return _reconcile(self, req)
    except client.ApiError as err:
        if err.status < 500:
            raise
        log.get_logger("mutant").info(
            "API server error, not retried", modelservice=str(req), error=str(err)
        )
        return Result()


PATCHES = (mutants.Patch(controller.ModelServiceReconciler, "reconcile", reconcile_dropping_5xx),)

if __name__ == "__main__":
    mutants.main(PATCHES)
