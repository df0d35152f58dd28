"""Clocks for the runtime: the twin of k8s.io/utils/clock (used by client-go's workqueue).

The workqueue, the informer backoff and the leader elector never call ``time`` directly:
they take a ``Clock`` so that tests drive time by stepping a ``FakeClock`` instead of
sleeping. ``now()`` is monotonic seconds (``time.monotonic``): only differences matter.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """A source of monotonic time, in seconds."""

    def now(self) -> float: ...


class RealClock:
    """The process's monotonic clock."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that moves only when told to: ``step(seconds)``. Safe to share across threads."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def step(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
