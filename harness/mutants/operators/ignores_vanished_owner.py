"""ignores-vanished-owner: keeps the children of a vanished ModelService, and calls them a conflict.

Anti-pattern: once its finalizer update is answered 200 the operator assumes the ModelService
cannot vanish before its cleanup runs. When the status update is answered 404 it returns the
error and moves on, leaving the children it has just created owned by a UID that no longer
exists; and a successor of the same name, finding a child controlled by that vanished
ModelService, reports ChildConflict for ever (where no garbage collector runs).

Why people write it: a finalizer reads like a lock: "the API server cannot delete this until I
remove my finalizer". It nearly always is one, and the exception (a DELETE racing the update
that adds the finalizer, kubernetes#77988, still open in 1.34) needs two requests within a
millisecond; a same-named child with a foreign ownerReference looks like every other conflict.

What the correct operator does: a pass whose status update is answered 404 deletes, by UID
precondition, the children it holds that the vanished ModelService controls; and a child whose
controller ownerReference is a ModelService of its name with another UID (names are unique,
UIDs never reused) is the child of one that no longer exists: it deletes it as the garbage
collector would (UID precondition, Background) and creates its own, instead of reporting a
conflict.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Result


def never_vanished(obj: controller.Obj, ms: controller.Obj) -> bool:
    # The mutant: a child of a vanished ModelService is a conflict like any other.
    return False


def keeps_children(
    self: controller.ModelServiceReconciler,
    ms: controller.Obj,
    gone: Exception,
    children: list[tuple[client_.Resource, controller.Obj]],
    rlog: log_.Logger,
) -> Result:
    # The mutant: the 404 goes back to the queue, and the children stay.
    raise gone


PATCHES = (
    mutants.Patch(controller, "controlled_by_vanished", never_vanished),
    mutants.Patch(controller.ModelServiceReconciler, "delete_children_of_gone", keeps_children),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
