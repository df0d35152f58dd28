"""recreates-drifted: repairs a hand-edited child by deleting it and creating it again.

Anti-pattern: whenever the stored child differs from the desired one, the operator treats
the difference as it treats an immutable field: it deletes the child (UID precondition,
Background propagation) and creates a new one from the desired object. Every field ends as
the contract wants, so a check that compares fields alone sees a repair.

Why people write it: "delete and recreate" needs no merge of the live object with the
desired one, no thought about defaulted fields, and no 409 handling; it is also how
``kubectl replace --force`` fixes an object by hand.

What the correct operator does: it updates the child it has (mutate a copy of the stored
object, one Update), so the object keeps its UID, its history, its pods (a Deployment's
ReplicaSets) and its clusterIP (a Service); only an immutable field (a Deployment's
spec.selector) is a reason to replace it.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_

_immutable_change = controller.immutable_change


def any_change_is_immutable(
    resource: client_.Resource, live: controller.Obj, updated: controller.Obj
) -> str:
    return _immutable_change(resource, live, updated) or ("spec" if updated != live else "")


PATCHES = (mutants.Patch(controller, "immutable_change", any_change_is_immutable),)

if __name__ == "__main__":
    mutants.main(PATCHES)
