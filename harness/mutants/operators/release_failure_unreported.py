"""release-failure-unreported: on SIGTERM, gives up a Lease release that failed without saying
so.

Anti-pattern: the shutdown path treats a failed release as nothing to report ("we are exiting
anyway"), so the log of a leader whose release was refused reads like that of one that had
nothing to release, and whoever wonders why the next leader took a whole lease duration to
come finds no line about it.

Why people write it: the release is best effort by design (standbys take an expired Lease
anyway), and errors during shutdown are often noise.

What the correct operator does: a release that failed is logged once at level error, ``could
not release the Lease; standbys wait for it to expire``, and never as released (CONTRACT.md,
"Process"); leader-failover[release-refused] refuses every release attempt with 409 and reads
the leader's log.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import leaderelection
from python_operator.runtime import log as log_

_release = leaderelection.LeaderElector.release  # the real one, before the patch

FAILED_MSG = "could not release the Lease; standbys wait for it to expire"


class _Quiet:
    """The elector's logger without the line of a release that failed."""

    def __init__(self, inner: log_.Logger) -> None:
        self._inner = inner

    def info(self, msg: str, **fields: Any) -> None:
        self._inner.info(msg, **fields)

    def error(self, msg: str, **fields: Any) -> None:
        if msg != FAILED_MSG:
            self._inner.error(msg, **fields)

    def debug(self, msg: str, **fields: Any) -> None:
        self._inner.debug(msg, **fields)


def quiet_release(self: leaderelection.LeaderElector) -> bool:
    """The mutant: the real release, its failure not logged."""
    log = self._log
    self._log = _Quiet(log)  # type: ignore[assignment]
    try:
        return _release(self)
    finally:
        self._log = log


PATCHES = (mutants.Patch(leaderelection.LeaderElector, "release", quiet_release),)

if __name__ == "__main__":
    mutants.main(PATCHES)
