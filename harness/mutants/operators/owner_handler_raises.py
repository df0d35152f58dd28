"""owner-handler-raises: the child watch's handler fails on a child that has no controller.

Anti-pattern: the handler that maps a child's event to its owner's request reads the
controller ownerReference's kind without asking whether there is one ("every child we watch
is ours"). A Deployment or Service a user made by hand, or one a ModelService let go of (an
orphan), has none: its every event raises, and the operator's event handling fails on an
object it did not expect.

Why people write it: in a test every watched child is the operator's own; the ownerless
object arrives only with other writers in the namespace.

What the correct operator does: an event of an object with no controller, or with a controller
of another kind or group, enqueues nothing, quietly (controller-runtime v0.22's
``handler.EnqueueRequestForOwner`` with ``OnlyControllerOwner``). The Python runtime logs a
handler's exception as ``Observed a panic``, which the suite-wide panic oracle fails
(CONTRACT.md, "A reconcile never panics"); ``child-conflict[adopt-ownerless]`` makes an
ownerless Deployment. Go twin: owner-handler-panics-go.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import controller


class RaisingOwnerHandler(controller.EnqueueRequestForOwner):
    def _enqueue(self, obj: dict[str, Any]) -> None:
        ref = controller.controller_of(obj)
        # The mutant: the controller reference is read as if every child had one.
        if ref.get("kind") != self._kind:  # type: ignore[union-attr]
            return
        super()._enqueue(obj)


PATCHES = (mutants.Patch(controller, "EnqueueRequestForOwner", RaisingOwnerHandler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
