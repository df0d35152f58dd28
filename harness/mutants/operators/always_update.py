"""always-update: writes the full desired child on every reconcile.

Anti-pattern: step 4 and 5 skip the comparison. When the Deployment or Service exists, the
operator replaces it with the desired object it just built (carrying the live
resourceVersion), on every reconcile, whether anything differs or not. Server defaults that
the desired object leaves out are defaulted again, and whatever other writers added
(annotations, labels) is wiped.

Why people write it: "make it so" reads simplest as "write what I want": one Update call,
no field-by-field mutate function, no semantic equality of quantities to get right. On a
quiet test cluster the extra writes go unnoticed, and the object even looks right afterwards.

What the correct operator does: CreateOrUpdate: it applies only the fields it owns to a copy
of the live object and sends an Update only if that copy differs from what is stored, so a
reconcile with nothing to change writes nothing and other writers' fields are kept.
"""

from __future__ import annotations

from collections.abc import Callable

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_


class AlwaysUpdateReconciler(controller.ModelServiceReconciler):
    def ensure_child(
        self,
        ms: controller.Obj,
        desired: controller.Obj,
        resource: client_.Resource,
        mutate: Callable[[controller.Obj, controller.Obj], None],
        rlog: log_.Logger,
    ) -> tuple[controller.Obj | None, str]:
        meta = desired["metadata"]
        live = self.reader.get(resource, meta["namespace"], meta["name"])
        if live is None or not controller.controlled_by(live, ms):
            return super().ensure_child(ms, desired, resource, mutate, rlog)
        # The mutant: no mutate, no comparison; the desired object replaces the live one.
        meta["resourceVersion"] = live["metadata"]["resourceVersion"]
        stored = self.writer.update(resource, desired)
        rlog.info("Updated " + resource.kind)
        controller.crash_point("after-" + resource.kind.lower())
        return stored, ""


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", AlwaysUpdateReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
