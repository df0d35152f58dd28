"""owns-all-conditions: writes status.conditions as exactly its own two, erasing everyone else's.

Anti-pattern: the operator builds status.conditions from scratch as [Ready, Progressing] and
writes the whole list. A condition another controller added through the status subresource
(an auditor's, a policy engine's, a rollout tool's) disappears at the operator's next status
write, and comes back when the other controller notices, so the two fight for ever.

Why people write it: the operator's own status struct lists the conditions it knows, and
"compute the status, write the status" is the level-triggered habit; when only one controller
writes an object's status in the developer's cluster, nothing shows the loss.

What the correct operator does: status.conditions is a map keyed by type
(x-kubernetes-list-type: map), and the Kubernetes API conventions let other controllers add
their own types. The operator sets the types it owns in place (meta.SetStatusCondition) and
keeps every other condition as stored, with its timestamps.
"""

from __future__ import annotations

from datetime import datetime

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status


def compute_status_only_owned(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    status = _compute_status(ms, spec, dep, conflict, now, refused)
    # The mutant: exactly these two, in this order, whatever else was stored.
    status["conditions"] = [
        controller.find_condition(status["conditions"], t) for t in controller.OWNED_CONDITIONS
    ]
    return status


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_only_owned),)

if __name__ == "__main__":
    mutants.main(PATCHES)
