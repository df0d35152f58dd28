"""What a reconciler is given and what it returns: the twin of
sigs.k8s.io/controller-runtime/pkg/reconcile (v0.22), ``Request`` and ``Result``.

A reconciler is level-based: it is given only a ``Request``, the namespace and name of an
object, and makes the cluster match what the object with that name requires now. Its
outcomes:

* return ``Result()``: done; the request is forgotten by the rate limiter;
* return ``Result(requeue_after=timedelta(...))``: run again after that time (no backoff);
* return ``Result(requeue=True)``: run again with rate-limited backoff;
* raise: the error is logged as ``Reconciler error`` and the request is requeued with
  rate-limited backoff. (Go returns the error; Python raises it.)
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Protocol


@dataclasses.dataclass(frozen=True)
class Request:
    """The one thing a reconcile is told: which object, as ``(namespace, name)``.

    Go: ``reconcile.Request``, which embeds ``types.NamespacedName``. Frozen, so hashable:
    the work queue holds Requests, and two notifications for one object are one item
    (client-go's queue dedups by ``==``). ``str(req)`` is ``namespace/name``, as
    ``NamespacedName.String()`` writes it (the separator is there even for an empty
    namespace); the reconciler's log lines carry it as ``modelservice``.
    """

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclasses.dataclass(frozen=True)
class Result:
    """What a reconcile asks of the queue next (Go: ``reconcile.Result``): nothing (the
    default), ``requeue_after`` > 0 (run again after that time, the backoff forgotten), or
    ``requeue`` (run again with rate-limited backoff). ``requeue_after`` wins over
    ``requeue``, as in controller-runtime's reconcileHandler."""

    requeue: bool = False
    requeue_after: timedelta = timedelta(0)


class Reconciler(Protocol):
    """Anything with ``reconcile(req) -> Result`` (Go: ``reconcile.Reconciler``, whose
    ``Reconcile(ctx, req)`` returns ``(Result, error)``; Python raises the error)."""

    def reconcile(self, req: Request) -> Result:
        """Make the cluster hold what the object req names requires; raise to be retried."""
        ...
