"""remembers-status: compares the status with the one it believes it wrote, not the stored one.

Anti-pattern: the operator keeps, per ModelService (by UID), the status it last sent, recorded
as it sends it, and skips a status write equal to that memory: "I wrote this already, the cache is
just behind". When that write did not happen (a 409 because the object changed meanwhile, a
500, a 429 from an overloaded API server), the memory says it did: every later reconcile
computes the same status, finds it equal to the memory and writes nothing. The stored status
stays behind until the spec changes again or the process restarts. The memory compares what
the status says, not when it was computed: conditions without their lastTransitionTime.

Why people write it: the informer cache lags the operator's own writes, so the next reconcile
often reads the old status and writes the same new one again, which costs a write and, with a
stale resourceVersion, a 409. Remembering what was written removes those in every run where
the status write succeeds, which is every run that does not inject a failure.

What the correct operator does: it compares the computed status with the status stored on the
object it read, and lets a stale read end in a 409 and a requeue; a write that failed leaves
nothing behind, so the next reconcile recomputes and writes again.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from harness import mutants
from python_operator import controller

_lock = threading.Lock()
#: metadata.uid -> the status last sent (recorded before the write), without timestamps
SENT: dict[str, Any] = {}


def without_timestamps(status: Any) -> Any:
    """``status`` (a ModelService's .status dict, or None) as a copy whose conditions have no
    lastTransitionTime: what the memory compares.

    A condition that is new on the stored object, or whose status changes, gets "now" as its
    lastTransitionTime, so a requeue in the next second computes a status that differs from the memory by that timestamp alone.
    Compared whole, the memory would let that write through, and the mutant would survive or
    die by the clock (CI saw it survive create@write-4-conflict). The anti-pattern's author
    means "the same status", and so does this comparison."""
    status = copy.deepcopy(status)
    for cond in (status or {}).get("conditions") or []:
        cond.pop("lastTransitionTime", None)
    return status


class RememberingWriter:
    """The reconcile's writer: a status write equal to the last one sent is skipped."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def update_status(self, resource: Any, obj: Any) -> Any:
        # By UID: a successor of the same name is another object, with nothing sent yet. Keyed
        # by name, the memory would also skip a successor's first status when it equals its
        # predecessor's last (finalizer-ordered-delete[lagging-cache] would kill it), a fault
        # of another kind.
        key = obj["metadata"]["uid"]
        status = without_timestamps(obj.get("status"))
        with _lock:
            if key in SENT and SENT[key] == status:
                return obj  # the mutant: "written already, the cache is behind"
            SENT[key] = status
        return self.inner.update_status(resource, obj)


class RemembersStatusReconciler(controller.ModelServiceReconciler):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.writer = RememberingWriter(self.writer)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", RemembersStatusReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
