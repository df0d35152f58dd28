"""fresh-timestamp: sets lastTransitionTime to now on every status write.

Anti-pattern: every condition the operator sets gets ``lastTransitionTime: now``, whether its
status changed or not. The computed status therefore differs from the stored one whenever a
second has passed, so every reconcile also writes the status.

Why people write it: a condition is built fresh each time (``Condition{Type, Status, Reason,
Message, LastTransitionTime: metav1.Now()}``) and appended or replaced in the list, which is
the shortest code; "transition" is read as "when we last set it".

What the correct operator does: it keeps a condition's lastTransitionTime unless that
condition's status changes (``meta.SetStatusCondition``), so the field answers "since when
has this been so?", and an unchanged world computes an unchanged status and writes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

from harness import mutants
from python_operator import controller

_set_condition = controller.set_condition


def set_condition_now(
    conditions: list[controller.Obj],
    cond_type: str,
    status: str,
    reason: str,
    message: str,
    generation: int,
    now: datetime,
) -> bool:
    _set_condition(conditions, cond_type, status, reason, message, generation, now)
    # The mutant: the transition time is always now.
    condition = controller.find_condition(conditions, cond_type)
    condition["lastTransitionTime"] = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return True


PATCHES = (mutants.Patch(controller, "set_condition", set_condition_now),)

if __name__ == "__main__":
    mutants.main(PATCHES)
