"""What an operator's user asked of the API server in one window of the audit log: its
requests, its writes (succeeded, failed) by kind, and why each kind of failed write happens.

The log is read with ``harness.audit`` (``AuditLog.requests`` between two ``AuditLog.sync``
offsets, ``select``, ``summarize``); this module only counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.audit import AuditLog, Request, select, summarize

#: Why a failed write happens, by ``"<verb> <resource[/sub]> <code> <reason>"``.
FAILED_WRITE_CAUSES = {
    "update modelservices/status 409 Conflict": (
        "the second reconcile of a new ModelService (queued again by the watch events of the "
        "first one's own writes) ran before the watch event of the first one's status update "
        "reached the cache: it read the ModelService as of the finalizer update, without "
        "status, and sent a status update with that stale resourceVersion; the error requeues "
        "the key and the third reconcile, on the caught-up cache, writes nothing. Seen when "
        "the queue is short (one object at a time), rarely when hundreds are queued"
    ),
    "update modelservices 409 Conflict": (
        "a finalizer update sent with a stale resourceVersion (the cached ModelService lagged "
        "a write made meanwhile)"
    ),
    "create deployments 409 AlreadyExists": (
        "the Deployment created by the previous reconcile was not yet in the cache, so the "
        "next reconcile created it again"
    ),
    "create services 409 AlreadyExists": (
        "the Service created by the previous reconcile was not yet in the cache, so the next "
        "reconcile created it again"
    ),
    "update deployments 409 Conflict": (
        "a Deployment update sent from a cached copy older than the stored one"
    ),
    "update services 409 Conflict": (
        "a Service update sent from a cached copy older than the stored one"
    ),
}


@dataclass
class RequestCounts:
    """An operator user's requests in one window: all of them, and its writes in one
    namespace."""

    requests: int = 0
    writes_ok: int = 0
    writes_failed: int = 0
    writes_by_kind: dict[str, int] = field(default_factory=dict)
    failed_by_kind: dict[str, int] = field(default_factory=dict)
    requests_by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def event_writes(self) -> int:
        """Succeeded writes of core/v1 Events (``create events``, ``patch events``): the
        recorder's, not the reconciler's."""
        return sum(n for kind, n in self.writes_by_kind.items() if _is_event_write(kind))

    @property
    def object_writes(self) -> int:
        """Succeeded writes of everything but Events: the ModelService (finalizer, status)
        and its children."""
        return self.writes_ok - self.event_writes


def _is_event_write(kind: str) -> bool:
    """``"<verb> <resource[/sub]>"`` names a write of core/v1 Events."""
    parts = kind.split()
    return len(parts) >= 2 and parts[1].split("/")[0] == "events"


def failed_kind(req: Request) -> str:
    """A failed request as ``"<verb> <resource[/sub]> <code>[ <reason>]"``, the keys of
    ``FAILED_WRITE_CAUSES``, e.g. ``create deployments 409 AlreadyExists``."""
    return f"{req.verb} {req.target} {req.code}" + (f" {req.reason}" if req.reason else "")


def account(requests: Iterable[Request], user: str, namespace: str | None) -> RequestCounts:
    """Count ``user``'s requests (any namespace, any verb, watches included) and its writes in
    ``namespace`` (None: any): succeeded by ``"<verb> <resource[/sub]>"``, failed by
    ``failed_kind``, every request by ``"<verb> <resource[/sub]> <code>"``."""
    mine = select(requests, user=user)
    writes = select(mine, namespace=namespace, writes_only=True)
    ok = [r for r in writes if r.ok]
    failed = [r for r in writes if not r.ok]
    return RequestCounts(
        requests=len(mine),
        writes_ok=len(ok),
        writes_failed=len(failed),
        writes_by_kind=dict(sorted(Counter(f"{r.verb} {r.target}" for r in ok).items())),
        failed_by_kind=dict(sorted(Counter(failed_kind(r) for r in failed).items())),
        requests_by_kind=summarize(mine),
    )


def account_window(
    log: AuditLog, start: int, end: int, user: str, namespace: str | None
) -> RequestCounts:
    """``account`` of the requests logged between byte offsets ``start`` and ``end`` of the
    audit log (offsets from ``AuditLog.sync``)."""
    return account(log.requests(start, end), user, namespace)


def explain_failed(by_kind: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """``{kind: {"count": n, "cause": text}}`` for each kind of failed write."""
    return {
        kind: {"count": n, "cause": FAILED_WRITE_CAUSES.get(kind, "not classified")}
        for kind, n in sorted(by_kind.items(), key=lambda kv: -kv[1])
    }
