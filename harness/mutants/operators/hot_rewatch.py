"""hot-rewatch: sends a refused watch again after 50 ms, every time, never backing off.

Anti-pattern: the informer's loop retries a failed list or watch start after a fixed short
pause (here the reflector backoff's delay replaced by 50 ms): a watch the API server refuses
(403: the role lacks ``watch``; 429 or 5xx without Retry-After: a server in trouble) comes back
twenty times a second per resource for as long as the refusal lasts, each one authorized,
audited and logged by an API server every other client shares.

Why people write it: a watch that broke should come back soon, and in a demo every failure is
a dropped connection that the next attempt fixes; a refusal that only a person can lift (a
missing verb in the role) does not happen there.

What the correct operator does: it backs off as client-go's reflector does, 0.8 s after the
first failure in a row, doubling up to 30 s (rbac-least-privilege[watch-refused] sees each
refused watch of a resource come no sooner than 0.8 s, 1.6 s, 3.2 s after the one before).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import informer


def no_backoff(self: informer.Informer, failures: int) -> float:
    """The mutant's delay after any failed list or watch start: 50 ms, never growing."""
    return 0.05


PATCHES = (mutants.Patch(informer.Informer, "_delay", no_backoff),)

if __name__ == "__main__":
    mutants.main(PATCHES)
