"""takes-live-lease: a standby takes the Lease while its holder still renews it.

Anti-pattern: the standby judges the Lease by what it read last time rather than by whether it
changed since: here the Lease lock reports a Lease another instance holds as held by nobody,
so the standby takes it at its next retry, and the old leader, whose renewal then meets a
409, reads it and takes it back. The Lease changes hands every retry period, and two
instances reconcile in turn.

Why people write it: the expiry test is written against a record the standby keeps for itself
(client-go's observedRecord, updated only when the Lease changed), and with one instance, or a
standby started after the leader died, every Lease it reads is one it may take.

What the correct operator does: a standby takes the Lease only when it has seen no renewal for
a lease duration (CONTRACT.md, "Process"); leader-failover reads the Lease before the kill:
same holder, same leaseTransitions.
"""

from __future__ import annotations

import dataclasses

from harness import mutants
from python_operator.runtime import leaderelection

_get = leaderelection.LeaseLock.get  # the real one, before the patch


def free_looking(
    self: leaderelection.LeaseLock, *, timeout: float
) -> leaderelection.LeaderElectionRecord:
    """The mutant: LeaseLock.get, another holder's Lease reported as held by nobody."""
    record = _get(self, timeout=timeout)
    if record.holder_identity != self.identity:
        record = dataclasses.replace(record, holder_identity="")
    return record


PATCHES = (mutants.Patch(leaderelection.LeaseLock, "get", free_looking),)

if __name__ == "__main__":
    mutants.main(PATCHES)
