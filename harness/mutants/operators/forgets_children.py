"""forgets-children: removes its finalizer as soon as it has sent the deletes, without waiting for the children to go.

Anti-pattern: the cleanup deletes the children and removes the finalizer in the same pass, on
the grounds that the deletes succeeded. A delete only starts a deletion: a child held by a
finalizer of its own (a backup hook, its own foreground deletion) stays, deleting, while its
owner is already gone.

Why people write it: on a test cluster a child without finalizers disappears the moment its
DELETE returns, so "deleted" and "gone" look the same; waiting looks like a needless extra
reconcile.

What the correct operator does: it deletes each child once, comes back, and removes its
finalizer only in a pass whose read of the API server finds none of its children left.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import controllerutil
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Result


class ForgetsChildrenReconciler(controller.ModelServiceReconciler):
    def finalize(self, ms: controller.Obj, rlog: log_.Logger) -> Result:
        result = super().finalize(ms, rlog)
        if result.requeue_after and controllerutil.contains_finalizer(
            ms, controller.FINALIZER_NAME
        ):
            # The mutant: the deletes were sent, so the cleanup counts as done.
            return self.remove_finalizer(ms, rlog)
        return result


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", ForgetsChildrenReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
