"""hot-retries-crd: waits for its CRD by asking again every 50 ms, never backing off.

Anti-pattern: while its CRD is not installed the operator asks discovery again and again at a
fixed short interval: twenty requests a second for as long as the CRD is missing, from every
replica, and a log line with each.

Why people write it: waiting is right (the CRD may come after the operator), and a short
fixed sleep makes the operator start the moment the CRD appears; in a test the CRD is missing
for a second at most, so the cost never shows.

What the correct operator does: it backs off exponentially, as client-go's reflector does
after a failed list (0.8 s doubling to a cap of 30 s): a CRD installed soon is noticed soon,
and a CRD that never comes costs two requests a minute, not twelve hundred.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import manager


def no_backoff(attempt: int) -> float:
    # The mutant: the same short delay after every attempt.
    return 0.05


PATCHES = (mutants.Patch(manager, "served_retry_delay", no_backoff),)

if __name__ == "__main__":
    mutants.main(PATCHES)
