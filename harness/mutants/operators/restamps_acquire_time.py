"""restamps-acquire-time: every renewal writes acquireTime anew, as if the Lease were taken
again each retry period.

Anti-pattern: the Lease lock writes acquireTime from the time of the write, whatever the
record it was given says, so acquireTime always equals renewTime: nobody reading the Lease
can tell how long its holder has held it, and a leader that has led for days looks as new as
one that just took over.

Why people write it: acquireTime and renewTime are both "now" when the Lease is first taken,
so a test that reads the Lease once after the first acquire cannot tell them apart.

What the correct operator does: acquireTime is set once per holder, when it takes the Lease,
and renewals keep it (client-go's tryAcquireOrRenew; CONTRACT.md, "Process");
leader-failover[lease-record] reads it over renewals and after a hand edit of the Lease.
"""

from __future__ import annotations

import dataclasses

from harness import mutants
from python_operator.runtime import leaderelection

_update = leaderelection.LeaseLock.update  # the real one, before the patch


def restamped(
    self: leaderelection.LeaseLock,
    record: leaderelection.LeaderElectionRecord,
    *,
    timeout: float,
) -> None:
    """The mutant: LeaseLock.update with acquireTime set to the record's renewTime."""
    _update(self, dataclasses.replace(record, acquire_time=record.renew_time), timeout=timeout)


PATCHES = (mutants.Patch(leaderelection.LeaseLock, "update", restamped),)

if __name__ == "__main__":
    mutants.main(PATCHES)
