"""clears-finalizers: when its cleanup is done, removes every finalizer, not only its own.

Anti-pattern: the operator ends its cleanup by setting metadata.finalizers to an empty list
instead of removing its own entry. Any other party's finalizer goes with it: the garbage
collector's `foregroundDeletion` or `orphan` (the deletion policy the user chose), or another
controller's cleanup hook, whose work is then never done.

Why people write it: with one finalizer on the object in every test the author ran, "clear the
list" and "remove mine" look the same, and clearing is one line shorter.

What the correct operator does: it removes exactly its own finalizer
(controllerutil.RemoveFinalizer) and leaves every other one for its owner to remove.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Result


class ClearsFinalizersReconciler(controller.ModelServiceReconciler):
    def remove_finalizer(self, ms: controller.Obj, rlog: log_.Logger) -> Result:
        # The mutant: every finalizer goes, whoever put it there.
        ms["metadata"]["finalizers"] = []
        self.writer.update(controller.MODELSERVICES, ms)
        rlog.info("Removed finalizer")
        return Result()


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", ClearsFinalizersReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
