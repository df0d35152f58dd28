"""status-after-writes: writes the status only in a reconcile that wrote something else.

Anti-pattern: the status is treated as the report of what this reconcile did: the reconcile
remembers whether it wrote anything (the finalizer, a child) and, if it did not, skips the
status update, "nothing happened, so there is nothing to report". The status is computed and
compared as usual; only the write is skipped. After a crash between the last child write and
the status write, the restarted operator finds the children as they should be, writes none of
them, and so never writes the status either: ``observedGeneration`` stays behind and the
conditions describe a spec that is gone, for ever. On a cluster whose pods become ready (the
sim tier, kwok) the suite sees it too: readiness changes the status with no child to write,
so ``ready-with-kwok`` kills it; on envtest ``status-rebuilt`` does, by both cases: a status
someone else overwrote, and a Deployment's status that changed, come with no child write.

Why people write it: it saves a comparison and a write in the common case, and every test that
runs the operator without interruption sees the status written, because in an uninterrupted
run the status change always comes in the same reconcile as the child write that caused it.
The crash points a suite knows (after the Deployment, after the finalizer) leave a child write
for the restarted operator, and with it the status.

What the correct operator does: it computes the status from the world on every reconcile and
writes it whenever it differs from the stored one, whatever else the reconcile did or did not
write (step 6 of the contract): the status is a function of the state, not a log of the work.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime.reconcile import Request, Result


class WriteTracker:
    """The reconcile's writer, remembering whether anything but the status was written."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.wrote = False

    def create(self, resource: Any, obj: Any) -> Any:
        out = self.inner.create(resource, obj)
        self.wrote = True
        return out

    def update(self, resource: Any, obj: Any) -> Any:
        out = self.inner.update(resource, obj)
        self.wrote = True
        return out

    def delete(self, *args: Any, **kwargs: Any) -> None:
        self.inner.delete(*args, **kwargs)
        self.wrote = True

    def update_status(self, resource: Any, obj: Any) -> Any:
        if not self.wrote:  # the mutant: nothing done, nothing to report
            return obj
        return self.inner.update_status(resource, obj)


class StatusAfterWritesReconciler(controller.ModelServiceReconciler):
    def reconcile(self, req: Request) -> Result:
        inner = self.writer
        self.writer = WriteTracker(inner)  # one worker: one reconcile at a time
        try:
            return super().reconcile(req)
        finally:
            self.writer = inner


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", StatusAfterWritesReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
