"""status-every-time: writes the status even when it did not change.

Anti-pattern: step 6 computes the status correctly but sends it without comparing it with
the stored one: every reconcile ends with a status Update. The API server stores an
identical status as a no-op, so nothing looks wrong in the object, but every reconcile (a
restart, a resync, any unrelated event) costs a write.

Why people write it: "Status().Update at the end of Reconcile" is how many tutorials end
their Reconcile, and a comparison looks like an optimisation that can come later; the
no-op write is invisible in the object's resourceVersion.

What the correct operator does: it compares the computed status with the stored one
(semantically) and writes only when they differ: the floor for a reconcile with nothing to
do is zero writes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status


class AlwaysChanged(dict[str, Any]):
    """A status that compares unequal to every other, so that step 6's
    ``if stored != computed`` always holds: the same as deleting the comparison."""

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True


def compute_status_always_changed(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    return AlwaysChanged(_compute_status(ms, spec, dep, conflict, now, refused))


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_always_changed),)

if __name__ == "__main__":
    mutants.main(PATCHES)
