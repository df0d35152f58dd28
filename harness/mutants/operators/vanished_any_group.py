"""vanished-any-group: a same-named child controlled by a ModelService of any API group, with another UID, is taken for the child of a vanished one of ours, and deleted.

Anti-pattern: the successor rule (CONTRACT.md, "When the ModelService vanishes") is read as
"a child whose controller is a ModelService called like me, with another UID": the owner's
kind and name are compared, its group is not. A child that a live ModelService of another
API group controls (another team's CRD of the same kind name) is deleted as the garbage
collector would delete a dangling dependent, and ours is created in its place.

Why people write it: the kind is what the code has at hand (a constant, or
``ownerReference.kind``), and no test cluster has two CRDs of one kind.

What the correct operator does: a ModelService is ``modeldock.io``'s. Only a child whose
controller ownerReference's apiVersion is in group ``modeldock.io`` (any version) can be a
vanished ModelService's; one of another group is a foreign child: ChildConflict, never
written (child-conflict[other-group]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import controller as controller_


def vanished_by_kind_and_name(obj: controller.Obj, ms: controller.Obj) -> bool:
    """controlled_by_vanished without the group: kind, name and another UID suffice."""
    ref = controller_.controller_of(obj)
    if ref is None or ref.get("kind") != controller.MODELSERVICES.kind:
        return False
    same_name = ref.get("name") == ms["metadata"]["name"]
    return bool(same_name and ref.get("uid") != ms["metadata"].get("uid"))


PATCHES = (mutants.Patch(controller, "controlled_by_vanished", vanished_by_kind_and_name),)

if __name__ == "__main__":
    mutants.main(PATCHES)
