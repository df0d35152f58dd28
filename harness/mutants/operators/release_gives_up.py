"""release-gives-up: on SIGTERM, a Lease release refused with 409 Conflict is not retried.

Anti-pattern: the leader releases its Lease on the way out (a read, then an update that
empties the holder), and treats the update's error as final: it logs "failed to release
lease" and exits 0. A 409 there is ordinary: a renewal the shutdown cancelled can still reach
the API server after the release's read, so the update carries a stale resourceVersion. The
Lease stays held by a process that is gone, and every standby waits out the whole lease
duration before it may take over.

Why people write it: the release is best effort by design (the lease expires anyway), so one
attempt looks enough, and on an idle machine the race never happens; it shows up under load,
as a rolling update that leaves the controller headless for 15 s.

What the correct operator does: it reads the Lease again and retries the release on a 409,
as retry.RetryOnConflict does in client-go (the Go operator's releaseLease; the Python
operator's LeaderElector.release, RELEASE_CONFLICT_TRIES attempts).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import leaderelection

PATCHES = (mutants.Patch(leaderelection, "RELEASE_CONFLICT_TRIES", 1),)

if __name__ == "__main__":
    mutants.main(PATCHES)
