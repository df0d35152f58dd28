"""release-tries-twice: on SIGTERM, retries a Lease release that meets 409 Conflict, but only
twice in all.

Anti-pattern: the release retries a conflict, as it should, but with a budget of its own
(two attempts) instead of client-go's retry.DefaultRetry (five, 10 ms apart). On a busy API
server the renewal the shutdown cancelled, and the standby's reads, can move the Lease more
than once between the release's read and its update; after the second 409 the operator gives
up, exits 0 and leaves the Lease held, so every standby waits out the whole lease.

Why people write it: one retry is enough for the race a developer has seen (one renewal in
flight), and a test that scripts a single 409 cannot tell two attempts from five.

What the correct operator does: a 409 on the release is read again and retried, up to 5
attempts in all (CONTRACT.md, "Process"); leader-failover[release-conflict] answers the first
four release writes with 409 and expects the Lease released.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import leaderelection

PATCHES = (mutants.Patch(leaderelection, "RELEASE_CONFLICT_TRIES", 2),)

if __name__ == "__main__":
    mutants.main(PATCHES)
