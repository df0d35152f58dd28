"""Where a generated run's wall time goes: seconds and counts per *phase* (a step's apply,
the quiet wait, each oracle, the level-triggered fresh world, a sequence's set-up), kept so
that ``generated.json`` can say it (``Clock.as_dict``) and later work can see what to cut.

Phases overlap when several sequences run at once (``--parallel``): each sequence's clock
counts its own wall time, so the sum over phases may exceed the run's seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Clock:
    """Seconds (``time.monotonic``) and entries per phase name, e.g. ``"apply:create"``,
    ``"quiet:wait"``, ``"level-triggered"``. Safe to share between threads."""

    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Count the wall time of the ``with`` block under ``name`` (also when it raises)."""
        start = time.monotonic()
        try:
            yield
        finally:
            self.add(name, time.monotonic() - start)

    def add(self, name: str, seconds: float, count: int = 1) -> None:
        """Add ``seconds`` and ``count`` entries to ``name``."""
        with self._lock:
            self.seconds[name] = self.seconds.get(name, 0.0) + seconds
            self.counts[name] = self.counts.get(name, 0) + count

    def merge(self, other: Clock) -> None:
        """Add every phase of ``other`` to this clock."""
        for name, s in list(other.seconds.items()):
            self.add(name, s, other.counts.get(name, 0))

    def as_dict(self) -> dict[str, dict[str, float]]:
        """``{phase: {"seconds": s, "count": n, "mean": s/n}}``, largest ``seconds`` first,
        rounded to 0.01 s (generated.json's ``phases``)."""
        with self._lock:
            items = sorted(self.seconds.items(), key=lambda kv: -kv[1])
            return {
                k: {
                    "seconds": round(s, 2),
                    "count": self.counts.get(k, 0),
                    "mean": round(s / max(self.counts.get(k, 0), 1), 3),
                }
                for k, s in items
            }
