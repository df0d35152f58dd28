"""lost-lease-graceful: a leader that lost its Lease stops as on SIGTERM, giving its workers
the grace period.

Anti-pattern: the stop after a lost Lease is the stop after a signal: the workers get the
graceful-shutdown period (30 s, controller-runtime's default) to finish what they are doing
before the process exits. Meanwhile another instance holds the Lease and writes, and the old
leader's reconciles in flight write too: the split brain leader election exists to prevent.

Why people write it: one shutdown path is simpler than two, and "let the workers finish" is
right for a SIGTERM, where the Lease is still ours until we release it.

What the correct operator does: on a lost Lease it skips the graceful shutdown and exits at
once with code 1 (controller-runtime sets the shutdown timeout to 0: "leader election lost"),
whatever its workers are doing (leader-failover[lost-while-busy]).
"""

from __future__ import annotations

import os

from harness import mutants
from python_operator.runtime import log as log_
from python_operator.runtime import manager


def graceful_when_lost(self: manager.Manager) -> None:
    if self._stop.is_set():
        return
    self._log.error("leader election lost")
    for ctrl in self._controllers:
        # The mutant: the workers get the SIGTERM grace period, not 0.
        ctrl.stop(timeout=self._grace)
    log_.flush()
    os._exit(manager.EXIT_LEADER_ELECTION_LOST)


PATCHES = (mutants.Patch(manager.Manager, "_on_stopped_leading", graceful_when_lost),)

if __name__ == "__main__":
    mutants.main(PATCHES)
