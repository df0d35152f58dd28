"""adopt-foreign: takes over a same-named child that someone else controls.

Anti-pattern: when a Deployment or Service with the ModelService's name exists but its
controller ownerReference names another owner (or it has none and lacks the operator's own
selector label), the operator claims it: it replaces the controller ownerReference with its
own and from then on manages the object as its child, overwriting what the other owner
wanted.

Why people write it: "AlreadyOwnedError" from ``SetControllerReference`` blocks the happy
path, and adopting looks helpful (the Deployment controller adopts orphan ReplicaSets, after
all); a child left over from an earlier install, or made by hand, gets "fixed" this way.

What the correct operator does: names are not ownership. A same-named child controlled by
someone else is never written: status says ChildConflict (Ready=False, Progressing=False,
naming the child), and the operator polls until the other object is gone, then creates its
own.
"""

from __future__ import annotations

from collections.abc import Callable

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import informer
from python_operator.runtime import log as log_


class AdoptForeignReconciler(controller.ModelServiceReconciler):
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
        if live is not None and not controller.controlled_by(live, ms):
            # The mutant: claim it, replacing the other controller reference with ours; the
            # next reconcile manages it as our own child.
            claimed = informer.copy_obj(live)
            refs = claimed["metadata"].get("ownerReferences") or []
            claimed["metadata"]["ownerReferences"] = [
                *(r for r in refs if not r.get("controller")),
                controller.owner_reference(ms),
            ]
            stored = self.writer.update(resource, claimed)
            rlog.info("Adopted " + resource.kind, child=f"{resource.kind}/{meta['name']}")
            return stored, ""
        return super().ensure_child(ms, desired, resource, mutate, rlog)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", AdoptForeignReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
