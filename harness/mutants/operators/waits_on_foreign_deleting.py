"""waits-on-foreign-deleting: takes a same-named child that is being deleted for its own.

Anti-pattern: a Deployment or Service of our name that has a deletionTimestamp is waited for
("it is going; the next pass creates ours"), whoever controls it. A child someone else owns,
or an ownerless one, held by a finalizer of its own (a backup tool's, a policy engine's) is
then reported as our child: the status reads its replicas as ours, no ChildConflict is said,
and the Service is created beside it, pointing at pods that are not ours.

Why people write it: "deleting" is checked before "ours", since a deleting child must never
be written; the two checks look independent.

What the correct operator does: it waits for a deleting child only when the child is its own
(controller ownerReference with its UID); someone else's, deleting or not, is a ChildConflict,
and nothing is created beside it (child-conflict[adopt-ownerless], the Deployment ``held``).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller

_controlled_by = controller.controlled_by


def deleting_is_ours(obj: controller.Obj, ms: controller.Obj) -> bool:
    # The mutant: a child that is being deleted counts as ours, whoever controls it.
    return bool((obj.get("metadata") or {}).get("deletionTimestamp")) or _controlled_by(obj, ms)


PATCHES = (mutants.Patch(controller, "controlled_by", deleting_is_ours),)

if __name__ == "__main__":
    mutants.main(PATCHES)
