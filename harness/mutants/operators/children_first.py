"""children-first: creates the children before it adds its finalizer.

Anti-pattern: a new ModelService gets its Deployment and Service first; the finalizer is
added afterwards, in the same reconcile. Between the two, the children exist while nothing
holds the ModelService's deletion for their cleanup: a deletion in that window (or a crash
followed by one) removes the ModelService at once, and on a cluster without a garbage
collector (or with the ownerReference missing) the children are left behind for ever.

Why people write it: "make it work, then make it clean up" is the natural order to write a
controller in, the window is milliseconds long, and the finished state (children, finalizer)
is the same either way, so a test that looks only at the end result never sees it.

What the correct operator does: it adds the finalizer first, in its own Update, and creates
a child only once that write succeeded: no child can exist for a ModelService whose
deletion could outrun the cleanup.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import controllerutil
from python_operator.runtime.reconcile import Request, Result


class ChildrenFirstReconciler(controller.ModelServiceReconciler):
    def reconcile(self, req: Request) -> Result:
        ms = self.reader.get(controller.MODELSERVICES, req.namespace, req.name)
        if (
            ms is not None
            and not ms["metadata"].get("deletionTimestamp")
            and not controllerutil.contains_finalizer(ms, controller.FINALIZER_NAME)
        ):
            # The mutant: the children first; the real reconcile then adds the finalizer.
            spec = controller.read_spec(ms)
            rlog = controller.log.with_values(modelservice=str(req))
            _, conflict = self.ensure_child(
                ms,
                controller.desired_deployment(ms, spec),
                controller.DEPLOYMENTS,
                controller.mutate_deployment,
                rlog,
            )
            if not conflict:
                self.ensure_child(
                    ms,
                    controller.desired_service(ms, spec),
                    controller.SERVICES,
                    controller.mutate_service,
                    rlog,
                )
        return super().reconcile(req)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", ChildrenFirstReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
