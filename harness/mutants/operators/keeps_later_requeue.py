"""keeps-later-requeue: a failure's retry waits for a pending RequeueAfter.

Anti-pattern: the work queue keeps the later of two ready times of a key instead of the
earlier (here ``DelayingQueue.add_after`` drops a new time earlier than the pending one): a
key whose last reconcile asked for requeue_after 5 s (a ChildConflict) and that fails
meanwhile is retried at the pending time, up to 5 s late, instead of after its 5 ms backoff.

Why people write it: "the key is already scheduled" looks like enough, and a hand-made
delaying queue that drops a second add of a waiting key passes every test that never mixes a
requeue_after with a failure.

What the correct operator does: its delaying queue keeps whichever ready time comes first, as
client-go's does (errors-retried[requeue-pending]: the retry within 2.5 s of the 500).
"""

from __future__ import annotations

import heapq
from datetime import timedelta
from typing import Any

from harness import mutants
from python_operator.runtime import workqueue


def add_after_keeps_later(self: workqueue.DelayingQueue[Any], item: Any, delay: timedelta) -> None:
    """The mutant: an earlier time than the pending one is dropped."""
    with self._cond:
        if self._shutting_down:
            return
        seconds = delay.total_seconds()
        if seconds <= 0:
            self._add_locked(item)
            return
        ready_at = self._clock.now() + seconds
        existing = self._ready_at.get(item)
        if existing is not None and existing > ready_at:
            return
        self._ready_at[item] = ready_at
        heapq.heappush(self._waiting, (ready_at, next(self._sequence), item))
        self._cond.notify_all()


PATCHES = (mutants.Patch(workqueue.DelayingQueue, "add_after", add_after_keeps_later),)

if __name__ == "__main__":
    mutants.main(PATCHES)
