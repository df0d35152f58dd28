"""trusts-cached-holder: the child of a vanished ModelService is deleted on the cache's word that the ModelService in hand holds the name: a successor's child, seen before the successor, is deleted.

Anti-pattern: steps 4 and 5 take a child controlled by a ModelService of our name with another
UID for a dead owner's, and delete it, on the cache alone. If the cache's ModelService watch
lags a delete and re-create while its Deployment watch has already brought the new
ModelService's child (made by another writer, an earlier leader), the child belongs to the
living owner, and deleting it restarts that owner's pods.

Why people write it: "names are unique at any one time", which holds for the API server, not
for a cache that may still hold the one before.

What the correct operator does: before deleting it reads the ModelService live, as the garbage
collector reads an owner before deleting a dependent (kube v1.34
GarbageCollector.isDangling), and ends the pass when another UID holds the name
(vanished-owner[successor-unseen]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller


def no_recheck(self: controller.ModelServiceReconciler, ms: Any, what: str) -> None:
    """The cache's ModelService taken to hold the name: no live read."""


PATCHES = (mutants.Patch(controller.ModelServiceReconciler, "confirm_successor", no_recheck),)

if __name__ == "__main__":
    mutants.main(PATCHES)
