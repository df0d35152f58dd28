"""How the implementations' writes in one check compare, and why the API server refused a
request: the comparison report's "API writes" column and each check's refusal notes. Reads
only the model (``Call``, ``Check``, ``align``); knows nothing of Markdown or HTML."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.report.model import Call, Check, Result, align


def refusal_reason(call: Call) -> str:
    """One line saying why a request like ``call`` is refused, from its code and verb (the API
    conventions' status reasons); "" for a request that was not refused."""
    if not call.refused:
        return ""
    code, verb = call.code, call.verb
    if code == 409 and verb == "create":
        return (
            "AlreadyExists: the object was created meanwhile (by an earlier reconcile whose "
            "answer the cache had not yet delivered, or by another writer)"
        )
    if code == 409:
        return (
            "Conflict: the write carried an older resourceVersion than the stored object "
            "(the reconcile read a cache that had not yet caught up); the operator reads "
            "again and recomputes instead of retrying the old object"
        )
    reasons = {
        400: "BadRequest: the request itself was malformed",
        401: "Unauthorized: the credentials were not accepted",
        403: (
            "Forbidden: the role lacks the right, an admission policy refused it, or the API "
            "server was starting and its authorizer was not ready"
        ),
        404: "NotFound: the object was deleted before the write reached it",
        410: "Gone: a watch asked for a resourceVersion the API server no longer keeps",
        422: "Invalid: the API server's validation refused the object",
        429: "TooManyRequests: throttled (the API proxy injects it in fault checks)",
        500: "InternalError: the API server (or the API proxy, injecting it) failed",
        503: "ServiceUnavailable: the API server restarting, or injected by the API proxy",
        504: "Timeout: the API server did not answer in time",
    }
    if code in reasons:
        return reasons[code]
    if code == 0:
        return "no answer: the connection was cut (a fault the check injects)"
    return f"HTTP {code}"


@dataclass(frozen=True)
class WriteComparison:
    """How the implementations' successful writes in one check compare, object writes and
    Event writes apart (an Event's position among the writes depends on when the recorder's
    goroutine or thread sends it, and its name is generated).

    ``objects``: per implementation, its successful writes to objects other than Events, in
    order (normalised labels); ``events``: the same for Events. ``objects_differ`` and
    ``events_differ`` count the rows of ``align`` that the implementations disagree on. Refused
    writes (409s and the like) are left out: how many there are depends on the timing of the
    caches, which is what each check's own oracle judges."""

    objects: dict[str, list[str]]
    events: dict[str, list[str]]
    objects_differ: int
    events_differ: int

    @property
    def same(self) -> bool:
        """True when both the object writes and the Event writes agree row for row."""
        return self.objects_differ == 0 and self.events_differ == 0

    def summary(self) -> str:
        """One line, the same in the summary table and in the check's section, e.g. ``same 3
        object writes, same order; Events: 2 each`` or ``1 of 4 object writes differ; Events:
        go 2, python 1``."""
        n = max((len(v) for v in self.objects.values()), default=0)
        plural = "s" if n != 1 else ""
        if self.objects_differ == 0:
            head = f"same {n} object write{plural}, same order"
        else:
            head = f"{self.objects_differ} of {n} object write{plural} differ"
        counts = {i: len(v) for i, v in self.events.items()}
        if not any(counts.values()):
            return head
        if len(set(counts.values())) <= 1:
            k = next(iter(counts.values()), 0)
            tail = (
                f"Events: {k} each" if self.events_differ == 0 else f"Events: {k} each, differing"
            )
        else:
            tail = "Events: " + ", ".join(f"{i} {c}" for i, c in counts.items())
        return f"{head}; {tail}"


def refusals(calls: Iterable[Call]) -> list[tuple[str, int, str]]:
    """The refused requests of a timeline grouped by ``verb resource code``, in first-seen
    order: ``[(label, count, reason), ...]`` (``refusal_reason``). Expected 404s (a
    lookup or delete of what is already gone) are not refusals and are left out."""
    groups: dict[str, list[Call]] = {}
    for c in calls:
        if c.refused:
            groups.setdefault(f"{c.verb} {c.target} {c.code}", []).append(c)
    return [(label, len(cs), refusal_reason(cs[0])) for label, cs in groups.items()]


def _differing_rows(seqs: Mapping[str, Sequence[str]]) -> int:
    return sum(
        1
        for row in align(seqs)
        if len({seqs[i][j] if j is not None else None for i, j in row.items()}) > 1
    )


def compare_writes(check: Check, impls: Sequence[str]) -> WriteComparison | None:
    """Compare the successful writes of ``impls`` in ``check`` (a ``WriteComparison``), or
    None when fewer than two of them have a timeline to compare."""
    calls = {i: check.result(i).calls for i in impls}
    calls = {i: c for i, c in calls.items() if c}
    if len(calls) < 2:
        return None
    ok = {i: [c for c in cs if c.is_write and not c.failed] for i, cs in calls.items()}
    objects = {i: [c.normalised_label() for c in cs if not c.is_event] for i, cs in ok.items()}
    events = {i: [c.normalised_label() for c in cs if c.is_event] for i, cs in ok.items()}
    return WriteComparison(
        objects=objects,
        events=events,
        objects_differ=_differing_rows(objects),
        events_differ=_differing_rows(events),
    )


def normalised_writes(result: Result) -> list[str]:
    """``result.write_sequence`` with Event names normalised (``Call.normalised_label``)."""
    calls = result.calls
    if calls:
        return [c.normalised_label() for c in calls if c.is_write]
    return result.write_sequence
