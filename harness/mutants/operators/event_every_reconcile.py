"""event-every-reconcile: records a Normal Event on every reconcile, also when nothing changed.

Anti-pattern: every reconcile ends with ``Normal Reconciled "ModelService reconciled"``,
whether it wrote anything or not. The recorder counts the repeats into one Event, so the
Event list stays short, but every reconcile now costs a write (a PATCH of the Event's count):
a restart, a resync or an unrelated annotation, none of which changed anything, each write
to the API server, and ``kubectl describe`` reports activity that did not happen.

Why people write it: Kubernetes' own sample-controller ends every successful sync with a
"Synced" Event, and "the reconcile succeeded" feels like news worth telling. The recorder's
aggregation hides the cost: the Event list looks tidy.

What the correct operator does: it records an Event for a change it made (a child created,
updated or deleted; the finalizer removed) or a problem it met, never for a reconcile that
found the world as it should be: a reconcile with nothing to do writes nothing, Events
included.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import events
from python_operator.runtime.reconcile import Request, Result


class ReconciledEventReconciler(controller.ModelServiceReconciler):
    def reconcile(self, req: Request) -> Result:
        result = super().reconcile(req)
        ms = self.reader.get(controller.MODELSERVICES, req.namespace, req.name)
        if ms is not None:
            # The mutant: an Event for every reconcile that did not fail.
            self.recorder.event(ms, events.NORMAL, "Reconciled", "ModelService reconciled")
        return result


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", ReconciledEventReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
