"""unbounded-renewal: waits for a renewal's answer however long it takes, past the renew
deadline.

Anti-pattern: the elector gives each Lease request of a renewal a generous timeout of its own
(an hour here) instead of what is left of the renew deadline, "so that a slow API server does
not cost the leadership". A renewal whose write stalls then keeps the leader leading, its
workers writing, long after its lease ran out and a standby took it over: two writers until
the stalled request ends.

Why people write it: the renew deadline reads like a budget for retries, not for one request,
and a partition of the whole connection hides the fault, since the leader's other writes stall
with its renewal.

What the correct operator does: a renewal that has not succeeded within the renew deadline has
failed, whatever its request would have answered, and the leader stops (client-go bounds the
renewal's context by RenewDeadline; CONTRACT.md, "Process"); leader-failover[lease-stalled]
holds the leader's Lease writes while its other requests are served.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import leaderelection

_try = leaderelection.LeaderElector.try_acquire_or_renew  # the real one, before the patch

#: The mutant's budget for one attempt, in seconds, whatever the deadline left.
GENEROUS_S = 3600.0


def unbounded(self: leaderelection.LeaderElector, *, timeout: float) -> bool:
    """The mutant: one attempt with GENEROUS_S seconds for its requests."""
    return _try(self, timeout=GENEROUS_S)


PATCHES = (mutants.Patch(leaderelection.LeaderElector, "try_acquire_or_renew", unbounded),)

if __name__ == "__main__":
    mutants.main(PATCHES)
