"""whole-second-retry: the leader elector refuses a retry period under one second.

Anti-pattern: the leader elector takes its retry period in whole seconds and refuses a
shorter one, as the ``kubernetes`` library's own leader election does (its ``Config`` exits
the process for a ``retry_period`` under 1 s). The configuration reads ``RETRY_PERIOD=0.4``
as the contract allows, and the process starts, syncs its caches and answers ``/readyz``;
then the elector is built and the process dies on a value it had accepted.

Why people write it: every default and every example uses whole seconds (15, 10, 2), so a
check that starts operators with them never meets a fraction; the library's limit looks
like a sanity check.

What the correct operator does: a duration is any finite number of seconds above 0
(CONTRACT.md, "Process"); the only bounds between the Lease timings are client-go's
(lease > renew deadline > 1.2 x retry period), judged before the first request, and a value
that passes them is used as written (config-refused: RENEW_DEADLINE=2.5 over RETRY_PERIOD=0.4
must run on).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from harness import mutants
from python_operator.runtime import leaderelection

RealElector = leaderelection.LeaderElector


class WholeSecondElector(RealElector):
    """The mutant: the real elector, which first refuses a retry period under 1 s."""

    def __init__(self, *, retry_period: timedelta, **kwargs: Any) -> None:
        if retry_period < timedelta(seconds=1):
            raise ValueError("retry_period must be at least 1 second")
        super().__init__(retry_period=retry_period, **kwargs)


PATCHES = (mutants.Patch(leaderelection, "LeaderElector", WholeSecondElector),)

if __name__ == "__main__":
    mutants.main(PATCHES)
