"""events-recorded[refused-event]: an Event write the API server refuses is dropped, not
retried, and still counted: the next occurrence of the same Event, once writes are admitted,
is created with the count so far. events-recorded[refused-patch]: a repeat's PATCH the API
server refuses is dropped too, never turned into a create.

Where the promise comes from (CONTRACT.md, "Events", "A refused Event"): client-go's
recorder (tools/record v0.34) notes each occurrence in its correlator before it writes it
(``eventObserve`` adds it to its cache), and a write answered with a Status error other than
AlreadyExists is logged "will not retry" and dropped; the cache keeps the occurrence. The next
occurrence is then a PATCH of an Event that was never stored: the API server answers 404 and
the recorder creates it with ``count`` 2 (``recordEvent``). Tool mutation testing found the gap
this case closes (harness/mutants/survivors.toml): a Python correlator that noted a refused
occurrence with count 0 made a new Event of count 1, and no check ever refused an Event.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    EVENT_TIMEOUT,
    admits_all_but,
    create_modelservice,
    describe_event,
    operator_events,
    operator_writes,
    refusal,
    wait_converged,
    wait_events_settled,
    wait_refused,
)
from harness.accounting import Accounting
from harness.kube import PROBE_LABEL, Kube, dry_run_create, dry_run_update, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence

#: The policy's message, in the refused answers (and the operator's log lines).
POLICY_MESSAGE = "modeldock refuses the operator's Event writes until this policy is gone"
#: The Events of the first convergence, both refused: each a new Event (a create).
REFUSED = (
    ("CreatedDeployment", 'Created Deployment "web"'),
    ("CreatedService", 'Created Service "web"'),
)


def _probe_event(namespace: str) -> dict[str, Any]:
    """An Event about a ConfigMap ``probe`` of ``namespace``, named ``probe.1`` and labelled
    PROBE_LABEL: what the harness's dry runs write where the policies refuse the operator."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "probe.1", "labels": {PROBE_LABEL: "1"}},
        "involvedObject": {"kind": "ConfigMap", "namespace": namespace, "name": "probe"},
        "reason": "Probe",
        "message": "probe",
        "type": "Normal",
        "source": {"component": "modeldock-harness"},
    }


def _probe_code(admin: Kube, namespace: str) -> int:
    """The answer to an admin dry-run create of the probe Event (``_probe_event``): 403 while
    the policy is applied, 201 once it is not."""
    return dry_run_create(admin, "events", namespace, _probe_event(namespace))


def _ours(admin: Kube, namespace: str, uid: str, reason: str) -> list[dict[str, Any]]:
    return [e for e in operator_events(admin, namespace, uid) if e.get("reason") == reason]


@pytest.mark.modeldock_check("events-recorded", case="refused-event")
def test_refused_event_is_counted(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """Events the API server refuses are dropped and counted: the operator converges while its
    Event writes are refused, the refused Events never appear once the refusal is lifted, and
    the next occurrence of one of them is created with count 2.

    An admission policy refuses (403) every Event create and patch of the operator; a
    ModelService is created and must converge (an Event write never fails or delays a
    reconcile), and its two Events, CreatedDeployment and CreatedService, are refused. The
    policy is removed, then admin deletes the Deployment: the operator creates it again and
    records the same CreatedDeployment. Once the namespace's Events have settled there must be
    one CreatedDeployment Event with count 2 (the refused occurrence counted, as client-go's
    correlator counts it) and a firstTimestamp (the refused occurrence's), and no
    CreatedService Event: a refused write is not retried.
    """
    op = operators.start()
    user = op.impl.user
    policy = f"modeldock-refuse-events-{namespace}"
    start = audit.sync(admin)
    with refusal(
        admin,
        policy,
        namespace,
        ("CREATE", "UPDATE"),
        admits_all_but(user),
        POLICY_MESSAGE,
        lambda: _probe_code(admin, namespace),
        201,
        group="",
        resource="events",
    ):
        web = create_modelservice(admin, namespace, "web")
        set_up(
            lambda: wait_converged(admin, namespace, "web"),
            "the first convergence, its Events refused (an Event never delays a reconcile)",
        )
        refused = wait_refused(
            lambda: operator_writes(audit, admin, start, user, namespace, ("events",)),
            f"{len(REFUSED)} refused Event creates (CreatedDeployment, CreatedService)",
            len(REFUSED),
        )
        evidence.record("refused_event_writes", refused)
    uid = web["metadata"]["uid"]
    admin.delete("deployments", namespace, "web")
    wait_for(
        lambda: _ours(admin, namespace, uid, "CreatedDeployment"),
        lambda found: bool(found),
        EVENT_TIMEOUT,
        "the CreatedDeployment Event of the Deployment created again, once Events are admitted",
    )
    wait_events_settled(admin, namespace)
    events = operator_events(admin, namespace, uid)
    evidence.record("events", [describe_event(e) for e in events])
    evidence.record(
        "event_writes",
        [r.describe() for r in operator_writes(audit, admin, start, user, namespace, ("events",))],
    )

    problems: list[str] = []
    created = _ours(admin, namespace, uid, "CreatedDeployment")
    counts = [int(e.get("count") or 1) for e in created]
    if counts != [2]:
        problems.append(
            f"want one CreatedDeployment Event with count 2 (the refused occurrence and the "
            f"one after the lift; client-go's correlator counts an occurrence before it writes "
            f"it, and creates the Event after its patch is answered 404); got "
            f"{[describe_event(e) for e in created]}"
        )
    unstamped = [describe_event(e) for e in created if not e.get("firstTimestamp")]
    if unstamped:
        problems.append(
            f"the CreatedDeployment created after its patch was answered 404 must carry the "
            f"firstTimestamp of the refused occurrence, as client-go's correlator keeps it; "
            f"it has none: {unstamped}"
        )
    service = _ours(admin, namespace, uid, "CreatedService")
    if service:
        problems.append(
            f"the refused CreatedService was written after the refusal was lifted: a refused "
            f"Event is dropped, not retried; got {[describe_event(e) for e in service]}"
        )
    assert not problems, "Events differ from the contract:\n  " + "\n  ".join(problems)


#: The policy's message for refused-patch, in the refused answer.
PATCH_POLICY_MESSAGE = "modeldock refuses the operator's Event patches until this policy is gone"


@pytest.mark.modeldock_check("events-recorded", case="refused-patch")
def test_refused_patch_is_not_a_create(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """A repeat whose PATCH the API server refuses is dropped: no create follows it, and the
    occurrence is still counted.

    client-go's recorder (``recordEvent``, tools/record v0.34) creates an Event after a failed
    PATCH only when the answer was 404 (the Event is gone: deleted, or expired): any other
    refusal is logged "will not retry" and dropped. A recorder that creates after every failed
    patch sends a POST the API server answers 409 (the Event exists under that name), or a
    duplicate where the refusal was about the patch. Here the ModelService converges and its
    CreatedDeployment Event is written; an admission policy then refuses the operator's Event
    updates (a PATCH is an UPDATE to admission), and admin deletes the Deployment: the
    operator creates it again and its CreatedDeployment repeat is a PATCH, refused. The policy
    is lifted and the Deployment deleted once more: that repeat's PATCH is admitted. The
    operator's Event writes since the policy came must be PATCHes only (no POST), and the
    Event's count 3 (the refused occurrence counted, as client-go's correlator counts it).
    """
    op = operators.start()
    user = op.impl.user
    web = create_modelservice(admin, namespace, "web")
    uid = web["metadata"]["uid"]
    set_up(lambda: wait_converged(admin, namespace, "web"), "the first convergence")
    set_up(
        lambda: wait_for(
            lambda: _ours(admin, namespace, uid, "CreatedDeployment"),
            lambda found: bool(found),
            EVENT_TIMEOUT,
            "the first CreatedDeployment Event",
        ),
        "the first CreatedDeployment Event, before any refusal",
    )
    # CreatedService's Event is written after CreatedDeployment's: every Event of the first
    # convergence is in before the writes are counted
    wait_events_settled(admin, namespace)
    admin.create("events", namespace, _probe_event(namespace))  # what the probe updates
    policy = f"modeldock-refuse-event-patches-{namespace}"
    start = audit.sync(admin)
    with refusal(
        admin,
        policy,
        namespace,
        ("UPDATE",),
        admits_all_but(user),
        PATCH_POLICY_MESSAGE,
        lambda: dry_run_update(admin, "events", namespace, "probe.1"),
        200,
        group="",
        resource="events",
    ):
        admin.delete("deployments", namespace, "web")
        refused = wait_refused(
            lambda: operator_writes(audit, admin, start, user, namespace, ("events",)),
            "the CreatedDeployment repeat's PATCH, refused",
            1,
        )
        evidence.record("refused_event_writes", refused)
    set_up(lambda: wait_converged(admin, namespace, "web"), "the Deployment created again")
    admin.delete("deployments", namespace, "web")
    try:
        wait_for(
            lambda: _ours(admin, namespace, uid, "CreatedDeployment"),
            lambda found: [int(e.get("count") or 1) for e in found] == [3],
            EVENT_TIMEOUT,
            "the CreatedDeployment Event counted 3 (the first, the refused repeat, this one)",
        )
    except AssertionError:
        pass  # the count is judged below, with the writes that explain it
    wait_events_settled(admin, namespace)
    writes = operator_writes(audit, admin, start, user, namespace, ("events",))
    evidence.record("event_writes", [r.describe() for r in writes])
    created = _ours(admin, namespace, uid, "CreatedDeployment")
    evidence.record("events", [describe_event(e) for e in operator_events(admin, namespace, uid)])
    problems: list[str] = []
    posts = [r.describe() for r in writes if r.verb == "create"]
    if posts:
        problems.append(
            f"after a refused PATCH the operator created the Event: {posts}; client-go's "
            "recorder creates after a failed patch only when the answer was 404 (the Event is "
            "gone), and drops a refused one"
        )
    counts = [int(e.get("count") or 1) for e in created]
    if counts != [3]:
        problems.append(
            f"want one CreatedDeployment Event with count 3 (its first occurrence, the repeat "
            f"whose patch was refused, counted all the same, and the one after the lift); got "
            f"{[describe_event(e) for e in created]}"
        )
    assert not problems, "Events differ from the contract:\n  " + "\n  ".join(problems)
