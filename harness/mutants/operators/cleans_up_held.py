"""cleans-up-held: when the status update says the ModelService is gone, deletes every child
the pass holds, its own or not.

Anti-pattern: the children a pass "holds" are taken to be the ModelService's: when its status
update is answered 404 (the ModelService deleted under the pass, kubernetes#77988), the
cleanup deletes each of them. But a pass in ChildConflict holds the foreign same-named child
it found (to report it), and that one is deleted too: another controller's Service, gone
because our ModelService vanished.

Why people write it: the pass created the children it holds, in the common case; the
ownership decision was made a few lines earlier and looks settled.

What the correct operator does: it deletes, with the UID precondition, only the held children
that the gone ModelService controls (its UID in their controller ownerReference); a foreign
child survives (vanished-owner[foreign-held]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime.reconcile import Result


def delete_every_held_child(
    self: controller.ModelServiceReconciler, ms: Any, gone: Exception, children: Any, rlog: Any
) -> Result:
    """delete_children_of_gone without the ownership test."""
    rlog.info("ModelService gone", uid=ms["metadata"].get("uid"), error=str(gone))
    for resource, child in children:
        # The mutant: every held child is taken for the gone ModelService's.
        if (child.get("metadata") or {}).get("uid"):
            self.delete_child(ms, resource, child, rlog)
    return Result()


PATCHES = (
    mutants.Patch(
        controller.ModelServiceReconciler, "delete_children_of_gone", delete_every_held_child
    ),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
