"""fails-on-gone-child: a child delete answered 404 or 409 is reported as a failed delete.

Anti-pattern: the cleanup treats every error of a child's delete alike: a Warning
FailedDelete Event about the ModelService, and the pass ends with the error (retried with
backoff). But the delete carries the child's UID as precondition, so a 409 means the child
was replaced since it was read (the one the operator meant is gone, and the replacement is
someone else's to keep), and a 404 means it is gone already: no failure happened, and the
user is told of one.

Why people write it: "check every error" is the rule, and the two answers that mean
"already done" are easy to forget where a delete is written without its precondition in
mind.

What the correct operator does: a 404 or 409 on a child delete counts the child as gone (no
Event, no error); only other answers record Warning FailedDelete and end the pass
(finalizer-ordered-delete[delete-not-found]; CONTRACT.md, "Deletion").
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import events


def finalize_child_every_failure(
    self: controller.ModelServiceReconciler, ms: Any, resource: Any, child: Any, rlog: Any
) -> bool:
    """finalize_child with a delete whose every error is a failure, 404 and 409 included."""
    meta = child["metadata"]
    if meta.get("deletionTimestamp"):
        return True
    what = f'{resource.kind} "{meta["name"]}"'
    try:
        self.writer.delete(
            resource,
            meta["namespace"],
            meta["name"],
            uid=meta["uid"],
            propagation_policy="Background",
        )
    except Exception as err:
        # The mutant: a 404 or 409 is a failed delete like any other.
        controller.failed_write(self.recorder, ms, "delete", what, err)
        raise
    rlog.info("Deleted child", child=f"{resource.kind}/{meta['name']}")
    self.recorder.event(ms, events.NORMAL, "Deleted" + resource.kind, f"Deleted {what}")
    return True


PATCHES = (
    mutants.Patch(
        controller.ModelServiceReconciler, "finalize_child", finalize_child_every_failure
    ),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
