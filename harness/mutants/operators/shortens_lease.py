"""shortens-lease: a standby judges another holder's Lease expired after a quarter of its
leaseDurationSeconds, so after a crash it takes over long before the lease ran out.

Anti-pattern: the standby does not trust the duration the holder wrote: a leader renews every
retry period, so a Lease not renewed for a few periods "must" be dead, and the takeover looks
faster. While the holder renews nothing shows (each read sees a new renewTime); once it stops
renewing, because it crashed or because it is cut off from the API server while its workers
still run, the standby takes the Lease while the holder may still believe it leads: two
writers, the split brain the lease duration exists to prevent.

Why people write it: with a leader that crashed for good, an early takeover is only faster,
and a test that bounds the takeover from above (not too late) passes it.

What the correct operator does: a standby takes the Lease only once it has seen no renewal for
the lease duration the holder wrote (CONTRACT.md, "Process"); leader-failover reads the
takeover's time in the audit log against the dead leader's last renewal + the lease duration.
"""

from __future__ import annotations

import dataclasses

from harness import mutants
from python_operator.runtime import leaderelection

_get = leaderelection.LeaseLock.get  # the real one, before the patch


def shortened(
    self: leaderelection.LeaseLock, *, timeout: float
) -> leaderelection.LeaderElectionRecord:
    """The mutant: LeaseLock.get, another holder's leaseDurationSeconds read as a quarter."""
    record = _get(self, timeout=timeout)
    if record.holder_identity != self.identity:
        duration = max(1, record.lease_duration_seconds // 4)
        record = dataclasses.replace(record, lease_duration_seconds=duration)
    return record


PATCHES = (mutants.Patch(leaderelection.LeaseLock, "get", shortened),)

if __name__ == "__main__":
    mutants.main(PATCHES)
