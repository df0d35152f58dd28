"""created-annotation: keeps its progress in an annotation and skips the steps it marks done.

Anti-pattern: before it creates a child, the operator records on the ModelService that it did
(annotation ``modeldock.io/created: Deployment,Service``), so that a later reconcile that does
not find the child in its lagging cache does not create it a second time: a child that is
marked but not cached is "on its way". Only a DELETED event of the child, seen by this
process, clears the way to create it again (so a child deleted by hand is still repaired). A
crash between the annotation and the create leaves a mark for a child that was never created:
the restarted operator skips it for ever, and no event will ever come to say otherwise.

Why people write it: it looks like the careful order (record the intent, then act; never
create twice), it avoids the AlreadyExists errors a lagging cache causes, and it works in
every run that is not killed in the one write-wide window between the two writes, including
a crash right after the finalizer or right after a child's create.

What the correct operator does: it keeps no progress of its own. Whether a child must be
created is decided from the world on every reconcile: absent from the cache means create; if
the cache was only behind, the API server answers AlreadyExists, the key is requeued, and the
next reconcile sees the child. The world is the only record of what was done.
"""

from __future__ import annotations

import threading
from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import controller as controller_
from python_operator.runtime import log as log_

MARK = "modeldock.io/created"
_lock = threading.Lock()
#: (ModelService key, child kind) whose DELETED event this process saw since it last created it
DELETED: set[tuple[str, str]] = set()


def marks(ms: controller.Obj) -> list[str]:
    value = ((ms.get("metadata") or {}).get("annotations") or {}).get(MARK, "")
    return [k for k in value.split(",") if k]


def _kind_of(obj: controller.Obj) -> str:
    if obj.get("kind"):
        return str(obj["kind"])
    return "Deployment" if "template" in (obj.get("spec") or {}) else "Service"


class RememberDeleted(controller_.EnqueueRequestForOwner):
    """Owns(child): as usual, and a child's DELETED clears its mark's hold."""

    def on_delete(self, obj: controller.Obj) -> None:
        ref = controller_.controller_of(obj)
        if ref is not None:
            key = f"{obj['metadata'].get('namespace', '')}/{ref.get('name', '')}"
            with _lock:
                DELETED.add((key, _kind_of(obj)))
        super().on_delete(obj)


class CreatedAnnotationController(controller_.Controller):
    def owner_handler(self, *, group: str, kind: str) -> RememberDeleted:
        return RememberDeleted(self.queue, group=group, kind=kind)


class CreatedAnnotationReconciler(controller.ModelServiceReconciler):
    def ensure_child(self, ms: controller.Obj, desired: controller.Obj, resource: Any,
                     mutate: Any, rlog: log_.Logger) -> tuple[controller.Obj, str]:
        kind = resource.kind
        meta = ms["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        if self.reader.get(resource, meta["namespace"], desired["metadata"]["name"]) is None:
            with _lock:
                deleted = (key, kind) in DELETED
            marked = marks(ms)
            if kind in marked and not deleted:
                # The mutant: marked as created, so the cache is only behind.
                return None, ""  # type: ignore[return-value]
            if kind not in marked:
                meta.setdefault("annotations", {})[MARK] = ",".join([*marked, kind])
                stored = self.writer.update(controller.MODELSERVICES, ms)
                ms.clear()
                ms.update(stored)
            try:
                out = super().ensure_child(ms, desired, resource, mutate, rlog)
            except Exception:
                self._unmark(ms, kind)  # the create failed: take the mark back
                raise
            with _lock:
                DELETED.discard((key, kind))
            return out
        return super().ensure_child(ms, desired, resource, mutate, rlog)

    def _unmark(self, ms: controller.Obj, kind: str) -> None:
        annotations = ms["metadata"].get("annotations") or {}
        annotations[MARK] = ",".join(k for k in marks(ms) if k != kind)
        try:
            stored = self.writer.update(controller.MODELSERVICES, ms)
            ms.clear()
            ms.update(stored)
        except Exception:
            pass


PATCHES = (
    mutants.Patch(controller_, "Controller", CreatedAnnotationController),
    mutants.Patch(controller, "ModelServiceReconciler", CreatedAnnotationReconciler),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
