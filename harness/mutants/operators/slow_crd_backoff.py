"""slow-crd-backoff: waits for its CRD with a backoff that starts one doubling late: 1.6 s, 3.2 s, 6.4 s ...

Anti-pattern: the delay after the n-th failed discovery is the initial delay doubled n + 1
times, not n (a loop that counts to `<= attempt`, or a doubling before the first wait): every
wait is twice the contract's, so a CRD installed a moment after the operator started is
noticed seconds later than it should be, on every replica.

Why people write it: an off-by-one in a backoff loop is invisible in a test that only checks
that the waits grow and that there are not too many attempts.

What the correct operator does: 0.8 s after the first failed discovery, doubling per attempt
up to 30 s (CONTRACT.md, "Process"; waits-for-crd bounds the first four waits, 12 s, from
above too).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import manager

_served_retry_delay = manager.served_retry_delay


def one_doubling_late(attempt: int) -> float:
    # The mutant: the delay of the next attempt.
    return float(_served_retry_delay(attempt + 1))


PATCHES = (mutants.Patch(manager, "served_retry_delay", one_doubling_late),)

if __name__ == "__main__":
    mutants.main(PATCHES)
