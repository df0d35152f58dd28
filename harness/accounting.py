"""Request accounting: which requests an operator made, in which window, with what answer.

Two sources give the same ``harness.audit.Request`` records through one interface
(``Accounting``: ``offset()``, ``sync(kube)``, ``requests(start, end)``), so a check reads
either without knowing which:

- ``harness.audit.AuditLog``: the API server's audit log, on a control plane the harness
  builds. It sees every user (the harness's own requests, the controller-manager's) and request
  bodies (a delete's preconditions).
- ``ProxyAccounting`` (here): the request logs of the API proxies (``harness.faults.apiproxy``)
  every operator process runs behind, one per process. It works on any cluster the operator
  reaches through a proxy, and sees only the operators' requests. Each proxy is registered
  with the operator's user and instance (``harness.audit.instance_group``), so
  ``select(user=..., instance=...)`` works as with the audit log's certificates.

Markers of ``ProxyAccounting`` are microseconds since the epoch. A request counts as complete
as the audit log counts it (``ProxyRequest.complete_at``): a watch when its stream ended, any
other request when its answer was known. ``requests(start, end)`` holds those complete in
``[start, end)``. ``sync()`` takes the time now, then has every running proxy write a mark
line (``ApiProxy.mark``): a proxy stamps each line under its log's lock, so every line
stamped before the marker is on disk when ``sync`` returns. Before it takes the time, it
lets every proxy log the answers of the requests already forwarded (``ApiProxy.settle``). Requests the proxy answered
itself (a scripted error; dropped during a scripted crash) and requests that never reached
the API server (answered 502 by the proxy; a body its client never finished sending) are left
out: the API server never saw them.

``compare_accountings`` matches the two sources request for request by the API server's
``Audit-Id`` (``harness.faults.apiproxy.records.compare``); the plugin records its result
for every check on a tier with an audit log (property ``accounting``).
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from harness.audit import AuditLog, Request, instance_group, select
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, compare

if TYPE_CHECKING:
    from harness.faults.apiproxy import ApiProxy

#: Seconds ``ProxyAccounting.sync`` waits at most, over all proxies, for the answers of the
#: requests they have forwarded (an API server answers in milliseconds; a request hung
#: upstream must not hold every marker up).
SETTLE_TIMEOUT = 5.0

#: Seconds ``compare_accountings`` waits for the two sources to agree (a watch ended by the
#: operator's stop reaches the audit log a moment after the proxy's log).
AGREE_TIMEOUT = 15.0


class Accounting(Protocol):
    """What a check reads requests from: the audit log or the proxies' logs."""

    def offset(self) -> int:
        """A marker for "now", without waiting for anything to be written."""
        ...

    def sync(self, kube: Any, timeout: float = 10.0) -> int:
        """A marker before which every request that completed before the call is included."""
        ...

    def requests(self, start: int = 0, end: int | None = None) -> Iterable[Request]:
        """The requests between two markers (``end`` None: until now), in completion order."""
        ...


def _micros(stamp: str) -> int:
    """An audit-style time (``...T10:00:00.123456Z``) as microseconds since the epoch."""
    dt = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return int(dt.timestamp()) * 1_000_000 + dt.microsecond


@dataclass(frozen=True)
class Source:
    """One proxy's request log and whose requests it carries."""

    log: RequestLog
    user: str
    instance: str = ""
    proxy: ApiProxy | None = None

    def request(self, rec: ProxyRequest) -> Request:
        """``rec`` as a ``harness.audit.Request`` of this source's user and instance group."""
        groups = (instance_group(self.instance),) if self.instance else ()
        return replace(rec.as_request(self.user), groups=groups)


@dataclass
class ProxyAccounting:
    """Request accounting from the request logs of every proxy registered with ``add``
    (interface and markers in the module docstring)."""

    sources: list[Source] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, proxy: ApiProxy, user: str, instance: str = "") -> None:
        """Account the requests through ``proxy`` (started or not) as ``user``'s, of
        ``instance`` if given."""
        with self._lock:
            self.sources.append(Source(RequestLog(proxy.request_log), user, instance, proxy))

    def offset(self) -> int:
        """Now, in microseconds since the epoch."""
        return time.time_ns() // 1000

    def sync(self, kube: Any = None, timeout: float = 10.0) -> int:
        """A marker taken once every running proxy has logged the answer of each request it
        had forwarded (``ApiProxy.settle``; all together at most ``timeout`` s, capped at
        SETTLE_TIMEOUT: a request still unanswered then is left to later windows), returned
        once each has
        written a mark after it (``ApiProxy.mark``). The settling matters: the API server
        applies a write before the proxy sees its answer, so a check that saw the effect
        (an object gone once its finalizer was removed) would otherwise take a marker before
        the request that caused it. ``kube`` is the audit log's (the proxies need no marker
        request)."""
        with self._lock:
            proxies = [s.proxy for s in self.sources if s.proxy is not None]
        running = [p for p in proxies if p.running()]
        deadline = time.monotonic() + min(timeout, SETTLE_TIMEOUT)
        for proxy in running:
            proxy.settle(max(0.01, deadline - time.monotonic()))
        now = self.offset()
        for proxy in running:
            proxy.mark()
        return now

    def records(self) -> list[tuple[Source, ProxyRequest]]:
        """Every request of every source, complete or not, injected or not, in arrival order
        per source."""
        with self._lock:
            sources = list(self.sources)
        return [(s, rec) for s in sources for rec in s.log.records()]

    def requests(self, start: int = 0, end: int | None = None) -> list[Request]:
        """The requests that reached the API server and completed in ``[start, end)``, in
        completion order."""
        out: list[tuple[int, Request]] = []
        for src, rec in self.records():
            if not rec.forwarded or not rec.complete_at:
                continue
            at = _micros(rec.complete_at)
            if at >= start and (end is None or at < end):
                out.append((at, src.request(rec)))
        out.sort(key=lambda pair: pair[0])
        return [r for _, r in out]

    def unreached(self, namespaces: Iterable[str]) -> list[Request]:
        """The requests in ``namespaces`` the API server never received (answered by the
        proxy: scripted errors, dropped during a scripted crash, 502 without an upstream; not
        forwarded: a body its client never finished sending)."""
        wanted = set(namespaces)
        return [
            src.request(rec)
            for src, rec in self.records()
            if not rec.forwarded and rec.namespace in wanted
        ]


#: The code a stopping kube-apiserver answers a new watch with while its open watches drain
#: (``--shutdown-watch-termination-grace-period``); its audit log may not have that request.
SHUTTING_DOWN = 503


def unlogged_by_a_stopping_server(rec: ProxyRequest, audit_ids: set[str]) -> bool:
    """Whether ``rec`` (a proxy's record) is a watch that a stopping API server ended at its
    stop, or refused with 503 while its open watches drained, and that its audit log
    (``audit_ids``) does not have: counted as unlogged, not as a difference."""
    return (
        rec.verb == "watch"
        and rec.audit_id not in audit_ids
        and (rec.upstream_ended or rec.code == SHUTTING_DOWN)
    )


def compare_accountings(
    audit: AuditLog,
    audit_start: int,
    proxies: ProxyAccounting,
    user: str,
    namespaces: Iterable[str],
    admin: Any,
    timeout: float = AGREE_TIMEOUT,
) -> dict[str, Any]:
    """Compare, request for request, ``user``'s requests in ``namespaces`` as the audit log
    has them (from byte offset ``audit_start``; the harness's own requests as that user left
    out) with those the proxies forwarded, complete or not. Call it with the operators
    stopped; it re-reads both until they agree or ``timeout`` s pass (``admin``: the client
    that syncs the audit log). Returns ``{"compared": requests matched, "audit_only": [...],
    "proxy_only": [...], "differing": [...], "unreached": requests the API server never
    received (not compared), "harness": the harness's own requests as that user (not
    compared), "unlogged": watches the API server itself ended or refused with 503 while it
    stopped (a check that restarts it) and never logged}``, each list at most 20 lines."""
    wanted = set(namespaces)
    deadline = time.monotonic() + timeout
    while True:
        end = audit.sync(admin)
        audited = [
            r for r in select(audit.requests(audit_start, end), user=user) if r.namespace in wanted
        ]
        ours = [r for r in audited if not r.by_harness]
        ids = {r.audit_id for r in ours}
        proxied, unlogged = [], 0
        for src, rec in proxies.records():
            if not rec.forwarded or rec.namespace not in wanted or src.user != user:
                continue
            if unlogged_by_a_stopping_server(rec, ids):
                unlogged += 1
                continue
            proxied.append(src.request(rec))
        result = compare(ours, proxied)
        if result.equal or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    diffs = result.differences
    return {
        "compared": result.matched,
        "audit_only": [d for d in diffs if d.startswith("only in the audit log")][:20],
        "proxy_only": [d for d in diffs if d.startswith("only in the proxy's log")][:20],
        "differing": [d for d in diffs if not d.startswith("only in the")][:20],
        "unreached": len(proxies.unreached(wanted)),
        "harness": len(audited) - len(ours),
        "unlogged": unlogged,
    }
