"""redeletes-children: deletes a child again on every cleanup pass while it is still deleting.

Anti-pattern: every cleanup pass sends a DELETE for each child it still finds, without looking
at the child's deletionTimestamp. A child held by a finalizer of its own is deleted again every
second until it goes: a write per pass that changes nothing, and noise in the audit log of
every cluster it runs on.

Why people write it: DELETE is idempotent, so sending it again looks harmless, and on a test
cluster the child is gone after the first one, so the second pass never happens.

What the correct operator does: a child that already has a deletionTimestamp is waited for,
not deleted again; the operator comes back and checks until it is gone.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_


class IgnoresDeletionTimestamp:
    """The live reader, but every object it returns looks as if no deletion had started."""

    def __init__(self, live: controller.APIReader) -> None:
        self._live = live

    def get(self, resource: client_.Resource, namespace: str, name: str) -> controller.Obj | None:
        obj = self._live.get(resource, namespace, name)
        if obj is not None:
            # The mutant: a deleting child looks like any other.
            obj["metadata"].pop("deletionTimestamp", None)
        return obj


class RedeletesChildrenReconciler(controller.ModelServiceReconciler):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.live = IgnoresDeletionTimestamp(self.live)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", RedeletesChildrenReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
