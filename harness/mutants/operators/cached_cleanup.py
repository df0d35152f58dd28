"""cached-cleanup: decides from the informer cache that no child is left, and removes the finalizer.

Anti-pattern: during cleanup the operator asks its informer cache whether the Deployment and
the Service still exist, and removes its finalizer as soon as the cache holds neither. The
cache is fed by a watch and lags the API server, including the operator's own writes: a child
created a moment ago, in the reconcile that added the finalizer, may not be in it yet. The
finalizer goes while the child exists, the ModelService vanishes, and the child stays behind,
controlled by a UID that no longer exists, which also blocks any successor of the same name.

Why people write it: every other read in a controller-runtime reconciler comes from the cache,
and should; the race needs a deletion within milliseconds of creation, so it never shows on a
laptop, only in CI systems and tools that create and delete objects in quick succession.

What the correct operator does: a conclusion of "absent" or "done" that cannot be undone (the
finalizer removed) is confirmed from the API server itself, with an uncached read
(controller-runtime's APIReader), or by expectations of the operator's own writes as the
ReplicaSet controller keeps them; everything else may read the cache.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller


class CachedCleanupReconciler(controller.ModelServiceReconciler):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # The mutant: "live" reads come from the informer cache.
        self.live = self.reader


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", CachedCleanupReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
