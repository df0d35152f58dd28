"""cleans-up-gone-owner: a cleanup pass whose live read finds the deleting ModelService gone goes on with the cache's copy: it deletes children the garbage collector owns now, and writes a ModelService that is not there.

Anti-pattern: step 2 reads the ModelService live before any child delete, and a "gone"
answer (404, or another UID under the name) is taken for "nothing new": the pass falls back
on the object in hand, the cache's copy, and deletes the children and removes its finalizer
from an object the API server no longer holds (an Update answered 404).

Why people write it: the live read was added for the deletion policy only ("read the policy
as it stands"), and a missing object looks like a read that brought no news.

What the correct operator does: gone is the answer; the pass ends with nothing done, and the
dead owner's children are the garbage collector's (CONTRACT.md "Deletion (step 2)",
deletion-policy[gone-unseen]). A hand-made twin of the tool mutants of finalize's
`live == nil` test (gremlins' `||`->`&&`, cosmic-ray's `or`->`and`), which that case kills
through the panic they end in (stop 50).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller

ORIGINAL = controller.ModelServiceReconciler.read_deleting_live


def cached_when_gone(self: controller.ModelServiceReconciler, ms: Any) -> Any:
    """read_deleting_live, with the cache's copy in place of "gone" (None)."""
    live = ORIGINAL(self, ms)
    return ms if live is None else live


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "read_deleting_live", cached_when_gone),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
