"""adopts-unlabelled: adopts every ownerless same-named child, with our label or without.

Anti-pattern: "no controller ownerReference" is taken to mean "ours for the taking": a
Deployment or Service that has our ModelService's name and no controller is adopted (our
controller ownerReference added in one update, its fields set to the desired ones) whether or
not it carries the operator's selector label. A Service someone made by hand under that name,
for something else entirely, is taken over and re-pointed at the ModelService's pods.

Why people write it: the orphans an orphaning delete leaves are the case adoption exists for,
and they are ownerless; the label check looks redundant beside the name. For a Deployment the
mistake often hides: an unlabelled one usually has another selector, which is immutable, so it
is a conflict anyway. A Service has no immutable field the operator sets.

What the correct operator does: it adopts only an ownerless child that carries its selector
label modeldock.io/modelservice=<name> (the ReplicaSet controller's ClaimObject adopts only
what its selector matches); an ownerless child without it is a ChildConflict and is never
written (child-conflict[adopt-ownerless], the Service ``bare``).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import controller as controller_


def any_ownerless(obj: controller.Obj, ms: controller.Obj) -> bool:
    # The mutant: every ownerless child of our name is adoptable, label or not.
    return controller_.controller_of(obj) is None


PATCHES = (mutants.Patch(controller, "adoptable", any_ownerless),)

if __name__ == "__main__":
    mutants.main(PATCHES)
