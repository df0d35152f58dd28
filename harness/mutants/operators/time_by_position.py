"""time-by-position: finds its stored condition by position, not by type: a foreign condition's time becomes its own.

Anti-pattern: to keep a condition's lastTransitionTime while its status does not change, the
operator looks up "the stored condition" as the first one in status.conditions, which is its
own as long as it wrote the list alone. Once another controller's condition is stored first
(status.conditions is a map keyed by type, and other controllers may add their own types),
Ready or Progressing takes that condition's time whenever the statuses match, and the status
is written again for it.

Why people write it: in every test the operator's own conditions are the whole list, and
Ready is first.

What the correct operator does: it keeps the stored time of the stored condition of the same
type, found by type (CONTRACT.md, "Status": the operator owns Ready and Progressing only).
"""

from __future__ import annotations

from datetime import datetime

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status  # the correct status, taken before the patch


def compute_status_by_position(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    stored = list((ms.get("status") or {}).get("conditions") or [])
    status = _compute_status(ms, spec, dep, conflict, now, refused)
    first = stored[0] if stored and isinstance(stored[0], dict) else None
    # The mutant: "the stored condition" is the first one stored, whatever its type.
    for c in status.get("conditions") or []:
        if (
            first is not None
            and c.get("type") in ("Ready", "Progressing")
            and first.get("status") == c.get("status")
            and first.get("lastTransitionTime")
        ):
            c["lastTransitionTime"] = first["lastTransitionTime"]
    return status


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_by_position),)

if __name__ == "__main__":
    mutants.main(PATCHES)
