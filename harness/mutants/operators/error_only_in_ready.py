"""error-only-in-ready: reports a child conflict in Ready alone; Progressing keeps what it was.

Anti-pattern: on an error path the operator sets Ready=False with the error and leaves every
other condition as stored. When the ModelService met the foreign child at its first reconcile,
Progressing was never set, so the status has Ready and nothing else; when the conflict came
later, Progressing still says True/RolloutInProgress: a rollout that is not happening.

Why people write it: "Ready is the condition users look at", and error handling is written
once, in the branch that returns the error, where only Ready is in hand.

What the correct operator does: every reconcile computes all the conditions it owns from what
it observed (CONTRACT.md, "Status"): a child it cannot own stops the rollout, so Progressing is
False with reason ChildConflict beside Ready.
"""

from __future__ import annotations

from datetime import datetime

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status


def compute_status_error_in_ready(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    status = _compute_status(ms, spec, dep, conflict, now, refused)
    if not conflict:
        return status
    # The mutant: Progressing as stored (absent if it never was), whatever the conflict.
    stored = (ms.get("status") or {}).get("conditions") or []
    kept = [c for c in stored if c.get("type") == controller.CONDITION_PROGRESSING]
    status["conditions"] = [
        c for c in status["conditions"] if c.get("type") != controller.CONDITION_PROGRESSING
    ] + kept
    return status


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_error_in_ready),)

if __name__ == "__main__":
    mutants.main(PATCHES)
