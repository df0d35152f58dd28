"""What an operator's user asked of the API server in one window of the audit log: its
requests, its writes (succeeded, failed) by kind, and why each kind of failed write happens.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Why a failed write happens, by ``"<verb> <resource[/sub]> <code> <reason>"``.
FAILED_WRITE_CAUSES = {
    "update modelservices/status 409 Conflict": (
        "the second reconcile of a new ModelService (queued again by the watch events of the "
        "first one's own writes) ran before the watch event of the first one's status update "
        "reached the cache: it read the ModelService as of the finalizer update, without "
        "status, and sent a status update with that stale resourceVersion; the error requeues "
        "the key and the third reconcile, on the caught-up cache, writes nothing. Seen when "
        "the queue is short (one object at a time), rarely when hundreds are queued"),
    "update modelservices 409 Conflict": (
        "a finalizer update sent with a stale resourceVersion (the cached ModelService lagged "
        "a write made meanwhile)"),
    "create deployments 409 AlreadyExists": (
        "the Deployment created by the previous reconcile was not yet in the cache, so the "
        "next reconcile created it again"),
    "create services 409 AlreadyExists": (
        "the Service created by the previous reconcile was not yet in the cache, so the next "
        "reconcile created it again"),
    "update deployments 409 Conflict": (
        "a Deployment update sent from a cached copy older than the stored one"),
    "update services 409 Conflict": (
        "a Service update sent from a cached copy older than the stored one"),
}


@dataclass
class AuditEvent:
    """The fields of one audit event the bench counts."""

    user: str
    verb: str
    target: str  # resource[/subresource]
    namespace: str
    code: int
    reason: str

    @property
    def is_write(self) -> bool:
        return self.verb in ("create", "update", "patch", "delete", "deletecollection")

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 300

    @property
    def kind(self) -> str:
        """``"<verb> <target> <code>[ <reason>]"``, e.g. ``create deployments 409 AlreadyExists``."""
        return f"{self.verb} {self.target} {self.code}" + (f" {self.reason}" if self.reason else "")


def parse_audit_lines(data: bytes, users: Iterable[str] | None = None) -> Iterator[AuditEvent]:
    """The events in a chunk of the audit log (JSON lines). A half-written last line is
    skipped; ``users``: keep only these users' events (checked before decoding fully)."""
    wanted = None if users is None else [u.encode() for u in users]
    for line in data.splitlines():
        if not line.strip():
            continue
        if wanted is not None and not any(u in line for u in wanted):
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        ref = ev.get("objectRef") or {}
        resp = ev.get("responseStatus") or {}
        user = (ev.get("user") or {}).get("username", "")
        if users is not None and user not in set(users):
            continue
        res, sub = ref.get("resource", ""), ref.get("subresource", "")
        yield AuditEvent(user=user, verb=ev.get("verb", ""),
                         target=f"{res}/{sub}" if sub else res,
                         namespace=ref.get("namespace", ""), code=int(resp.get("code", 0) or 0),
                         reason=str(resp.get("reason", "") or ""))


def read_audit(path: Path, start: int, end: int, users: Iterable[str] | None = None
               ) -> list[AuditEvent]:
    """The events between byte offsets start and end of the audit log (read once)."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(max(0, end - start))
    return list(parse_audit_lines(data, users))


@dataclass
class Accounting:
    """An operator user's requests in one window: all of them, and its writes in one
    namespace."""

    requests: int = 0
    writes_ok: int = 0
    writes_failed: int = 0
    writes_by_kind: dict[str, int] = field(default_factory=dict)
    failed_by_kind: dict[str, int] = field(default_factory=dict)
    requests_by_kind: dict[str, int] = field(default_factory=dict)


def account(events: Iterable[AuditEvent], user: str, namespace: str | None) -> Accounting:
    """Count ``user``'s requests (any namespace) and its writes in ``namespace`` (None: any)."""
    acc = Accounting()
    ok: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    every: Counter[str] = Counter()
    for ev in events:
        if ev.user != user:
            continue
        acc.requests += 1
        every[f"{ev.verb} {ev.target} {ev.code}"] += 1
        if not ev.is_write or (namespace is not None and ev.namespace != namespace):
            continue
        if ev.ok:
            acc.writes_ok += 1
            ok[f"{ev.verb} {ev.target}"] += 1
        else:
            acc.writes_failed += 1
            failed[ev.kind] += 1
    acc.writes_by_kind = dict(sorted(ok.items()))
    acc.failed_by_kind = dict(sorted(failed.items()))
    acc.requests_by_kind = dict(sorted(every.items()))
    return acc


def explain_failed(by_kind: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """``{kind: {"count": n, "cause": text}}`` for each kind of failed write."""
    return {kind: {"count": n, "cause": FAILED_WRITE_CAUSES.get(kind, "not classified")}
            for kind, n in sorted(by_kind.items(), key=lambda kv: -kv[1])}
