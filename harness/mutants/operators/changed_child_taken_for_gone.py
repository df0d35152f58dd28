"""changed-child-taken-for-gone: the delete of a vanished ModelService's child answered 409 (the child changed since it was read) is taken for "gone", and a create is sent over the child.

Anti-pattern: steps 4 and 5 delete a dead owner's child with its UID and the resourceVersion
they read as preconditions, then create their own. A 409 to that delete says the child
changed since it was read (its ownerReferences stripped by an Orphan delete the cache has not
seen yet); read as "deleted already", the pass goes on to create a child that is still
there, answered 409 AlreadyExists (retried, no Event), over an object the cache holds.

Why people write it: a 409 to a delete with only the UID as precondition does mean "not this
object any more" (replaced), and the same branch is reused for the stricter delete.

What the correct operator does: a 409 to the resourceVersion precondition ends the pass; the
next pass reads the child again and adopts it (vanished-owner[orphaned-unseen], CONTRACT.md
"When the ModelService vanishes"). A hand-made twin of the tool mutants of deleteChildIf's
and delete_child's 409 test, which that check's create assertion kills (stop 49).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_

ORIGINAL = controller.ModelServiceReconciler.delete_vanished_child


def conflict_gone(
    self: controller.ModelServiceReconciler, ms: Any, resource: Any, child: Any, rlog: Any
) -> None:
    """delete_vanished_child with its 409 taken for a child already gone."""
    try:
        ORIGINAL(self, ms, resource, child, rlog)
    except client_.ApiError as err:
        if not client_.is_conflict(err):
            raise


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "delete_vanished_child", conflict_gone),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
