"""ignores-orphan: deletes the children even when the user asked for them to be orphaned.

Anti-pattern: the finalizer's cleanup always deletes the Deployment and the Service, whatever
deletion policy the user chose. `kubectl delete msvc web --cascade=orphan` (propagationPolicy
Orphan) says "delete the ModelService, keep what it made": the API server records that as the
orphan finalizer on the object, and the operator deletes the children anyway, taking down a
workload the user meant to keep running (for example while moving it to another owner).

Why people write it: the finalizer is written for the one deletion the author tried, the
default (background) one; the orphan finalizer is the garbage collector's business and looks
like something an operator never needs to read.

What the correct operator does: it honours the policy. With the orphan finalizer present it
removes only its own finalizer and deletes no child (the garbage collector then strips the
children's ownerReferences); with foreground or background deletion it cleans up as usual. It
never removes a finalizer that is not its own.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller


def never_orphans(ms: controller.Obj) -> bool:
    # The mutant: the orphan finalizer is not looked at.
    return False


PATCHES = (mutants.Patch(controller, "orphans_children", never_orphans),)

if __name__ == "__main__":
    mutants.main(PATCHES)
