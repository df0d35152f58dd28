"""reconciles-deleting: rolls out a spec change first, even while the ModelService is being deleted.

Anti-pattern: the operator remembers, per ModelService (by UID), the spec it saw last. When
an event brings a spec it has not seen, it reconciles the children to that spec before it
looks at the deletionTimestamp: "the user changed something, that comes first". In a plain
deletion the spec does not change, so cleanup runs as it should; a spec changed while the
deletion is in progress (an apply, a tool bumping the image) re-creates the children the
cleanup just deleted, which the next pass deletes again.

Why people write it: the deletion check sits next to "has the spec changed?" in an
edge-triggered design, and handling the newest request first sounds responsive.

What the correct operator does: a ModelService with a deletionTimestamp is finalized and
nothing else (step 2 returns before steps 3 to 6), whatever its spec says now: a deleting
object's spec describes nothing that should run.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from harness import mutants
from python_operator import controller

_being_deleted = controller.being_deleted
_lock = threading.Lock()
#: metadata.uid -> the spec seen last
SEEN: dict[str, Any] = {}


def being_deleted_unless_changed(ms: controller.Obj) -> bool:
    key, spec = ms["metadata"]["uid"], ms.get("spec")
    with _lock:
        changed = key in SEEN and SEEN[key] != spec
        SEEN[key] = copy.deepcopy(spec)
    return _being_deleted(ms) and not changed  # the mutant: a new spec is rolled out first


PATCHES = (mutants.Patch(controller, "being_deleted", being_deleted_unless_changed),)

if __name__ == "__main__":
    mutants.main(PATCHES)
