"""owner-by-kind: takes a same-named child that any ModelService controls for its own,
whatever its name and UID.

Anti-pattern: "ours" is decided by the kind of the child's controller ownerReference: a
Deployment or Service of our name whose controller is a ModelService is taken for our own
child and updated to the desired state, its controller ownerReference replaced by ours (the
reference "to the same owner" found by kind). A child another live ModelService controls is
hijacked in one update, and the child of a ModelService of our name that no longer exists is
updated in place, where it should be deleted and created anew.

Why people write it: the controller ownerReference is read the way the watch reads it (Owns
maps a child's event to its controller by kind and name), and a check of the kind looks like
enough to tell "made by us" from "made by someone else"; controller-runtime's own
SetControllerReference finds an existing reference by group, kind and name, not by UID. In a
test cluster no child of our name is ever controlled by another ModelService.

What the correct operator does: the controller ownerReference's UID decides (metav1
IsControlledBy): a child controlled by any other ModelService UID is not ours. One of a live
ModelService (another name) is a ChildConflict and is never written; one of a ModelService of
our name that no longer exists is deleted with its UID as precondition and created anew,
never updated as if it were ours.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import controller as controller_


def any_modelservice(obj: controller.Obj, ms: controller.Obj) -> bool:
    # The mutant: any ModelService's child is ours.
    ref = controller_.controller_of(obj)
    return ref is not None and ref.get("kind") == controller.MODELSERVICES.kind


def never_vanished(obj: controller.Obj, ms: controller.Obj) -> bool:
    # ... so none is the child of a vanished one ...
    return False


def replace_by_kind(refs: list[controller.Obj], want: controller.Obj) -> list[controller.Obj]:
    # ... and its controller reference is "ours" to replace.
    refs = list(refs)
    for i, ref in enumerate(refs):
        if ref.get("kind") == want["kind"] or ref.get("uid") == want["uid"]:
            refs[i] = want
            return refs
    return [*refs, want]


PATCHES = (
    mutants.Patch(controller, "controlled_by", any_modelservice),
    mutants.Patch(controller, "controlled_by_vanished", never_vanished),
    mutants.Patch(controller, "ensure_owner_reference", replace_by_kind),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
