"""wait-end-error: the end of the wait for the CRD is logged as an error.

Anti-pattern: the probe server of the wait (or the wait itself) reports its ordinary end at
level error: Go's ``srv.Serve`` returns ``http.ErrServerClosed`` after ``Close``, and a test
``err != nil || ...`` where ``&&`` was meant logs "probe server stopped" on every start that
waited for its CRD. Alerting on error lines then pages someone for a start that went well,
and a real error drowns among the false ones.

Why people write it: the error that ``Serve`` returns after ``Close`` is easy to mistake for a
failure, and a log line nobody asserts on is never read in review.

What the correct operator does: a start that waits for its CRD and then converges logs no line
at level error (CONTRACT.md, "Process"); waits-for-crd reads the log once it converged.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_
from python_operator.runtime import manager

_wait_until_served = manager.Manager._wait_until_served  # the real one, before the patch


def wait_then_error(self: manager.Manager, resource: client_.Resource) -> bool:
    """The mutant: the real wait, then an error line when it ended with the CRD served."""
    served = _wait_until_served(self, resource)
    if served:
        log_.get_logger("setup").error("probe server stopped", error="http: Server closed")
    return served


PATCHES = (mutants.Patch(manager.Manager, "_wait_until_served", wait_then_error),)

if __name__ == "__main__":
    mutants.main(PATCHES)
