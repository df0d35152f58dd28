"""finalizer-first: removes the finalizer before the children are gone.

Anti-pattern: when the ModelService is being deleted, the operator first removes its
finalizer and only then deletes the children. The API server forgets the ModelService the
moment the finalizer goes; if the process stops before the deletes (a crash, an eviction, a
failed request), nothing is left to bring it back to finish, and without a garbage collector
the children stay for ever.

Why people write it: it reads like "let the deletion proceed, then tidy up", and the happy
path does both in one reconcile, so the order never shows; some do it to keep a stuck
finalizer from ever blocking a namespace deletion.

What the correct operator does: it deletes the children it controls, waits until they are
gone, and removes the finalizer last: the deleting object, still visible with its
deletionTimestamp, is what brings a restarted process back to finish the cleanup.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import controllerutil
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Result


class FinalizerFirstReconciler(controller.ModelServiceReconciler):
    def finalize(self, ms: controller.Obj, rlog: log_.Logger) -> Result:
        if not controllerutil.contains_finalizer(ms, controller.FINALIZER_NAME):
            return Result()
        # The mutant: the finalizer goes first; the object is gone once this returns.
        controllerutil.remove_finalizer(ms, controller.FINALIZER_NAME)
        self.writer.update(controller.MODELSERVICES, ms)
        rlog.info("Removed finalizer")
        namespace, name = ms["metadata"]["namespace"], ms["metadata"]["name"]
        for resource in (controller.DEPLOYMENTS, controller.SERVICES):
            child = self.reader.get(resource, namespace, name)
            if child is None or not controller.controlled_by(child, ms):
                continue
            try:
                self.writer.delete(
                    resource,
                    namespace,
                    name,
                    uid=child["metadata"]["uid"],
                    propagation_policy="Background",
                )
            except client_.ApiError as err:
                if not (client_.is_not_found(err) or client_.is_conflict(err)):
                    raise
            else:
                rlog.info("Deleted child", child=f"{resource.kind}/{name}")
                controller.crash_point("after-child-delete")
        return Result()


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", FinalizerFirstReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
