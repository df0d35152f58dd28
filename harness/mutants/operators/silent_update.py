"""silent-update: updates a child without recording an Event.

Anti-pattern: the operator records an Event when it creates or deletes a child, but its update
path writes the child and says nothing: a ModelService scaled from 1 to 2 replicas, or a
hand-edited Deployment put back, leaves no ``UpdatedDeployment`` in ``kubectl describe``.
The user who wonders why their edit of the Deployment was undone finds no trace of who undid
it.

Why people write it: the create path is written first and gets its Event; the update path is
added later (or an error between the write and the Event skips it), and tests look for the
Events of a create and a delete only.

What the correct operator does: every change it makes to a child is an Event about the
ModelService: Created, Updated and Deleted <Kind>, each recorded right after the write that
succeeded (CONTRACT.md, "Events"), so ``events-recorded`` sees UpdatedDeployment after a
spec change.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import events as events_


class _NoUpdateEvents:
    """Passes every Event on to the recorder, but Updated<Kind>."""

    def __init__(self, recorder: events_.Recorder) -> None:
        self._recorder = recorder

    def event(self, obj: controller.Obj, event_type: str, reason: str, message: str) -> None:
        # The mutant: an update of a child is not told.
        if reason in ("UpdatedDeployment", "UpdatedService"):
            return
        self._recorder.event(obj, event_type, reason, message)


class SilentUpdateReconciler(controller.ModelServiceReconciler):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.recorder = _NoUpdateEvents(self.recorder)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", SilentUpdateReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
