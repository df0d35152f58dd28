"""stuck-after-moved-requeue: once a key was moved earlier, its old heap entry stops the queue.

Anti-pattern: the delaying queue's promotion loop stops at a stale heap entry (the old time
of a key that ``add_after`` moved earlier) instead of skipping it: from then on no delayed
key is ever promoted again. After a failure during a ChildConflict (its 5 ms retry moves the
key ahead of the pending 5 s requeue), the conflict is never judged again, and the removal of
the foreign child goes unnoticed.

Why people write it: a ``break`` where a ``continue`` belongs in the loop that pops due items
passes every test in which no key is ever moved earlier.

What the correct operator does: it skips a stale entry and goes on, as client-go's delaying
queue does (errors-retried[requeue-pending]: converged after the foreign Deployment is
deleted).
"""

from __future__ import annotations

import heapq
from typing import Any

from harness import mutants
from python_operator.runtime import workqueue


def before_wait_stops_at_stale(self: workqueue.DelayingQueue[Any]) -> float | None:
    """The mutant: the promotion loop ends at the first stale entry, which stays on top."""
    if self._shutting_down:
        self._waiting.clear()
        self._ready_at.clear()
        return None
    now = self._clock.now()
    while self._waiting:
        ready_at, _, item = self._waiting[0]
        if self._ready_at.get(item) != ready_at:
            break
        if ready_at > now:
            return ready_at - now
        heapq.heappop(self._waiting)
        del self._ready_at[item]
        self._add_locked(item)
    return None


PATCHES = (
    mutants.Patch(workqueue.DelayingQueue, "_before_wait_locked", before_wait_stops_at_stale),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
