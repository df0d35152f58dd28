"""adopts-deleting: adopts for a ModelService the API server holds deleting.

Anti-pattern: before an adoption the ModelService is read live, as it must be, but the read
is asked one question only: is the same UID still there? A ModelService being deleted (its
deletionTimestamp set, held by someone else's finalizer, or by the orphan finalizer of a
``--cascade=orphan`` delete) answers yes, and the ownerless child gets a controller
ownerReference to an owner on its way out: once the finalizer goes, the garbage collector
deletes the child with it, the very workload the orphaning delete was meant to keep.

Why people write it: the recheck exists for the cache's lag, and the lag everyone pictures is
a delete and re-create under the same name (another UID); a deletion still pending, same UID,
is the case nobody stages.

What the correct operator does: it refuses the adoption (an error, retried) when the live
ModelService is gone, has another UID or carries a deletionTimestamp (kube's
ControllerRefManager, RecheckDeletionTimestamp; child-conflict[adopt-recheck-deleting]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller


def recheck_uid_only(
    self: controller.ModelServiceReconciler, ms: controller.Obj, what: str
) -> None:
    meta = ms["metadata"]
    fresh = self.live.get(controller.MODELSERVICES, meta["namespace"], meta["name"])
    if fresh is None or fresh["metadata"].get("uid") != meta.get("uid"):
        raise controller.AdoptionRefused(f"not adopting {what}: no longer exists")
    # The mutant: a deletionTimestamp on the live ModelService is not looked at.


PATCHES = (mutants.Patch(controller.ModelServiceReconciler, "confirm_adopter", recheck_uid_only),)

if __name__ == "__main__":
    mutants.main(PATCHES)
