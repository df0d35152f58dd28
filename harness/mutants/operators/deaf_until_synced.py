"""deaf-until-synced: a SIGTERM is not heeded until the informer caches have synced.

Anti-pattern: startup waits for the first list of every informer with no way out ("we cannot
do anything before the caches are warm anyway"), and only the main loop after it looks at
the stop signal. While a list is refused (a RoleBinding in the wrong namespace, a CRD not
installed yet, the API server down) the caches never sync, so the process ignores SIGTERM
until the kubelet SIGKILLs it after the grace period, on every rollout and every delete.

Why people write it: the wait is written for the happy path, where it lasts a second; the
stop signal is wired to the reconcile loop, where shutdown was tested. controller-runtime
v0.22's own manager behaves this way (its cache wait keeps going after the signal), so a
controller built on it inherits the fault.

What the correct operator does: every wait during startup also ends on the stop signal;
nothing has started before the caches sync (no worker, no Lease), so the process exits 0 at
once. The Python operator's informers pass the manager's stop event to wait_for_sync; the Go
operator stops by itself when the signal comes before its caches synced.
"""

from __future__ import annotations

import threading

from harness import mutants
from python_operator.runtime import informer


class DeafInformer(informer.Informer):
    def wait_for_sync(self, stop: threading.Event) -> bool:
        # The mutant: wait for the first list whatever the stop event says.
        return super().wait_for_sync(threading.Event())


PATCHES = (mutants.Patch(informer, "Informer", DeafInformer),)

if __name__ == "__main__":
    mutants.main(PATCHES)
