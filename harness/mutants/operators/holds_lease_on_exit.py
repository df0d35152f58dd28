"""holds-lease-on-exit: on SIGTERM, stops without releasing the Lease it holds.

Anti-pattern: the leader stops its workers and exits 0 on SIGTERM, but leaves its Lease as it
was: still naming it as holder, renewed a moment ago. Every standby then waits the whole lease
duration (15 s by default) before it may take over, so each rolling update or node drain leaves
the controller headless for that long.

Why people write it: the Lease expires by itself, so releasing it looks optional; client-go
releases only when asked (ReleaseOnCancel), and a test with a single replica, or one that
waits out the lease duration anyway, never notices.

What the correct operator does: on SIGTERM, after its workers have stopped, it empties the
Lease's holder (a read, then an update: client-go's release, ReleaseOnCancel in
controller-runtime's LeaderElectionReleaseOnCancel), so a standby takes over at its next retry.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import leaderelection


class HoldingElector(leaderelection.LeaderElector):
    def release(self) -> bool:
        # The mutant: nothing is written; the Lease keeps naming this instance until it expires.
        self._log.info("exiting without releasing the lease")
        return True


PATCHES = (mutants.Patch(leaderelection, "LeaderElector", HoldingElector),)

if __name__ == "__main__":
    mutants.main(PATCHES)
