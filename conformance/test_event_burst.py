"""events-recorded[burst]: client-go's recorder in the small, seen through the API server: a
repeat of a deleted Event creates it again with its count and firstTimestamp, and one
object's Events stop at the spam filter's burst.

Where the promises come from (CONTRACT.md, "Events", "Repeats and the spam filter"):
client-go's recorder (tools/record v0.34). ``recordEvent`` patches a repeat and creates the
Event again, under the same name and with the count so far, when the patch is answered 404
(the Event was deleted, or expired after the API server's event TTL). The correlator's
``EventSourceObjectSpamFilter`` keeps a token bucket per source, involvedObject and type:
25 tokens, one more every 300 s, one taken by every occurrence, a repeat too; an occurrence
that finds the bucket empty is not written. Tool mutation testing found the gaps this case
closes (harness/mutants/survivors.toml, stop 40): a Python spam filter that refilled 300
tokens a second, or never dropped, or drained as time passed, and a repeat of a deleted
Event that was dropped or re-created without its firstTimestamp, all passed every check.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    EVENT_TIMEOUT,
    create_modelservice,
    describe_event,
    operator_events,
    premise,
    wait_converged,
    wait_events_settled,
    wait_gone,
    wait_observed,
)
from harness.accounting import Accounting
from harness.audit import select
from harness.faults.apiproxy.records import seconds
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence

#: client-go's EventSourceObjectSpamFilter (tools/record events_cache.go, v0.34): a burst of
#: this many Events per source, involvedObject and type ...
SPAM_BURST = 25
#: ... then one more every this many seconds.
SPAM_REFILL_S = 300.0
#: Spec changes after the Event is deleted: with the two creates and the two updates before,
#: 28 Normal occurrences about one ModelService, three more than the burst.
MORE_UPDATES = 24


def _updated(admin: Kube, namespace: str, uid: str) -> list[dict[str, Any]]:
    return [
        e for e in operator_events(admin, namespace, uid) if e.get("reason") == "UpdatedDeployment"
    ]


@pytest.mark.modeldock_check("events-recorded", case="burst")
def test_event_burst(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """A repeat of a deleted Event creates it again with the count so far and its first
    timestamp, and one ModelService's Normal Events stop at 25 occurrences within 300 s.

    A ModelService is created (CreatedDeployment, CreatedService) and scaled
    (UpdatedDeployment, count 1). Admin deletes that Event and scales again: the operator's
    recorder patches the Event, is answered 404 and creates it again, under the same name
    with count 2 and the deleted Event's firstTimestamp. Then the ModelService is scaled 24
    more times, each change observed before the next: 28 Normal occurrences about one
    object, three more than client-go's spam filter lets through in a burst (25 per source,
    involvedObject and type, then one per 300 s). Once the Events have settled, the counts of
    the ModelService's Normal Events must add up to exactly 25: fewer, and the filter drops
    what it should let through; more, and it does not filter. Among the operator's requests
    (request accounting), its Event writes are four creates (one per new Event) and patches,
    only one of them answered 404 (the deleted Event's repeat): a new Event is not patched
    first. Last, the ModelService is deleted and created again under its name: the new one
    (another uid) must get its own CreatedDeployment and CreatedService Events, neither
    counted into the old one's nor dropped with its spent burst.
    """
    op = operators.start()
    user = op.impl.user
    start = audit.sync(admin)
    ms = create_modelservice(admin, namespace, "burst")
    uid = ms["metadata"]["uid"]
    set_up(
        lambda: wait_converged(admin, namespace, "burst"),
        "the first convergence, before the experiment",
    )
    generation = int(ms["metadata"].get("generation") or 1)

    def scale(replicas: int) -> None:
        nonlocal generation
        admin.patch("modelservices", namespace, "burst", {"spec": {"replicas": replicas}})
        generation += 1
        wait_observed(admin, namespace, "burst", generation)

    scale(2)
    first = wait_for(
        lambda: _updated(admin, namespace, uid),
        lambda found: len(found) == 1,
        EVENT_TIMEOUT,
        "the UpdatedDeployment Event of the first scale",
    )[0]
    evidence.record("deleted_event", describe_event(first))
    admin.delete("events", namespace, first["metadata"]["name"])
    scale(3)
    again = wait_for(
        lambda: _updated(admin, namespace, uid),
        lambda found: len(found) == 1,
        EVENT_TIMEOUT,
        "the UpdatedDeployment Event created again by the repeat after its Event was deleted "
        "(client-go's recorder creates it when its patch is answered 404)",
    )[0]
    evidence.record("recreated_event", describe_event(again))
    problems: list[str] = []
    wanted = (first["metadata"]["name"], 2, first.get("firstTimestamp"))
    got = (again["metadata"]["name"], int(again.get("count") or 1), again.get("firstTimestamp"))
    if got != wanted:
        problems.append(
            f"the repeat of a deleted Event must create it again under its name, with the "
            f"count so far and its firstTimestamp (name, count, firstTimestamp) {wanted}; "
            f"got {got}"
        )

    for replicas in range(4, 4 + MORE_UPDATES):
        scale(replicas)
    wait_events_settled(admin, namespace)
    end = audit.sync(admin)

    # Every successful create or update of a child records one Normal Event (CONTRACT.md,
    # "Events"): the occurrences, as the API server saw the writes (burst's children are the
    # only ones in the namespace).
    writes = [
        r
        for r in select(
            audit.requests(start, end),
            user=user,
            namespace=namespace,
            writes_only=True,
            ok_only=True,
            resources=CHILDREN,
        )
        if r.verb in ("create", "update")
    ]
    times = [seconds(r.time) for r in writes]
    span = max(times) - min(times) if times else 0.0
    evidence.premise("normal_occurrences", {"writes": len(writes), "span_s": round(span, 2)})
    premise(
        len(writes) >= SPAM_BURST + 3,
        f"the operator's creates and updates of the children, each a Normal Event, must be "
        f"at least {SPAM_BURST + 3} to overflow the burst; its requests hold {len(writes)}",
    )
    premise(
        span < SPAM_REFILL_S,
        f"the writes must fall within {SPAM_REFILL_S:.0f} s (one refill of the spam filter); "
        f"they took {span:.0f} s",
    )

    normal = [e for e in operator_events(admin, namespace, uid) if e.get("type") == "Normal"]
    evidence.record("events", [describe_event(e) for e in normal])
    counted = sum(int(e.get("count") or 1) for e in normal)
    evidence.record("normal_counted", counted)
    if counted != SPAM_BURST:
        problems.append(
            f"{len(writes)} Normal occurrences about one ModelService within {span:.0f} s must "
            f"be counted {SPAM_BURST} times in its Events (client-go's spam filter: a burst "
            f"of {SPAM_BURST} per source, involvedObject and type, then one per "
            f"{SPAM_REFILL_S:.0f} s); counted {counted}: "
            f"{[describe_event(e) for e in normal]}"
        )

    # Four Events were new (CreatedDeployment, CreatedService, UpdatedDeployment and the one
    # created again): one create each. A repeat is a patch, and only the deleted Event's is
    # answered 404 (client-go's recordEvent patches only an Event whose count is above 1).
    event_writes = [
        (r.verb, r.code)
        for r in select(audit.requests(start, end), user=user, namespace=namespace)
        if r.resource == "events" and r.verb in ("create", "patch")
    ]
    evidence.record("event_writes", event_writes)
    creates = sum(1 for verb, _ in event_writes if verb == "create")
    missed = sum(1 for verb, code in event_writes if (verb, code) == ("patch", 404))
    if (creates, missed) != (4, 1):
        problems.append(
            f"want 4 Event creates (one per new Event) and one patch answered 404 (the "
            f"deleted Event's repeat; a new Event is created, not patched first); got "
            f"{creates} creates and {missed} patches answered 404"
        )

    # A new ModelService under the same name is another object (another uid): its Events are
    # its own, counted and filtered apart from the old one's, which outlive it.
    admin.delete("modelservices", namespace, "burst")
    wait_gone(admin, "modelservices", namespace, "burst", what="ModelService burst to be deleted")
    again_ms = create_modelservice(admin, namespace, "burst")
    new_uid = again_ms["metadata"]["uid"]
    set_up(
        lambda: wait_converged(admin, namespace, "burst"),
        "the convergence of a new ModelService under the same name",
    )
    wanted_new = {"CreatedDeployment", "CreatedService"}
    try:
        wait_for(
            lambda: operator_events(admin, namespace, new_uid),
            lambda found: wanted_new <= {e.get("reason") for e in found},
            EVENT_TIMEOUT,
            "the CreatedDeployment and CreatedService Events about the new ModelService burst "
            "(its own uid)",
        )
    except AssertionError as err:
        problems.append(
            f"a ModelService created again under the name of one whose Events filled the "
            f"spam filter's burst must get Events of its own (client-go keys Events and the "
            f"filter by the involvedObject's uid): {err}"
        )
    created_new = [
        describe_event(e)
        for e in operator_events(admin, namespace, new_uid)
        if e.get("reason") in wanted_new
    ]
    evidence.record("events_of_the_new_one", created_new)
    assert not problems, "Events differ from the contract:\n  " + "\n  ".join(problems)
