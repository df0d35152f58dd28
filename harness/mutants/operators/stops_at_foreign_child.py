"""stops-at-foreign-child: the cleanup stops at the first child that is not ours, and removes the finalizer over our Service.

Anti-pattern: step 2 walks the children in order (Deployment, then Service) and takes the
first same-named child that is not ours for the end of its own: a ``break`` where a
``continue`` belongs. When the Deployment was replaced by someone else's while the Service is
still ours, the Service is never looked at: nothing of ours "remains", the finalizer comes
off, and our Service outlives its ModelService, owned by a UID that no longer exists.

Why people write it: children are usually all ours or all gone, and a loop that stops at the
first surprise looks careful; tests that replace a child replace the last one.

What the correct operator does: every child is read and judged on its own (CONTRACT.md,
"Deletion"): a child that is not ours is skipped, the ones that are ours are deleted, and the
finalizer comes off only when none of ours is left (replaced-child-kept[foreign-deployment]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import controllerutil, log
from python_operator.runtime.reconcile import Result


def finalize_stops_at_foreign(
    self: controller.ModelServiceReconciler, ms: controller.Obj, rlog: log.Logger
) -> Result:
    """The real finalize, but the first child that is not ours ends the walk (break)."""
    if not controllerutil.contains_finalizer(ms, controller.FINALIZER_NAME):
        return Result()
    if controller.orphans_children(ms):
        return self.remove_finalizer(ms, rlog)
    namespace, name = ms["metadata"]["namespace"], ms["metadata"]["name"]
    remaining = False
    for resource in (controller.DEPLOYMENTS, controller.SERVICES):
        child = self.live.get(resource, namespace, name)
        if child is None:
            continue
        if not controller.controlled_by(child, ms):
            break  # the mutant: "not ours" ends the cleanup's walk
        remaining = self.finalize_child(ms, resource, child, rlog) or remaining
    if remaining:
        return Result(requeue_after=controller.DELETION_REQUEUE_AFTER)
    return self.remove_finalizer(ms, rlog)


PATCHES = (mutants.Patch(controller.ModelServiceReconciler, "finalize", finalize_stops_at_foreign),)

if __name__ == "__main__":
    mutants.main(PATCHES)
