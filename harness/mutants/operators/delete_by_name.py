"""delete-by-name: cleanup deletes the children by name, without checking whose they are.

Anti-pattern: when the ModelService is being deleted, the operator deletes the Deployment and
the Service named like it, without looking at their controller ownerReference and without a
UID precondition on the delete. A same-named child that someone else created (or that
replaced ours meanwhile) is destroyed with the rest.

Why people write it: the children are named after the ModelService, so the name feels like
proof of ownership, and ``Delete(name)`` is one line; in a test cluster there never is a
same-named object from anyone else.

What the correct operator does: it deletes only children whose controller ownerReference
carries this ModelService's UID, with ``preconditions.uid`` set to the child's UID, so a
replacement created since the cache saw the child makes the delete fail with 409 instead of
removing the wrong object.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import controllerutil
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Result


class DeleteByNameReconciler(controller.ModelServiceReconciler):
    def finalize(self, ms: controller.Obj, rlog: log_.Logger) -> Result:
        if not controllerutil.contains_finalizer(ms, controller.FINALIZER_NAME):
            return Result()
        namespace, name = ms["metadata"]["namespace"], ms["metadata"]["name"]
        remaining = False
        for resource in (controller.DEPLOYMENTS, controller.SERVICES):
            if self.reader.get(resource, namespace, name) is None:
                continue
            remaining = True
            # The mutant: whatever is called this, with no owner check and no UID precondition.
            try:
                self.writer.delete(resource, namespace, name, propagation_policy="Background")
            except client_.ApiError as err:
                if not client_.is_not_found(err):
                    raise
            else:
                rlog.info("Deleted child", child=f"{resource.kind}/{name}")
                controller.crash_point("after-child-delete")
        if remaining:
            return Result(requeue_after=controller.DELETION_REQUEUE_AFTER)
        controllerutil.remove_finalizer(ms, controller.FINALIZER_NAME)
        self.writer.update(controller.MODELSERVICES, ms)
        rlog.info("Removed finalizer")
        return Result()


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", DeleteByNameReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
