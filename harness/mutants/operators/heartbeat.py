"""heartbeat: writes the status every 20 s whether anything changed or not.

Anti-pattern: every reconcile that finds nothing to do asks to run again after 20 s, and
step 6 stamps the Ready condition's lastTransitionTime with the start of the current 20 s
period, so each of those timed reconciles finds the status "changed" and writes it: a
liveness signal in the object ("the operator was here at 10:00:20"). Nothing the user asked
for changes, but every ModelService costs a status write, a watch event to every client and
an etcd revision every 20 s, for ever.

Why people write it: a periodic resync with a "last seen" time looks like a cheap health
signal, and its writes are invisible in any window of a few seconds after a change: a check
that watches only the moments after what it changed sees a quiet operator.

What the correct operator does: it requeues only when something it depends on cannot send an
event (a foreign child, a deletion waiting for the cache), and a condition's
lastTransitionTime moves only when its status does: with nothing changing, it makes no
request at all.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from harness import mutants
from python_operator import controller
from python_operator.runtime.reconcile import Request, Result

#: The heartbeat's period, in seconds.
PERIOD = 20

_compute_status = controller.compute_status
_reconcile = controller.ModelServiceReconciler.reconcile


def compute_status_stamped(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    status = _compute_status(ms, spec, dep, conflict, now, refused)
    period = int(now.timestamp()) // PERIOD * PERIOD
    stamp = datetime.fromtimestamp(period, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for cond in status.get("conditions") or []:
        if cond.get("type") == controller.CONDITION_READY:
            cond["lastTransitionTime"] = stamp
    return status


def reconcile_every_period(self: controller.ModelServiceReconciler, req: Request) -> Result:
    result = _reconcile(self, req)
    if result == Result():
        return Result(requeue_after=timedelta(seconds=PERIOD))
    return result


PATCHES = (
    mutants.Patch(controller, "compute_status", compute_status_stamped),
    mutants.Patch(controller.ModelServiceReconciler, "reconcile", reconcile_every_period),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
