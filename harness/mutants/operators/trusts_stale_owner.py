"""trusts-stale-owner: the child of a vanished ModelService is deleted on the cache's word: a child orphaned since, which the cache still shows owned by the dead ModelService, is deleted instead of adopted.

Anti-pattern: steps 4 and 5 delete a same-named child controlled by a ModelService of our name
that no longer exists with the UID precondition only. The child was read from the informer
cache; if `kubectl delete --cascade=orphan` stripped its ownerReference after the cache last
heard of it, the UID still matches, the delete succeeds, and the workload the user asked to
keep is taken down and created anew.

Why people write it: "the UID precondition already makes the delete safe", and it does
against a replaced object, not against a changed one.

What the correct operator does: it deletes as the garbage collector does, with the
resourceVersion it read as a precondition too (kube v1.34 GarbageCollector.deleteObject): a
child changed since is answered 409, the key is retried, and the next pass reads it ownerless
with our label and adopts it, same UID (vanished-owner[orphaned-unseen]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller


def delete_vanished_child_by_uid(
    self: controller.ModelServiceReconciler, ms: Any, resource: Any, child: Any, rlog: Any
) -> None:
    """delete_child with the UID precondition only, as for a child the pass itself holds."""
    self.delete_child(ms, resource, child, rlog)


PATCHES = (
    mutants.Patch(
        controller.ModelServiceReconciler, "delete_vanished_child", delete_vanished_child_by_uid
    ),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
