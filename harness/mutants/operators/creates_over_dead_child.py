"""creates-over-dead-child: a refused delete of a vanished ModelService's child does not end the pass: the create is sent anyway, and answered 409.

Anti-pattern: steps 4 and 5 delete the child of a ModelService of our name that no longer
exists and then create their own; the delete's failure is logged and recorded (Warning
FailedDelete) but not returned, so the create follows over a child that is still there and
is answered AlreadyExists, every pass, while the delete stays refused.

Why people write it: "the create will tell us if the name is still taken", and the 409 is
retried like any other.

What the correct operator does: a delete that fails other than with 404 or 409 is the pass's
error (CONTRACT.md, "When the ModelService vanishes"): the pass ends, nothing is created while
the child is in the way, and the key is retried with backoff until the delete is admitted
(vanished-owner[refused-delete]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client, log

_delete_child = controller.ModelServiceReconciler.delete_child


def delete_child_ignoring_refusal(
    self: controller.ModelServiceReconciler,
    ms: Any,
    resource: Any,
    child: Any,
    rlog: Any,
    resource_version: str | None = None,
) -> None:
    """The real delete_child, but a vanished owner's child whose delete fails is passed by."""
    try:
        _delete_child(self, ms, resource, child, rlog, resource_version=resource_version)
    except client.ApiError as err:
        if not controller.controlled_by_vanished(child, ms):
            raise
        log.get_logger("mutant").info("dead owner's child not deleted; creating", error=str(err))


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "delete_child", delete_child_ignoring_refusal),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
