"""resets-lease-transitions: takes the Lease without reading how often it changed hands, so
leaseTransitions starts again from 1 at every takeover.

Anti-pattern: the Lease lock reads only the fields the elector decides by (holderIdentity,
leaseDurationSeconds, renewTime) and leaves leaseTransitions at its zero value, so the next
write counts from 0: every takeover writes leaseTransitions 1, and a leader that flaps every
minute reads, to kubectl and to an alert on hand-overs, like one that took over once.

Why people write it: the counter decides nothing in the election itself, and a test with a
fresh Lease (transitions 0, then 1) cannot tell it from counting.

What the correct operator does: a takeover writes the Lease's leaseTransitions + 1, a
renewal keeps it (CONTRACT.md, "Process"); leader-failover[lease-record] leaves a released
Lease with leaseTransitions 5 and expects 6 from the first holder.
"""

from __future__ import annotations

import dataclasses

from harness import mutants
from python_operator.runtime import leaderelection

_get = leaderelection.LeaseLock.get  # the real one, before the patch


def uncounted(
    self: leaderelection.LeaseLock, *, timeout: float
) -> leaderelection.LeaderElectionRecord:
    """The mutant: LeaseLock.get with leaseTransitions read as 0."""
    return dataclasses.replace(_get(self, timeout=timeout), leader_transitions=0)


PATCHES = (mutants.Patch(leaderelection.LeaseLock, "get", uncounted),)

if __name__ == "__main__":
    mutants.main(PATCHES)
