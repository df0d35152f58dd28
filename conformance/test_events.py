"""events-recorded: what the operator did is visible in ``kubectl describe``, as Events."""

from __future__ import annotations

import math
import re

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.premises import set_up
from conformance.support import (
    APISERVER_SYNC_TIMEOUT,
    CONVERGE_TIMEOUT,
    EVENT_COMPONENT,
    EVENT_REASONS,
    EVENT_TIMEOUT,
    FINALIZER,
    condition,
    create_foreign_deployment,
    create_modelservice,
    describe_event,
    operator_events,
    wait_converged,
    wait_events_settled,
    wait_gone,
    wait_observed,
    wait_unrefused,
)
from harness.accounting import Accounting
from harness.audit import select
from harness.faults.apiproxy.records import seconds
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence

#: How often a repeated Warning must have been counted into its one Event.
REPEATS = 3

#: The first retry delay of a failing key, seconds: client-go's default controller rate
#: limiter starts at 5 ms and doubles per failure of that key (CONTRACT.md, step 7).
BACKOFF_BASE_S = 0.005

#: Attempts allowed beyond the retries the backoff itself admits: the one the operator's own
#: status write (reporting the refusal) brings back at once through its watch, and three more
#: for events the check cannot foresee (measured: both operators make exactly the backoff's
#: count plus one, 10 refused creates over 2.7 s where the bound is 14).
BACKOFF_SLACK = 4


def backoff_bound(span_s: float) -> int:
    """How many attempts of one persistently failing key may fall in ``span_s`` seconds (from
    the first to the last, as the API server received them): retries that wait 5 ms, 10 ms,
    20 ms, ... (BACKOFF_BASE_S doubling) need ``BACKOFF_BASE_S * (2**n - 1)`` seconds for n
    of them, so at most ``log2(span_s / BACKOFF_BASE_S + 1)`` retries, plus the first attempt
    and BACKOFF_SLACK. A minute admits 18; a retry every 100 ms (mutants no-backoff,
    no-backoff-go) makes 600. Measured on the API server's clock, the bound does not move
    with the machine's load: a slow operator only makes fewer attempts."""
    return int(math.log2(max(span_s, 0.0) / BACKOFF_BASE_S + 1)) + 1 + BACKOFF_SLACK


@pytest.mark.modeldock_needs("audit-log")
@pytest.mark.modeldock_check("events-recorded")
def test_events_recorded(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """Every change the operator makes, and every problem it meets, is recorded as an Event on
    the ModelService, the same in every implementation; a repeated problem is one Event whose
    count grows, not a new Event each time.

    Users look at ``kubectl describe`` first: its Events section is where a controller says
    what it did (Created Deployment "web") and what stops it (a foreign Deployment in the
    way, a ResourceQuota that refuses the create). A controller that only logs is silent
    there. But a controller that writes a new Event every time it meets the same problem
    floods etcd and the describe output: client-go's recorder counts a repeat into the
    existing Event (count, lastTimestamp) and rate-limits each object's Events. Here one
    ModelService is created, scaled (its Deployment updated: UpdatedDeployment, once) and
    deleted, a second finds a foreign Deployment under its name,
    and a third cannot create its Deployment because a ResourceQuota allows none; the Events
    are read as admin. Each Event's involvedObject names its ModelService as client-go's
    reference does (kind, apiVersion, namespace, name, uid and the resourceVersion it was
    about), and the Event is called ``<name>.<unix nanoseconds, hex>``. The refused creates
    themselves back off, as every failing key does (5 ms doubling per failure): no more of
    them than ``backoff_bound`` admits over the time they span, so a hot loop of refusals,
    each with its Warning counted, fails.
    """
    start = audit.sync(admin)
    operators.start()
    # A Deployment "clash" another controller (a ConfigMap, here) owns, before the quota.
    create_foreign_deployment(admin, namespace, "clash")
    web = create_modelservice(admin, namespace, "web")
    clash = create_modelservice(admin, namespace, "clash")
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    # A spec change the Deployment follows: an update of a child is a change like a create.
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    wait_observed(admin, namespace, "web", 2)
    wait_for(
        lambda: admin.get("modelservices", namespace, "clash"),
        lambda m: (condition(m, "Ready") or {}).get("reason") == "ChildConflict",
        CONVERGE_TIMEOUT,
        "ModelService clash to report ChildConflict",
    )

    # A namespace quota of zero Deployments: every create of the next one is refused (403).
    # Without kube-controller-manager nobody computes the quota's status, so admin sets it.
    quota = admin.create(
        "resourcequotas",
        namespace,
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "no-deployments"},
            "spec": {"hard": {"count/deployments.apps": "0"}},
        },
    )
    quota["status"] = {
        "hard": {"count/deployments.apps": "0"},
        "used": {"count/deployments.apps": "0"},
    }
    admin.update("resourcequotas", quota, subresource="status")
    # The API server's quota informer sees the status within moments.
    answers: list[int] = []

    def dry_run_create() -> int:
        answers.append(_dry_run_create_status(admin, namespace))
        return answers[-1]

    try:
        wait_for(
            dry_run_create,
            lambda code: code == 403,
            APISERVER_SYNC_TIMEOUT,
            "with the quota in force, a dry-run create of a Deployment to be refused (403)",
            premise=True,
        )
    finally:
        evidence.premise("quota_refuses_deployment_create", answers[-1] if answers else None)
    blocked = create_modelservice(admin, namespace, "blocked")

    admin.delete("modelservices", namespace, "web")
    wait_gone(admin, "modelservices", namespace, "web", what="ModelService web to be deleted")

    uids = {
        name: m["metadata"]["uid"]
        for name, m in (("web", web), ("clash", clash), ("blocked", blocked))
    }
    want_web = [
        ("Normal", "CreatedDeployment", 'Created Deployment "web"'),
        ("Normal", "CreatedService", 'Created Service "web"'),
        ("Normal", "UpdatedDeployment", 'Updated Deployment "web"'),
        ("Normal", "DeletedDeployment", 'Deleted Deployment "web"'),
        ("Normal", "DeletedService", 'Deleted Service "web"'),
        ("Normal", "RemovedFinalizer", f'Removed finalizer "{FINALIZER}"'),
    ]
    conflict = (
        "Warning",
        "ChildConflict",
        'Deployment "clash" exists and is not controlled by this ModelService',
    )
    failed_prefix = 'Failed to create Deployment "blocked": '

    def seen_so_far() -> dict[str, list[tuple[str, str, str, int]]]:
        return {
            name: [
                (
                    e.get("type", ""),
                    e.get("reason", ""),
                    e.get("message", ""),
                    int(e.get("count") or 1),
                )
                for e in operator_events(admin, namespace, uid)
            ]
            for name, uid in uids.items()
        }

    def occurrences(events: list[tuple[str, str, str, int]], reason: str) -> int:
        """How often an Event of this reason was recorded: its counts, over all its objects."""
        return sum(count for _, r, _, count in events if r == reason)

    def all_there(found: dict[str, list[tuple[str, str, str, int]]]) -> bool:
        have = {(t, r, m) for t, r, m, _ in found["web"]}
        return (
            set(want_web) <= have
            and occurrences(found["clash"], "ChildConflict") >= REPEATS - 1
            and occurrences(found["blocked"], "FailedCreate") >= REPEATS
        )

    try:
        # An Event write refused (403: the Role lacks create or patch on events) is dropped by
        # the recorder and never retried: fail at the first one rather than wait out the bound.
        wait_unrefused(
            seen_so_far,
            all_there,
            EVENT_TIMEOUT,
            "the Events of web's create and delete, clash's repeated ChildConflict "
            "and blocked's repeated FailedCreate (type, reason, message, count)",
            audit=audit,
            start=start,
            user=impl.user,
            namespace=namespace,
            resources=("events",),
        )
    finally:
        seen = wait_events_settled(admin, namespace)
        evidence.record(
            "events",
            {
                name: [describe_event(e) for e in operator_events(admin, namespace, uid)]
                for name, uid in uids.items()
            },
        )
    end = audit.sync(admin)

    problems: list[str] = []
    ours = operator_events(admin, namespace)
    evidence.record("event_objects", len(ours))
    if not ours:
        problems.append(
            f"no Event reported by {EVENT_COMPONENT!r} in the namespace; Events "
            f"seen: {[describe_event(e) for e in seen]}"
        )
    # Each Event: about a ModelService of this check, a reason of the contract with its type,
    # and the only Event object with that type, reason and message (repeats are counted).
    keys: dict[tuple[str, str, str, str], int] = {}
    names = {uid: name for name, uid in uids.items()}
    for e in ours:
        ref = e.get("involvedObject") or {}
        line = describe_event(e)
        if (
            ref.get("uid") not in uids.values()
            or ref.get("kind") != "ModelService"
            or ref.get("apiVersion") != "modeldock.io/v1alpha1"
            or ref.get("namespace") != namespace
            or ref.get("name") != names.get(ref.get("uid", ""))
            or not ref.get("resourceVersion")
        ):
            problems.append(
                f"{line}: involvedObject must be one of this check's ModelServices "
                f"(kind, apiVersion, namespace, name, uid, and the resourceVersion the "
                f"Event is about): {ref}"
            )
        event_name = (e.get("metadata") or {}).get("name", "")
        if not re.fullmatch(re.escape(str(ref.get("name", ""))) + r"\.[0-9a-f]+", event_name):
            problems.append(
                f"{line}: its name {event_name!r} must be <involvedObject name>.<the time "
                f"it was first recorded, unix nanoseconds in hex>, as client-go names Events"
            )
        if EVENT_REASONS.get(e.get("reason", "")) != e.get("type"):
            problems.append(f"{line}: not an Event of the contract (reason and type)")
        key = (ref.get("uid", ""), e.get("type", ""), e.get("reason", ""), e.get("message", ""))
        keys[key] = keys.get(key, 0) + 1
    for (uid, etype, reason, message), n in keys.items():
        if n > 1:
            problems.append(
                f"{n} Event objects for one repeated Event ({etype} {reason} "
                f"{message!r} about {uid}): a repeat must count into the existing one"
            )

    web_events = operator_events(admin, namespace, uids["web"])
    have_web = {(e.get("type"), e.get("reason"), e.get("message")): e for e in web_events}
    for want in want_web:
        got = have_web.get(want)
        if got is None:
            problems.append(f"missing on web: {want[0]} {want[1]} {want[2]!r}")
        elif int(got.get("count") or 1) != 1:
            problems.append(
                f"{describe_event(got)}: recorded more than once, though it happened "
                "once (an Event on a reconcile that changed nothing?)"
            )

    # The refused create is in blocked's conditions too, with the Warning's reason and message.
    blocked_ready = condition(admin.get("modelservices", namespace, "blocked") or {}, "Ready") or {}
    evidence.record("blocked_ready", blocked_ready)
    if (blocked_ready.get("status"), blocked_ready.get("reason")) != (
        "False",
        "FailedCreate",
    ) or not str(blocked_ready.get("message", "")).startswith(failed_prefix):
        problems.append(
            f"blocked's Ready must say False FailedCreate {failed_prefix!r}...: the refused "
            f"create, as its Warning says it; it is {blocked_ready}"
        )

    clash_events = [
        e
        for e in operator_events(admin, namespace, uids["clash"])
        if (e.get("type"), e.get("reason"), e.get("message")) == conflict
    ]
    evidence.record("child_conflict_count", [int(e.get("count") or 1) for e in clash_events])
    if len(clash_events) != 1 or int(clash_events[0].get("count") or 1) < REPEATS - 1:
        problems.append(
            f"clash: want one {conflict} Event counted at least {REPEATS - 1} "
            f"times; got {[describe_event(e) for e in clash_events]}"
        )

    failed = [
        e
        for e in operator_events(admin, namespace, uids["blocked"])
        if e.get("reason") == "FailedCreate"
    ]
    refused_creates = [
        r
        for r in select(
            audit.requests(start, end), user=impl.user, namespace=namespace, writes_only=True
        )
        if (r.verb, r.resource, r.name, r.code) == ("create", "deployments", "blocked", 403)
    ]
    # A refusal that waiting does not fix is retried with backoff, not in a hot loop
    # (CONTRACT.md, step 7): bounded by the time the refused creates span.
    times = [seconds(r.time) for r in refused_creates]
    span = max(times) - min(times) if times else 0.0
    evidence.record(
        "blocked_failed_creates",
        {
            "count": len(refused_creates),
            "span_s": round(span, 2),
            "bound": backoff_bound(span),
        },
    )
    if len(refused_creates) > backoff_bound(span):
        problems.append(
            f"blocked: {len(refused_creates)} refused creates in {span:.1f}s; a refusal is "
            f"retried with backoff (5 ms doubling per failure), which admits at most "
            f"{backoff_bound(span)} in that time: the operator retries in a hot loop"
        )
    evidence.record(
        "blocked_failed_create_events",
        [{"count": e.get("count"), "message": e.get("message")} for e in failed],
    )
    if len(failed) != 1:
        problems.append(
            f"blocked: {len(refused_creates)} refused creates must make one FailedCreate "
            f"Event whose count grows; got {len(failed)}: "
            f"{[describe_event(e) for e in failed]}"
        )
    for e in failed[:1]:
        message = e.get("message", "")
        if (
            e.get("type") != "Warning"
            or not message.startswith(failed_prefix)
            or 'deployments.apps "blocked" is forbidden: exceeded quota' not in message
        ):
            problems.append(
                f"blocked: want Warning FailedCreate '{failed_prefix}<the API "
                f"server's error>'; got {describe_event(e)}"
            )
        if int(e.get("count") or 1) < REPEATS:
            problems.append(
                f"blocked: the repeated FailedCreate was not counted: "
                f"{describe_event(e)} after {len(refused_creates)} refused creates"
            )

    writes = select(
        audit.requests(start, end), user=impl.user, namespace=namespace, writes_only=True
    )
    event_writes = sorted(
        {f"{r.verb} {r.target} {r.code}" for r in writes if r.resource == "events"}
    )
    evidence.record("event_writes", event_writes)
    assert not problems, "Events differ from the contract:\n  " + "\n  ".join(problems)


def _dry_run_create_status(admin: Kube, namespace: str) -> int:
    """The status code of a dry-run create of a Deployment as admin (201 if allowed)."""
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "quota-probe"},
        "spec": {
            "selector": {"matchLabels": {"app": "probe"}},
            "template": {
                "metadata": {"labels": {"app": "probe"}},
                "spec": {"containers": [{"name": "c", "image": "probe:1"}]},
            },
        },
    }
    try:
        admin.request("POST", admin.path("deployments", namespace), body, query=[("dryRun", "All")])
    except ApiException as exc:
        return int(exc.status)
    return 201
