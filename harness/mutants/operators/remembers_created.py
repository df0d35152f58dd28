"""remembers-created: trusts its memory of what it created over the world.

Anti-pattern: the operator keeps, in memory, the children it has created (by kind, namespace
and name). A child it remembers creating but cannot find in its cache is taken to be "the
cache lagging behind my own create", and is not created again. When something else removes
the child (the garbage collector after its owner vanished, a person), the operator never
notices that its memory is wrong: a same-named successor of the ModelService waits for ever
for children that will not come back.

Why people write it: a cache that lags the operator's own creates makes a naive controller
create twice and get 409 AlreadyExists; remembering the creates silences those errors, and
on a cluster where nothing else deletes children the memory is always right.

What the correct operator does: it decides from the world, not from what it did before:
a child absent from the cache is created (a 409 AlreadyExists on a lagging cache is an error
that requeues, and the next read sees the child). What it created once is no promise that it
still exists.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import log as log_

_created: set[tuple[str, str, str]] = set()


class RemembersCreatedReconciler(controller.ModelServiceReconciler):
    def ensure_child(
        self,
        ms: controller.Obj,
        desired: controller.Obj,
        resource: Any,
        mutate: Any,
        rlog: log_.Logger,
    ) -> tuple[controller.Obj | None, str]:
        meta = desired["metadata"]
        key = (resource.kind, meta["namespace"], meta["name"])
        if key in _created and self.reader.get(resource, meta["namespace"], meta["name"]) is None:
            return desired, ""  # the mutant: "I made it; the cache will catch up"
        child, conflict = super().ensure_child(ms, desired, resource, mutate, rlog)
        if not conflict:
            _created.add(key)
        return child, conflict


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", RemembersCreatedReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
