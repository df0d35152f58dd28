"""zombie-leader: keeps reconciling after it lost the Lease.

Anti-pattern: when the leader fails to renew its Lease within the renew deadline (the API
server unreachable, the process paused), it logs the loss and carries on: its workers keep
taking keys and writing. Meanwhile another instance, seeing the lease expire, has become
leader, and two instances act on the same objects at once: the split brain leader election
exists to prevent.

Why people write it: exiting on a lost lease looks drastic ("the cluster was only briefly
unreachable"), and staying up keeps the pod Ready; the loss only happens on a partition,
which a single-replica test never has.

What the correct operator does: a leader that could not renew within its renew deadline
stops reconciling at once; controller-runtime exits the process ("leader election lost"),
and the restarted process comes back as a standby.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import manager


class ZombieManager(manager.Manager):
    def _on_stopped_leading(self) -> None:
        if self._stop.is_set():
            return  # our own shutdown: the Lease was released
        # The mutant: log it and carry on; the workers keep running.
        self._log.error("leader election lost; continuing to reconcile")


PATCHES = (mutants.Patch(manager, "Manager", ZombieManager),)

if __name__ == "__main__":
    mutants.main(PATCHES)
