"""Work queue with client-go's semantics: the twin of k8s.io/client-go/util/workqueue (v0.34).

The official Python client ships no work queue, so this module keeps client-go's contract,
which is what makes a controller level-triggered and safe with several workers:

* **One in flight per key.** An item handed out by ``get()`` is *processing* until the caller
  calls ``done(item)``. While it is processing, no other worker receives it.
* **Duplicates collapse.** An item added while it waits in the queue is not queued twice: the
  queue holds addresses (``namespace/name``), not events, so ten notifications for one object
  cost one reconcile.
* **A key added while processing runs again after done.** ``add()`` during processing marks
  the item *dirty*; ``done()`` puts it back, so a change that arrived during a reconcile is
  never lost and never handled concurrently.
* **Delayed adds keep the earlier time.** ``add_after(item, d)`` for an item already waiting
  keeps whichever ready time comes first.
* **Rate-limited requeues.** ``add_rate_limited(item)`` waits ``rate_limiter.when(item)``: the
  default controller limiter is the maximum of a per-item exponential backoff (5 ms doubling
  to 1000 s) and an overall token bucket (10 per second, burst 100). ``forget(item)`` resets
  the item's backoff after a success.
* **Shutdown.** After ``shutdown()``, adds are ignored, waiting items are dropped, ``get()``
  still hands out what is already queued, then returns ``(None, True)``.

Three layers, as in client-go: ``Queue`` (dirty and processing sets), ``DelayingQueue``
(``add_after``), ``RateLimitingQueue`` (``add_rate_limited``, ``forget``).

Where Python differs from Go: durations are ``datetime.timedelta``; instead of a goroutine
with timers, the delaying queue promotes due items whenever it is called (``add``, ``get``,
``len``) and a blocked ``get()`` waits on its condition only until the next item is due. With
a ``FakeClock`` a test steps the clock and then calls ``len()`` or ``get()``: no sleeps.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import math
import threading
from collections.abc import Hashable
from datetime import timedelta
from typing import Generic, Protocol, TypeVar

from python_operator.runtime import clock as clock_

T = TypeVar("T", bound=Hashable)
T_contra = TypeVar("T_contra", bound=Hashable, contravariant=True)


class QueueMetrics(Protocol):
    """What the queue reports (client-go's queueMetrics, reduced to what this project exposes)."""

    def add(self) -> None:
        """An item became dirty: adds_total + 1, depth + 1."""

    def get(self) -> None:
        """An item was handed to a worker: depth - 1."""


class NoMetrics:
    """QueueMetrics that records nothing."""

    def add(self) -> None:
        pass

    def get(self) -> None:
        pass


class Queue(Generic[T]):
    """client-go's Typed queue: FIFO order, dirty and processing sets, one in flight per key."""

    def __init__(self, *, metrics: QueueMetrics | None = None) -> None:
        self._cond = threading.Condition()
        # Items ready to be handed out, in order. Invariant: every item here is in _dirty and
        # none is in _processing.
        self._queue: collections.deque[T] = collections.deque()
        # Items that need processing: queued, or added again while processing.
        self._dirty: set[T] = set()
        # Items handed out by get() whose done() has not been called yet.
        self._processing: set[T] = set()
        self._shutting_down = False
        self._metrics: QueueMetrics = metrics if metrics is not None else NoMetrics()

    def add(self, item: T) -> None:
        """Mark item for processing. A no-op if it is already queued or after shutdown."""
        with self._cond:
            self._add_locked(item)

    def _add_locked(self, item: T) -> None:
        if self._shutting_down:
            return
        if item in self._dirty:
            return
        self._metrics.add()
        self._dirty.add(item)
        if item in self._processing:
            # done() will queue it again.
            return
        self._queue.append(item)
        self._cond.notify()

    def get(self) -> tuple[T | None, bool]:
        """Block until an item can be processed; return ``(item, False)``.

        The caller must call ``done(item)`` when finished with it. Returns ``(None, True)``
        once the queue is shut down and empty: the caller's worker should then end.
        """
        with self._cond:
            while True:
                timeout = self._before_wait_locked()
                if self._queue or self._shutting_down:
                    break
                self._cond.wait(timeout)
            if not self._queue:
                return None, True
            item = self._queue.popleft()
            self._metrics.get()
            self._processing.add(item)
            self._dirty.discard(item)
            return item, False

    def _before_wait_locked(self) -> float | None:
        """Hook for DelayingQueue: promote due items, return how long get() may wait."""
        return None

    def done(self, item: T) -> None:
        """Mark item as processed. If it was added again meanwhile, queue it again."""
        with self._cond:
            self._processing.discard(item)
            if item in self._dirty:
                self._queue.append(item)
                self._cond.notify()
            elif not self._processing:
                self._cond.notify()

    def len(self) -> int:
        """Number of items ready to be handed out (not counting processing or waiting ones)."""
        with self._cond:
            self._before_wait_locked()
            return len(self._queue)

    def shutdown(self) -> None:
        """Stop accepting items and wake every blocked get()."""
        with self._cond:
            self._shutting_down = True
            self._cond.notify_all()

    def shutting_down(self) -> bool:
        with self._cond:
            return self._shutting_down


class DelayingQueue(Queue[T]):
    """client-go's delaying queue: ``add_after`` holds an item back until its ready time."""

    def __init__(
        self, *, clock: clock_.Clock | None = None, metrics: QueueMetrics | None = None
    ) -> None:
        super().__init__(metrics=metrics)
        self._clock: clock_.Clock = clock if clock is not None else clock_.RealClock()
        # Min-heap of (ready_at, sequence, item). An entry whose ready_at differs from
        # _ready_at[item] is stale (the item was moved earlier) and is skipped when popped.
        self._waiting: list[tuple[float, int, T]] = []
        # The one live ready time of each waiting item.
        self._ready_at: dict[T, float] = {}
        self._sequence = itertools.count()

    def add_after(self, item: T, delay: timedelta) -> None:
        """Add item once ``delay`` has passed. An item already waiting keeps the earlier time."""
        with self._cond:
            if self._shutting_down:
                return
            seconds = delay.total_seconds()
            if seconds <= 0:
                self._add_locked(item)
                return
            ready_at = self._clock.now() + seconds
            existing = self._ready_at.get(item)
            if existing is not None and existing <= ready_at:
                return
            self._ready_at[item] = ready_at
            heapq.heappush(self._waiting, (ready_at, next(self._sequence), item))
            # A blocked get() may now have to wake up earlier than it planned.
            self._cond.notify_all()

    def _before_wait_locked(self) -> float | None:
        if self._shutting_down:
            self._waiting.clear()
            self._ready_at.clear()
            return None
        now = self._clock.now()
        while self._waiting:
            ready_at, _, item = self._waiting[0]
            if self._ready_at.get(item) != ready_at:
                heapq.heappop(self._waiting)  # stale entry
                continue
            if ready_at > now:
                return ready_at - now
            heapq.heappop(self._waiting)
            del self._ready_at[item]
            self._add_locked(item)
        return None

    def waiting(self) -> int:
        """Number of items held back by add_after."""
        with self._cond:
            self._before_wait_locked()
            return len(self._ready_at)


class RateLimiter(Protocol[T_contra]):
    """client-go's TypedRateLimiter."""

    def when(self, item: T_contra) -> timedelta:
        """How long item should wait before its next try (records one more failure)."""

    def forget(self, item: T_contra) -> None:
        """Stop tracking item: its next failure starts from the base delay again."""

    def num_requeues(self, item: T_contra) -> int:
        """How many failures item has had since it was last forgotten."""


class ItemExponentialFailureRateLimiter(Generic[T]):
    """base * 2^failures per item, capped at max_delay."""

    def __init__(self, *, base_delay: timedelta, max_delay: timedelta) -> None:
        self._base = base_delay.total_seconds()
        self._max = max_delay.total_seconds()
        self._lock = threading.Lock()
        self._failures: dict[T, int] = {}

    def when(self, item: T) -> timedelta:
        with self._lock:
            exp = self._failures.get(item, 0)
            self._failures[item] = exp + 1
        try:
            backoff = self._base * math.pow(2, exp)
        except OverflowError:
            return timedelta(seconds=self._max)
        if backoff > self._max:
            return timedelta(seconds=self._max)
        return timedelta(seconds=backoff)

    def forget(self, item: T) -> None:
        with self._lock:
            self._failures.pop(item, None)

    def num_requeues(self, item: T) -> int:
        with self._lock:
            return self._failures.get(item, 0)


class BucketRateLimiter(Generic[T]):
    """An overall token bucket (golang.org/x/time/rate Limiter.Reserve): ``qps`` tokens per
    second, at most ``burst`` saved. Each when() takes a token, waiting for it if none is left.
    """

    def __init__(self, *, qps: float, burst: int, clock: clock_.Clock | None = None) -> None:
        self._qps = qps
        self._burst = float(burst)
        self._clock: clock_.Clock = clock if clock is not None else clock_.RealClock()
        self._lock = threading.Lock()
        self._tokens = float(burst)
        self._last = self._clock.now()

    def when(self, item: T) -> timedelta:
        with self._lock:
            now = self._clock.now()
            if now > self._last:
                self._tokens = min(self._burst, self._tokens + (now - self._last) * self._qps)
                self._last = now
            self._tokens -= 1
            if self._tokens >= 0:
                return timedelta(0)
            return timedelta(seconds=-self._tokens / self._qps)

    def forget(self, item: T) -> None:
        pass

    def num_requeues(self, item: T) -> int:
        return 0


class MaxOfRateLimiter(Generic[T]):
    """The longest wait of several limiters (every limiter records the try)."""

    def __init__(self, *limiters: RateLimiter[T]) -> None:
        self._limiters = limiters

    def when(self, item: T) -> timedelta:
        return max(limiter.when(item) for limiter in self._limiters)

    def forget(self, item: T) -> None:
        for limiter in self._limiters:
            limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return max(limiter.num_requeues(item) for limiter in self._limiters)


def default_controller_rate_limiter(*, clock: clock_.Clock | None = None) -> MaxOfRateLimiter[T]:
    """client-go's DefaultTypedControllerRateLimiter: per-item 5 ms .. 1000 s, overall 10 qps
    with a burst of 100."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(
            base_delay=timedelta(milliseconds=5), max_delay=timedelta(seconds=1000)
        ),
        BucketRateLimiter(qps=10, burst=100, clock=clock),
    )


class RateLimitingQueue(DelayingQueue[T]):
    """client-go's rate limiting queue: a delaying queue whose requeues follow a RateLimiter."""

    def __init__(
        self,
        *,
        rate_limiter: RateLimiter[T] | None = None,
        clock: clock_.Clock | None = None,
        metrics: QueueMetrics | None = None,
    ) -> None:
        super().__init__(clock=clock, metrics=metrics)
        self._rate_limiter: RateLimiter[T] = (
            rate_limiter
            if rate_limiter is not None
            else default_controller_rate_limiter(clock=clock)
        )

    def add_rate_limited(self, item: T) -> None:
        """Add item after the rate limiter says it may run again."""
        self.add_after(item, self._rate_limiter.when(item))

    def forget(self, item: T) -> None:
        """Reset item's backoff (call after it was processed successfully)."""
        self._rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self._rate_limiter.num_requeues(item)
