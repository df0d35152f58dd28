"""Clocks for the runtime: the twin of k8s.io/utils/clock's ``PassiveClock`` (``Now``), which
client-go's workqueue and leader elector take, with ``FakeClock`` the twin of
k8s.io/utils/clock/testing's ``FakePassiveClock`` (``step`` for ``SetTime``).

``now()`` is monotonic seconds (``time.monotonic``): only differences matter. What takes a
``Clock``, so that a test steps a ``FakeClock`` instead of sleeping:

* the work queue: ``DelayingQueue``/``RateLimitingQueue`` (when a delayed item is due) and
  ``BucketRateLimiter`` (token refill);
* the leader elector, as ``clock``: the renew deadline and how long ago a Lease record was
  observed (its acquireTime/renewTime come from ``wall_clock``, a function returning a
  datetime);
* the Event recorder (``events.Broadcaster``, ``EventCorrelator``): the same protocol, but a
  wall clock (``events.WallClock``, seconds since the epoch), because Event names and
  timestamps are wall times.

What does not: the informer (its backoff waits on a ``threading.Event`` in real time: tests
pass ``backoff=(0, 0)``); the leader elector's and the work queue's blocking waits
(``Event.wait``, ``Condition.wait``: real time; with a ``FakeClock`` a test steps the clock and
then polls, it never blocks); the controller's shutdown deadline and reconcile-time metric
(``time.monotonic``). The reconciler (python_operator/controller.py) takes ``now``, a function
returning an aware datetime, for lastTransitionTime: the Go reference's Clock field.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """A source of time, in seconds: monotonic here (RealClock, FakeClock), the epoch for
    events.WallClock. Go: clock.PassiveClock's Now()."""

    def now(self) -> float: ...


class RealClock:
    """The process's monotonic clock."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that moves only when told to: ``step(seconds)`` (Go: clocktesting.FakePassiveClock,
    whose SetTime sets where this adds). Starts at ``start``; safe to share across threads."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def step(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
