"""tells-new-owner-only: a child's update enqueues the owner of the new object only.

Anti-pattern: the handler of ``Owns`` maps an updated child to the ModelService its new
controller ownerReference names and forgets the old one (here
``EnqueueRequestForOwner.on_update`` enqueues ``new``'s owner alone): when someone moves a
child's controller ownerReference to another ModelService, the one that lost it is never
told, and its status goes on saying all is well while it controls nothing.

Why people write it: "the object as it is now" is what an add and a delete hand over, and an
update handler written the same way passes every test in which a child keeps its owner.

What the correct operator does: on an update it enqueues the owners of both the old and the
new object, as controller-runtime's EnqueueRequestForOwner does (child-conflict[owner-moved]:
ChildConflict reported within 10 s).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import controller


def on_update_new_only(self: controller.EnqueueRequestForOwner, old: Any, new: Any) -> None:
    """The mutant: the old object's owner is not enqueued."""
    self._enqueue(new)


PATCHES = (mutants.Patch(controller.EnqueueRequestForOwner, "on_update", on_update_new_only),)

if __name__ == "__main__":
    mutants.main(PATCHES)
