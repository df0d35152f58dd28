"""sticky-reason: rewrites a condition's reason only when its status changes.

Anti-pattern: the operator treats a condition as its status alone: while Ready stays False it
keeps the reason stored first, so a rollout that stops progressing (the Deployment's
ProgressDeadlineExceeded) is still reported as Ready False ReplicasUnavailable, next to a
message that says the deadline passed. Tools and users that switch on the reason (alerts,
``kubectl wait --for=jsonpath``) never see the stall.

Why people write it: lastTransitionTime must move only when the status changes, and the
same "only on a status change" guard is easily put around the whole condition; most changes
of a condition do change its status, so tests that watch transitions pass.

What the correct operator does: it sets reason, message and observedGeneration on every
reconcile, as meta.SetStatusCondition does, and moves lastTransitionTime only when the status
changes; a change of the reason alone is a change of the status that is written
(progressing-without-kubelet plays one).
"""

from __future__ import annotations

from datetime import datetime

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status


def compute_status_sticky_reason(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    status = _compute_status(ms, spec, dep, conflict, now, refused)
    stored = (ms.get("status") or {}).get("conditions") or []
    for cond in status.get("conditions") or []:
        if cond.get("type") not in (controller.CONDITION_READY, controller.CONDITION_PROGRESSING):
            continue
        old = next((c for c in stored if c.get("type") == cond.get("type")), None)
        # The mutant: while the status holds, the stored reason stays.
        if old is not None and old.get("status") == cond.get("status") and "reason" in old:
            cond["reason"] = old["reason"]
    return status


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_sticky_reason),)

if __name__ == "__main__":
    mutants.main(PATCHES)
