"""blind-create: creates each child it already has, and swallows the AlreadyExists.

Anti-pattern: "create, and on AlreadyExists go on" as the idempotent way to make a child. On
every reconcile the operator POSTs the desired Deployment and Service whatever its cache says,
takes the 409 AlreadyExists as "it is there", records nothing, and then goes on as usual
(compare with the live child, update if it differs). Every reconcile of a ModelService whose
children exist costs two refused creates, and a process started after a crash begins with a
create of every child the crashed one had already made: a storm of AlreadyExists that the end
state never shows.

Why people write it: create-then-update is how many scripts and Helm hooks are written, the
409 is harmless to the object, the end state is right, and a check that counts only the
writes the API server accepted, or compares only end states, sees nothing.

What the correct operator does: it creates a child only when its view of the world (the
informer's full list, fresh after a restart) shows it missing, so a recovered process writes
only the difference between the world and the spec: at most one create per child that was
missing (CONTRACT.md, "After a crash"). Go twin: blind-create-go.
"""

from __future__ import annotations

import copy
from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_


class BlindCreateReconciler(controller.ModelServiceReconciler):
    def ensure_child(
        self,
        ms: controller.Obj,
        desired: controller.Obj,
        resource: Any,
        mutate: Any,
        rlog: log_.Logger,
    ) -> tuple[controller.Obj | None, str]:
        meta = desired["metadata"]
        if self.reader.get(resource, meta["namespace"], meta["name"]) is not None:
            # The mutant: create it anyway; AlreadyExists means "it is there", go on.
            try:
                self.writer.create(resource, copy.deepcopy(desired))
            except client_.ApiError as err:
                if not client_.is_conflict(err):
                    raise
        return super().ensure_child(ms, desired, resource, mutate, rlog)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", BlindCreateReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
