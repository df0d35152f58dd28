"""What a reconciler returns: the twin of sigs.k8s.io/controller-runtime/pkg/reconcile.

A reconciler is level-based: it is given only a key, ``namespace/name``, and makes the cluster
match what the object with that key requires now. Its outcomes:

* return ``Result()``: done; the key is forgotten by the rate limiter;
* return ``Result(requeue_after=timedelta(...))``: run again after that time (no backoff);
* return ``Result(requeue=True)``: run again with rate-limited backoff;
* raise: the error is logged as ``Reconciler error`` and the key is requeued with
  rate-limited backoff. (Go returns the error; Python raises it.)
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Protocol


@dataclasses.dataclass(frozen=True)
class Result:
    requeue: bool = False
    requeue_after: timedelta = timedelta(0)


class Reconciler(Protocol):
    def reconcile(self, key: str) -> Result: ...
