"""When a lane's operator owes a retry, and by when the contract's backoff must have brought
it: what the quiet oracle (``oracles.wait_quiet``, ``oracles.converged``) and the wait of a
step on children (``lanesync.even_step``) allow for a write that failed. Read from the
ModelService's status and the lane's API proxy log, never from the operator."""

from __future__ import annotations

from typing import Any

from harness.audit import WRITE_VERBS
from harness.faults.apiproxy.records import seconds
from harness.generate.lane import Lane, Settings
from harness.generate.world import POLICY_MESSAGE, msvc

#: The operator's children (plural resource names), whose writes the backoff counts.
CHILDREN = ("deployments", "services")


#: The text of an answer the lane's API proxy made up itself (a ``fault``), as the operator
#: reports it in a condition's message (harness/faults/apiproxy/faults.go).
INJECTED_MESSAGE = "modeldock apiproxy: injected"


def owes_retry(lane: Lane, m: dict[str, Any]) -> bool:
    """The operator owes a retry that will change what its status reports: the status
    reports the refusal of the lane's admission policy (its message, ``POLICY_MESSAGE``)
    while that policy is no longer bound, or an answer its API proxy injected
    (``INJECTED_MESSAGE``: a ``fault`` is one answer, never the last word), or the proxy
    answered the operator's last write of the ModelService itself (``own_write_injected``).
    A refused write goes back to the work queue with backoff and is never dropped (CONTRACT.md,
    step 7), so its next attempt writes the current spec and clears the report; until it has,
    the lane is not at rest, however long it has written nothing (refused-then-admitted.yaml;
    and a 429 injected into a create the API server refuses anyway: docs/design.md, Quiet)."""
    messages = [str(c.get("message", "")) for c in (m.get("status") or {}).get("conditions") or []]
    if any(INJECTED_MESSAGE in text for text in messages) or own_write_injected(lane):
        return True
    return not lane.refusing and any(POLICY_MESSAGE in text for text in messages)


#: client-go's default controller rate limiter (CONTRACT.md, step 7): after the n-th failure
#: in a row of one key its retry waits BACKOFF_BASE_S * 2**(n-1) s, at most BACKOFF_MAX_S.
BACKOFF_BASE_S = 0.005
BACKOFF_MAX_S = 1000.0


def retry_due(lane: Lane) -> float:
    """Epoch seconds by which the contract's backoff puts the operator's next attempt after
    its writes that failed in a row, as its API proxy logged them: the last one's time plus
    ``BACKOFF_BASE_S * 2**(n-1)`` (at most ``BACKOFF_MAX_S``) for n of them; 0.0 when its
    last child write succeeded and no ModelService write failed after it, or there was none.
    Counted in attempts: each failed write of a child or of the ModelService (its status, its
    finalizer) is one failed reconcile of the key (every later step is skipped); only a
    child write that succeeded starts the count again (a reconcile that wrote its status and
    then failed on a child did not end well). Two failures of one reconcile count twice: the
    due time comes out later, a looser bound, never a tighter one."""
    failed, last = 0, 0.0
    for r in lane.log.records():
        if r.verb not in WRITE_VERBS or r.resource not in (*CHILDREN, "modelservices"):
            continue
        if 200 <= r.code < 300:
            if r.resource in CHILDREN:
                failed, last = 0, 0.0
        else:
            failed, last = failed + 1, seconds(r.time)
    if not failed:
        return 0.0
    return last + min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2.0 ** (failed - 1))


def own_write_injected(lane: Lane) -> bool:
    """Whether the operator's last write of its ModelService (its status or its finalizer),
    as the lane's API proxy logged it, was answered by the proxy itself (a ``fault``): the
    status cannot name that answer, and the retry is owed all the same. Seen in the nightly
    of stop 45: a 500 injected into a status write after 18 Deployment creates in a row the
    API server refused (422); by the backoff go's retry was due 1000 s later (the cap), and
    the quiet oracle, which allowed for no retry, failed go after 60 s."""
    last = [
        r for r in lane.log.records() if r.resource == "modelservices" and r.verb in WRITE_VERBS
    ]
    return bool(last) and last[-1].injected


def retry_bound(lane: Lane, settings: Settings) -> float | None:
    """While the operator owes a retry (``owes_retry``): the epoch seconds by which it must
    have retried and converged, ``settings.quiet_timeout`` after the contract's backoff puts
    the retry (``retry_due``; a long refusal defers it beyond any fixed bound). None when it
    owes none."""
    m = msvc(lane)
    if m is None or not owes_retry(lane, m):
        return None
    return retry_due(lane) + settings.quiet_timeout
