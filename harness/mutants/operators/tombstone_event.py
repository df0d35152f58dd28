"""tombstone-event: writes a record of the deletion before cleaning up, and stops when that
write is refused.

Anti-pattern: before it deletes the children, the finalizer writes something into the
namespace, here a ``Deleting`` Event created synchronously (elsewhere a backup ConfigMap of the
last spec, or a "tombstone" object), and treats a failed write as a failed cleanup: it returns
the error and tries again later. In a namespace that is being deleted the API server refuses
every create (403, "unable to create new content in namespace ... because it is being
terminated"), so the cleanup never starts, the finalizer is never removed, and the namespace
stays ``Terminating`` for ever.

Why people write it: an audit trail before destroying things sounds responsible, and the
write never fails while a person deletes one ModelService at a time. On envtest namespaces
never finish deleting anyway (no namespace controller), so nothing shows the hang.

What the correct operator does: nothing in its cleanup path depends on creating new objects.
It deletes what it owns and removes its finalizer; Events are best-effort (recorded in the
background, a refused Event is dropped), so a namespace deletion completes: the namespace
controller deletes the ModelServices, the operator's finalizer cooperates, the namespace goes.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from harness import mutants
from python_operator import controller
from python_operator.runtime import controllerutil
from python_operator.runtime import events as events_
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Result


class TombstoneFirstReconciler(controller.ModelServiceReconciler):
    def finalize(self, ms: controller.Obj, rlog: log_.Logger) -> Result:
        if controllerutil.contains_finalizer(ms, controller.FINALIZER_NAME):
            meta = ms["metadata"]
            now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            # The mutant: a synchronous write that must succeed before any cleanup.
            self.writer.create(
                events_.EVENTS,
                {
                    "apiVersion": "v1",
                    "kind": "Event",
                    "metadata": {
                        "name": f"{meta['name']}.{uuid.uuid4().hex[:10]}",
                        "namespace": meta["namespace"],
                    },
                    "involvedObject": {
                        "apiVersion": ms.get("apiVersion"),
                        "kind": "ModelService",
                        "name": meta["name"],
                        "namespace": meta["namespace"],
                        "uid": meta["uid"],
                    },
                    "reason": "Deleting",
                    "message": "cleaning up the children",
                    "type": "Normal",
                    "source": {"component": "modelservice-controller"},
                    "firstTimestamp": now,
                    "lastTimestamp": now,
                    "count": 1,
                },
            )
        return super().finalize(ms, rlog)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", TombstoneFirstReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
