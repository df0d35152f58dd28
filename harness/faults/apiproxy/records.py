"""Read the API proxy's request log (``requests.jsonl``, written by ``reclog.go``) into the same
``harness.audit.Request`` records the audit log gives, and compare the two accountings.

The audit log exists only on a control plane the harness builds; the proxy's log exists on any
cluster the operator reaches through the proxy. Each forwarded request carries the API
server's ``Audit-Id`` response header, so on envtest the two can be matched request for
request (``compare``). Requests the proxy answered itself (``injected``: a scripted error, or
dropped while a scripted crash froze the connection) and those it never forwarded (502 with no
upstream; a body its client never finished sending) never reached the API server: they have
no audit id and ``requests()`` leaves them out unless asked (``ProxyRequest.forwarded``).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.audit import Request


def _stamp(value: str) -> str:
    """Go's RFC 3339 (nanoseconds, trailing zeros trimmed) as the audit log writes times:
    microseconds, ``Z``."""
    if not value:
        return ""
    head, _, frac = value.rstrip("Z").partition(".")
    frac = (frac + "000000")[:6]
    return f"{head}.{frac}Z"


def seconds(stamp: str) -> float:
    """A ``_stamp`` time as epoch seconds."""
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


@dataclass(frozen=True)
class WatchEvent:
    """One watch event the proxy delivered to the client."""

    request_id: int
    time: str
    type: str
    kind: str
    namespace: str
    name: str
    resource_version: str
    #: earlier events of the same object merged into this one (``coalesce_events``)
    coalesced: int = 0
    #: for an event an event rule delayed (``delay_events``, ``coalesce_events``): milliseconds
    #: from when the proxy read it (the earliest event merged into it) to its delivery; 0.0
    #: for an event no rule touched
    delayed_ms: float = 0.0


#: Reasons the proxy logs for a request it never forwarded although it did not script it: its
#: upstream unreachable (answered 502), or its client gone before the body was complete
#: (``reasonClientBodyIncomplete`` in proxy.go; the client got no answer).
CLIENT_BODY_INCOMPLETE = "ClientBodyIncomplete"
NOT_FORWARDED = ("ProxyUpstreamError", CLIENT_BODY_INCOMPLETE)


@dataclass(frozen=True)
class ProxyRequest:
    """One request as the proxy saw it."""

    id: int
    start: str
    time: str
    verb: str
    group: str
    resource: str
    subresource: str
    namespace: str
    name: str
    code: int
    audit_id: str
    proto: str = ""
    user_agent: str = ""
    path: str = ""
    bytes_in: int = -1
    #: when the response ended ("" while open: a watch)
    end: str = ""
    bytes_out: int = 0
    #: answered by the proxy itself, never forwarded (a scripted error; ``Frozen``: dropped
    #: during a scripted crash)
    injected: bool = False
    #: "withheld" or "delivered": the write a scripted crash happened at
    crash: str = ""
    reason: str = ""
    message: str = ""
    events: tuple[WatchEvent, ...] = field(default=())
    #: when its "req" line was written (response headers known) and its "done" line (the
    #: response ended; "" while open), by the log's clock under its lock (``reclog.go``)
    at: str = ""
    end_at: str = ""
    #: a watch whose stream the API server ended (its shutdown, its timeout), not the client
    upstream_ended: bool = False

    @property
    def complete_at(self) -> str:
        """When it counts as complete, as the audit log counts it (an event is written once a
        request completes): a watch when its stream ended ("" while open), any other request
        when its answer was known."""
        return self.end_at if self.verb == "watch" else self.at

    @property
    def forwarded(self) -> bool:
        """Whether the API server received it: not answered by the proxy itself
        (``injected``), not refused for want of an upstream (502 ``ProxyUpstreamError``), and
        not dropped because its client went away before its body was complete
        (``ClientBodyIncomplete``)."""
        return not self.injected and self.reason not in NOT_FORWARDED

    def as_request(self, user: str) -> Request:
        """The ``harness.audit.Request`` of this request, made by ``user`` (the proxy forwards
        as one identity). ``time`` is when it reached the proxy, as the audit log's
        ``requestReceivedTimestamp`` is when it reached the API server. A request that names
        no resource (discovery: ``GET /apis/<group>/<version>``) has group "" here, as the
        audit log has it: the API server records no objectRef for a non-resource request,
        while the proxy's own ``group`` keeps the path's group (waits-for-crd counts by it)."""
        return Request(
            user=user,
            verb=self.verb,
            resource=self.resource,
            subresource=self.subresource,
            namespace=self.namespace,
            name=self.name,
            code=self.code,
            time=self.start,
            audit_id=self.audit_id,
            group=self.group if self.resource else "",
            reason=self.reason,
            message=self.message,
            user_agent=self.user_agent,
        )


class RequestLog:
    """Reader over one proxy's request log."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def _lines(self) -> Iterable[dict[str, Any]]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        for line in data.splitlines():
            try:
                yield json.loads(line)
            except ValueError:
                continue  # being written

    def records(self) -> list[ProxyRequest]:
        """Every request, in arrival order, with its end and its delivered watch events."""
        reqs: dict[int, dict[str, Any]] = {}
        ends: dict[int, dict[str, Any]] = {}
        events: dict[int, list[WatchEvent]] = {}
        for ln in self._lines():
            kind, rid = ln.get("t"), int(ln.get("id", 0))
            if kind == "req":
                reqs[rid] = ln
            elif kind == "done":
                ends[rid] = ln
            elif kind == "event":
                events.setdefault(rid, []).append(
                    WatchEvent(
                        request_id=rid,
                        time=_stamp(ln.get("time", "")),
                        type=ln.get("type", ""),
                        kind=ln.get("kind", ""),
                        namespace=ln.get("namespace", ""),
                        name=ln.get("name", ""),
                        resource_version=ln.get("rv", ""),
                        coalesced=int(ln.get("coalesced", 0)),
                        delayed_ms=float(ln.get("delayed_ms", 0.0)),
                    )
                )
        out = []
        for rid in sorted(reqs):
            ln, end = reqs[rid], ends.get(rid, {})
            out.append(
                ProxyRequest(
                    id=rid,
                    start=_stamp(ln.get("start", "")),
                    time=_stamp(ln.get("time", "")),
                    verb=ln.get("verb", ""),
                    group=ln.get("group", ""),
                    resource=ln.get("resource", ""),
                    subresource=ln.get("subresource", ""),
                    namespace=ln.get("namespace", ""),
                    name=ln.get("name", ""),
                    code=int(ln.get("code", 0)),
                    audit_id=ln.get("audit_id", ""),
                    proto=ln.get("proto", ""),
                    user_agent=ln.get("user_agent", ""),
                    path=ln.get("path", ""),
                    bytes_in=int(ln.get("bytes_in", -1)),
                    end=_stamp(end.get("end", "")),
                    bytes_out=int(end.get("bytes_out", 0)),
                    injected=bool(ln.get("injected", False)),
                    crash=ln.get("crash", ""),
                    reason=ln.get("reason", ""),
                    message=ln.get("message", ""),
                    events=tuple(events.get(rid, ())),
                    at=_stamp(ln.get("at", "")),
                    end_at=_stamp(end.get("at", "")),
                    upstream_ended=bool(end.get("upstream_ended", False)),
                )
            )
        return out

    def requests(
        self,
        user: str,
        *,
        namespace: str | None = None,
        include_injected: bool = False,
        completed_only: bool = False,
    ) -> list[Request]:
        """The requests as ``harness.audit.Request`` records of ``user``, in arrival order:
        those that reached the API server (``ProxyRequest.forwarded``; ``include_injected``:
        all), in ``namespace`` if
        given; ``completed_only``: only those whose response ended (the audit log writes a
        watch once it ends)."""
        out = []
        for r in self.records():
            if not r.forwarded and not include_injected:
                continue
            if namespace is not None and r.namespace != namespace:
                continue
            if completed_only and not r.end:
                continue
            out.append(r.as_request(user))
        return out


@dataclass
class Comparison:
    """The outcome of ``compare``: requests matched by audit id, and every difference."""

    matched: int = 0
    #: "<audit id>: <field> audit=<a> proxy=<p>", "only in the audit log: ...", "only in the
    #: proxy's log: ..."
    differences: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differences


#: The fields both accountings must agree on, request for request.
#: ``reason`` and ``message`` are a refused request's Status (the proxy reads it from the
#: answer, ``status.go``; the audit log has it in ``responseStatus``), empty for a success.
COMPARED_FIELDS = (
    "verb",
    "group",
    "resource",
    "subresource",
    "namespace",
    "name",
    "code",
    "reason",
    "message",
)


def compare(audited: Iterable[Request], proxied: Iterable[Request]) -> Comparison:
    """Match the audit log's requests with the proxy's by audit id and compare
    ``COMPARED_FIELDS``; every request on one side only is a difference."""
    by_id = {r.audit_id: r for r in audited}
    result = Comparison()
    seen = set()
    for p in proxied:
        a = by_id.get(p.audit_id)
        if a is None:
            result.differences.append(
                f"only in the proxy's log: {p.describe()} ({p.audit_id or 'no audit id'})"
            )
            continue
        seen.add(p.audit_id)
        diffs = [
            f"{p.audit_id}: {f} audit={getattr(a, f)!r} proxy={getattr(p, f)!r}"
            for f in COMPARED_FIELDS
            if getattr(a, f) != getattr(p, f)
        ]
        result.differences += diffs
        if not diffs:
            result.matched += 1
    result.differences += [
        f"only in the audit log: {a.describe()} ({a.audit_id})"
        for aid, a in by_id.items()
        if aid not in seen
    ]
    return result
