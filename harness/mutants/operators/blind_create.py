"""blind-create: after it starts, creates each child anyway and swallows the AlreadyExists.

Anti-pattern: a process that has just started does not trust its cache ("the informers may not
have synced; the last process may have died half-way"), so the first time it handles each
child of a ModelService it POSTs the desired child whatever the cache says, takes a 409
AlreadyExists as "it is there", records nothing, and goes on as usual (compare with the live
child, update if it differs). After a crash the new process thus begins with a create of every
child the crashed one had already made: a burst of AlreadyExists, one per child, that the end
state never shows. Later reconciles read the cache as the correct operator does.

Why people write it: "create, and on AlreadyExists go on" is the textbook idempotent create,
a start-up is where stale caches are feared, the 409 is harmless to the object, and a check
that counts only the writes the API server accepted, or compares only end states, sees
nothing.

What the correct operator does: it starts its workers only after its caches have synced (a
full list of the world), and creates a child only when that view shows it missing, so a
recovered process writes only the difference between the world and the spec: at most one
create per child that was missing when it started (CONTRACT.md, "After a crash"). Go twin:
blind-create-go.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_

#: The children this process has handled once: (owner UID, kind, name).
_SEEN: set[tuple[str, str, str]] = set()
_LOCK = threading.Lock()


def first_time(desired: controller.Obj) -> bool:
    """Whether this process handles the child ``desired`` (by its owner's UID) for the first
    time, and remember that it has."""
    meta = desired["metadata"]
    key = (meta["ownerReferences"][0]["uid"], desired["kind"], meta["name"])
    with _LOCK:
        first = key not in _SEEN
        _SEEN.add(key)
    return first


class BlindCreateReconciler(controller.ModelServiceReconciler):
    def ensure_child(
        self,
        ms: controller.Obj,
        desired: controller.Obj,
        resource: Any,
        mutate: Any,
        rlog: log_.Logger,
    ) -> tuple[controller.Obj | None, str]:
        meta = desired["metadata"]
        live = self.reader.get(resource, meta["namespace"], meta["name"])
        if live is not None and first_time(desired):
            # The mutant: a fresh process creates it anyway; AlreadyExists means "it is there".
            try:
                self.writer.create(resource, copy.deepcopy(desired))
            except client_.ApiError as err:
                if not client_.is_conflict(err):
                    raise
        return super().ensure_child(ms, desired, resource, mutate, rlog)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", BlindCreateReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
