"""forgets-conflict: after a ChildConflict the pass asks for no requeue, so the ModelService waits for ever once the foreign child is gone.

Anti-pattern: a conflict is reported and the pass ends like any other, with nothing to
requeue: "the watches bring the key back when anything changes". They do not here: the
foreign child carries no ownerReference to this ModelService, so Owns never maps its events to
it, and its removal goes unnoticed; the ModelService reports ChildConflict until something
else (an edit, a restart) happens to bring it back.

Why people write it: the no-requeue rule is right for every other outcome, and a test that
removes the foreign child right after the conflict often meets a pass still pending from the
start-up's own writes.

What the correct operator does: after a ChildConflict, RequeueAfter 5 s (CONTRACT.md, step
7): the conflict is judged again every 5 s while it lasts (a Warning ChildConflict Event each
time), and the pass after the foreign child is gone creates ours (child-conflict).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import log
from python_operator.runtime.reconcile import Request, Result

_reconcile = controller.ModelServiceReconciler.reconcile


def reconcile_without_conflict_requeue(
    self: controller.ModelServiceReconciler, req: Request
) -> Result:
    """The real reconcile, but the conflict's requeue is dropped."""
    result = _reconcile(self, req)
    if result.requeue_after == controller.CONFLICT_REQUEUE_AFTER:
        log.get_logger("mutant").info("conflict reported; not requeued", modelservice=str(req))
        return Result()
    return result


PATCHES = (
    mutants.Patch(
        controller.ModelServiceReconciler, "reconcile", reconcile_without_conflict_requeue
    ),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
