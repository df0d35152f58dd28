"""kept-transition-time: a condition whose status changes keeps its old lastTransitionTime.

Anti-pattern: to stop rewriting lastTransitionTime on every reconcile (which costs a write per
reconcile and destroys "since when has this been so?"), the operator copies the stored time
into every condition it writes, changed or not. Ready and Progressing then never move their
time again after the first write: Progressing turning from True to False at a stalled
rollout still says it has been so since the ModelService was created.

Why people write it: the rule "keep the time" is stated for the common case, a reconcile that
changes nothing, and the check that the time moves needs a status that changes, which a
cluster without a deployment controller never shows by itself.

What the correct operator does: it keeps the stored time only when the condition's status is
the same, and sets it to now (to the second, UTC) when the status changes
(meta.SetStatusCondition's rule; CONTRACT.md, "Status").
"""

from __future__ import annotations

from datetime import datetime

from harness import mutants
from python_operator import controller

_set_condition = controller.set_condition  # the correct rule, taken before the patch


def set_condition_keeping_time(
    conditions: list[controller.Obj],
    cond_type: str,
    status: str,
    reason: str,
    message: str,
    generation: int,
    now: datetime,
) -> bool:
    existing = next((c for c in conditions if c.get("type") == cond_type), None)
    kept = existing.get("lastTransitionTime") if existing else None
    changed = _set_condition(conditions, cond_type, status, reason, message, generation, now)
    # The mutant: a stored time is put back even when the status changed.
    if existing is not None and kept is not None:
        existing["lastTransitionTime"] = kept
    return changed


PATCHES = (mutants.Patch(controller, "set_condition", set_condition_keeping_time),)

if __name__ == "__main__":
    mutants.main(PATCHES)
