"""never-forgets: a key's backoff is never reset by a success.

Anti-pattern: the work queue's rate limiter keeps counting a key's failures for the life of
the process (here the default controller rate limiter's ``forget`` does nothing): a key that
once failed ten times in a row and then succeeded waits 5 ms * 2**10 = 5.12 s after its next
failure, one that failed fifteen times waits minutes, and the delays only grow.

Why people write it: the retry works without Forget, and the counter looks like state the
limiter owns; controller-runtime calls Forget for you, so a hand-written worker loop (or a
custom limiter wrapping another that forwards When but not Forget) drops it without a test
noticing, until a long-lived key is slow to heal in production.

What the correct operator does: it calls Forget after every reconcile that succeeded
(client-go's contract; controller-runtime's reconcileHandler), so a failure after a success
is retried 5 ms later (errors-retried[server-error]: after ten failures and a success, the
next failure's retry within a second).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import workqueue


def forget_nothing(self: workqueue.MaxOfRateLimiter[Any], item: Any) -> None:
    """The mutant: every limiter keeps the item's count."""


PATCHES = (mutants.Patch(workqueue.MaxOfRateLimiter, "forget", forget_nothing),)

if __name__ == "__main__":
    mutants.main(PATCHES)
