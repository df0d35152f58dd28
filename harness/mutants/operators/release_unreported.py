"""release-unreported: a release that succeeded is reported as none.

Anti-pattern: the stopping leader gives its Lease up, but the line that says so is lost (the
result of the release read the wrong way round, or the line logged only on a path the
success does not take): whoever reads the log of a rolling update cannot tell a hand-over
from a standby waiting out the lease.

Why people write it: the Lease itself is released either way, so every test that looks at the
Lease passes.

What the correct operator does: once the release's update succeeded it logs ``Released Lease``
(CONTRACT.md, "Process"); leader-failover reads the SIGTERMed leader's log.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import leaderelection
from python_operator.runtime import log as log_

_release = leaderelection.LeaderElector.release  # the real one, before the patch


class _Unreported:
    """The elector's logger without the line of a release that succeeded."""

    def __init__(self, inner: log_.Logger) -> None:
        self._inner = inner

    def info(self, msg: str, **fields: Any) -> None:
        if msg != "Released Lease":
            self._inner.info(msg, **fields)

    def error(self, msg: str, **fields: Any) -> None:
        self._inner.error(msg, **fields)

    def debug(self, msg: str, **fields: Any) -> None:
        self._inner.debug(msg, **fields)


def unreported_release(self: leaderelection.LeaderElector) -> bool:
    """The mutant: the real release, its success not logged."""
    log = self._log
    self._log = _Unreported(log)  # type: ignore[assignment]
    try:
        return _release(self)
    finally:
        self._log = log


PATCHES = (mutants.Patch(leaderelection.LeaderElector, "release", unreported_release),)

if __name__ == "__main__":
    mutants.main(PATCHES)
