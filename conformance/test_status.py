"""Checks of what the status says while the world moves: a Deployment that rolls out (or gives
up), a child write the API server refuses.

The status is the operator's answer to "is my current spec running?". Two ways to get it
wrong that the other checks do not see: judging the rollout by availability alone (in the
middle of a rolling update every pod can be available while half of them run the old
template), and leaving a refused child write in the log and the Events only, so that the
conditions still describe the previous generation, or there is no status at all.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CONVERGE_TIMEOUT,
    REACT_TIMEOUT,
    ROLLOUT_TIMEOUT,
    condition,
    create_modelservice,
    get_present,
    premise,
    refusal,
    wait_converged,
    wait_reconciled_past,
    wait_settled,
)
from harness.accounting import Accounting
from harness.audit import Request, select
from harness.kube import Kube, dry_run_create, probe_deployment, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence

#: The CRD's bound on a condition message, and the end of a message cut to it (CONTRACT.md,
#: "Status").
MESSAGE_MAX_LENGTH = 32768
TRUNCATED_MARKER = " ... [truncated]"
#: How long the check watches an operator retry a refused write: long enough for a handful of
#: rate-limited retries (5 ms doubling: about ten in 3 s), far too short for a hot loop to
#: stay under RETRY_BOUND.
RETRY_WINDOW = 3.0
#: At most this many attempts of the refused write in RETRY_WINDOW: rate-limited backoff
#: makes about ten; a loop that retries at once makes hundreds.
RETRY_BOUND = 40


def _owned(msvc: dict[str, Any]) -> dict[str, tuple[str, str, str, int]]:
    """``{type: (status, reason, message, observedGeneration)}`` of Ready and Progressing."""
    out = {}
    for ctype in ("Ready", "Progressing"):
        c = condition(msvc, ctype) or {}
        out[ctype] = (
            str(c.get("status")),
            str(c.get("reason")),
            str(c.get("message")),
            int(c.get("observedGeneration") or 0),
        )
    return out


# --------------------------------------------------------------------------- status-follows-rollout
#: The Deployment states the check plays, in order, after an image change of a 4-replica
#: ModelService (the deployment controller's status writes during a rolling update), with
#: what the ModelService must then say: (case, Deployment status fields, Ready, Progressing
#: status and reason, words of the message).
PLAYED: list[tuple[str, dict[str, Any], str, str, str, str]] = [
    (
        "half updated, all available",
        {"replicas": 5, "updatedReplicas": 2, "readyReplicas": 5, "availableReplicas": 4},
        "False",
        "True",
        "RolloutInProgress",
        "2/4 updated replicas",
    ),
    (
        "old replica pending termination",
        {"replicas": 5, "updatedReplicas": 4, "readyReplicas": 5, "availableReplicas": 4},
        "False",
        "True",
        "RolloutInProgress",
        "1 old replicas pending termination",
    ),
    (
        "updated, not all available",
        {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 3, "availableReplicas": 3},
        "False",
        "True",
        "RolloutInProgress",
        "3/4 updated replicas available",
    ),
    (
        "complete",
        {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 4, "availableReplicas": 4},
        "True",
        "False",
        "RolloutComplete",
        "4/4 available replicas",
    ),
]

STALLED_MESSAGE = 'ReplicaSet "web-played" has timed out progressing.'


def _deployment_condition(ctype: str, status: str, reason: str, message: str) -> dict[str, Any]:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {
        "type": ctype,
        "status": status,
        "reason": reason,
        "message": message,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
    }


def _play(admin: Kube, namespace: str, fields: dict[str, Any], conditions: list[Any]) -> None:
    """Write the Deployment's status as the deployment controller would: through the status
    subresource, observedGeneration = its generation."""
    dep = get_present(admin, "deployments", namespace, "web")
    dep["status"] = {
        "observedGeneration": dep["metadata"]["generation"],
        **fields,
        "conditions": conditions,
    }
    admin.update("deployments", dep, subresource="status")


@pytest.mark.modeldock_needs("no-deployment-controller")
@pytest.mark.modeldock_check("status-follows-rollout", case="played-rollout")
def test_status_follows_played_rollout(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """The status follows the Deployment's rollout as `kubectl rollout status` judges it, not
    availability alone: Ready=True only once every replica runs the current template and is
    available, and a rollout the deployment controller gave up on is reported as stalled.

    After an image change of a 4-replica ModelService, the check plays the deployment
    controller (there is none on envtest): it writes the Deployment's status through the
    status subresource, stepping through a rolling update (2 of 4 replicas updated while all
    4 are available; an old replica still terminating; the new replicas not all available;
    complete), and after each write reads the ModelService once the operator has reconciled
    and settled. An operator that judges by availableReplicas alone says Ready=True
    `RolloutComplete` while old pods still serve, and a `kubectl wait --for=condition=Ready`
    after the image change returns too early. Last, a second image change stalls:
    the Deployment's Progressing condition turns False `ProgressDeadlineExceeded`, and the
    ModelService must say Progressing=False `ProgressDeadlineExceeded` with the Deployment's
    message, not a rollout in progress that nothing will finish. The stalled status lists
    the Deployment's Available condition first and Progressing second, as the deployment
    controller orders them: an operator that reads the first condition as Progressing misses
    the stall.
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web", replicas=4)
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    _play(
        admin,
        namespace,
        {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 4, "availableReplicas": 4},
        [
            _deployment_condition("Available", "True", "MinimumReplicasAvailable", "available"),
            _deployment_condition("Progressing", "True", "NewReplicaSetAvailable", "rolled out"),
        ],
    )
    msvc = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: _owned(m)["Ready"][0] == "True",
        REACT_TIMEOUT,
        "the ModelService to say Ready=True once the played Deployment is rolled out (the "
        "operator must hear of a child's status change)",
    )
    evidence.record("rolled_out", _owned(msvc))

    count = wait_settled(op)
    admin.patch("modelservices", namespace, "web", {"spec": {"image": "srv:2"}})
    generation = wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["spec"]["template"]["spec"]["containers"][0]["image"] == "srv:2",
        REACT_TIMEOUT,
        "the operator to roll the image change out to the Deployment",
    )["metadata"]["generation"]
    wait_reconciled_past(op, count)
    seen = []
    for case, fields, ready, progressing, reason, words in PLAYED:
        count = wait_settled(op)
        updating = _deployment_condition(
            "Progressing", "True", "ReplicaSetUpdated", 'ReplicaSet "web-played" is progressing.'
        )
        _play(admin, namespace, fields, [updating])
        wait_reconciled_past(op, count)
        wait_settled(op)
        got = _owned(get_present(admin, "modelservices", namespace, "web"))
        seen.append((case, got))
        assert (got["Ready"][0], got["Progressing"][:2]) == (ready, (progressing, reason)), (
            f"Deployment {case} ({fields}, generation {generation} observed): want Ready="
            f"{ready}, Progressing={progressing} {reason}; the ModelService says {got}"
        )
        assert words in got["Ready"][2] and got["Ready"][2] == got["Progressing"][2], (
            f"Deployment {case}: the message must say so ({words!r}): {got}"
        )
    evidence.record("played", seen)

    # A second image change that the deployment controller gives up on.
    count = wait_settled(op)
    admin.patch("modelservices", namespace, "web", {"spec": {"image": "srv:3"}})
    wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["spec"]["template"]["spec"]["containers"][0]["image"] == "srv:3",
        REACT_TIMEOUT,
        "the operator to roll the second image change out to the Deployment",
    )
    wait_reconciled_past(op, count)
    count = wait_settled(op)
    stalled = _deployment_condition(
        "Progressing", "False", "ProgressDeadlineExceeded", STALLED_MESSAGE
    )
    # Available listed before Progressing, as the deployment controller orders them: the
    # stall is read from the condition of type Progressing, wherever it stands.
    available = _deployment_condition(
        "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."
    )
    _play(
        admin,
        namespace,
        {"replicas": 5, "updatedReplicas": 1, "readyReplicas": 4, "availableReplicas": 4},
        [available, stalled],
    )
    wait_reconciled_past(op, count)
    wait_settled(op)
    got = _owned(get_present(admin, "modelservices", namespace, "web"))
    evidence.record("stalled", got)
    assert got["Progressing"][:2] == ("False", "ProgressDeadlineExceeded"), (
        f"the Deployment gave up (Progressing=False ProgressDeadlineExceeded): the ModelService "
        f"must say Progressing=False ProgressDeadlineExceeded, it says {got['Progressing']}"
    )
    assert got["Ready"][:2] == ("False", "ProgressDeadlineExceeded"), got["Ready"]
    assert STALLED_MESSAGE in got["Progressing"][2], (
        f"the message must carry the Deployment's own ({STALLED_MESSAGE!r}): {got['Progressing']}"
    )


#: The progress deadline the check gives the Deployment (seconds): the deployment controller
#: gives up on the unschedulable rollout this long after it last progressed.
PROGRESS_DEADLINE = 3


@pytest.mark.modeldock_needs("pods-ready", "deployment-controller")
@pytest.mark.modeldock_check("status-follows-rollout", case="stalled-rollout")
def test_status_follows_stalled_rollout(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """A rollout the real deployment controller gives up on is reported as stalled, with its
    message, and never as Ready.

    A 2-replica ModelService rolls out on kwok's nodes; the check gives its Deployment a
    progress deadline of a few seconds (a field the operator leaves to others), then changes
    the ModelService's resources to a CPU request no node can hold. The new pod stays
    Pending while both old pods stay available (maxUnavailable rounds down to 0), and after
    the deadline the deployment controller sets its Progressing condition to False
    `ProgressDeadlineExceeded`. An operator that judges by availability says Ready=True (2 of
    2 available) all along, and one that ignores the deadline says RolloutInProgress for
    ever. The ModelService must say Ready=False and Progressing=False
    `ProgressDeadlineExceeded` with the Deployment's message.
    """
    operators.start()
    create_modelservice(admin, namespace, "web", replicas=2)
    wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: _owned(m)["Ready"][:2] == ("True", "ReplicasAvailable"),
        ROLLOUT_TIMEOUT,
        "the ModelService to report its rollout of 2 replicas on kwok's nodes (Ready=True)",
    )
    admin.patch(
        "deployments", namespace, "web", {"spec": {"progressDeadlineSeconds": PROGRESS_DEADLINE}}
    )
    admin.patch(
        "modelservices",
        namespace,
        "web",
        {"spec": {"resources": {"requests": {"cpu": "100000"}}}},
    )
    dep = wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: any(
            c.get("type") == "Progressing" and c.get("reason") == "ProgressDeadlineExceeded"
            for c in (d.get("status") or {}).get("conditions") or []
        ),
        ROLLOUT_TIMEOUT,
        "the deployment controller to give up on the unschedulable rollout "
        "(Progressing=False ProgressDeadlineExceeded)",
        premise=True,
    )
    deadline = next(
        c for c in dep["status"]["conditions"] if c.get("reason") == "ProgressDeadlineExceeded"
    )
    evidence.premise("deployment_progressing", deadline)
    msvc = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: _owned(m)["Progressing"][1] == "ProgressDeadlineExceeded",
        REACT_TIMEOUT,
        "the ModelService to report the stalled rollout (Progressing reason "
        "ProgressDeadlineExceeded)",
    )
    got = _owned(msvc)
    evidence.record("stalled", got)
    assert got["Progressing"][0] == "False", got["Progressing"]
    assert got["Ready"][:2] == ("False", "ProgressDeadlineExceeded"), (
        f"2 of 2 replicas are available, but of the old template: not Ready ({got['Ready']})"
    )
    assert str(deadline.get("message")) in got["Progressing"][2], (
        f"the message must carry the Deployment's own ({deadline.get('message')!r}): "
        f"{got['Progressing']}"
    )


# --------------------------------------------------------------------------- refused-write-reported
def _refused(
    audit: Accounting, admin: Kube, start: int, user: str, namespace: str, verb: str
) -> list[Request]:
    """The operator's refused ``verb`` requests of deployments since ``start``."""
    return [
        r
        for r in select(audit.requests(start, audit.sync(admin)), user=user, namespace=namespace)
        if r.resource == "deployments" and r.verb == verb and not r.ok
    ]


def _wait_reported(
    admin: Kube, namespace: str, generation: int, reason: str, what: str
) -> dict[str, Any]:
    return wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (
            (m.get("status") or {}).get("observedGeneration") == generation
            and _owned(m)["Ready"][1] == reason
        ),
        REACT_TIMEOUT,
        f"the ModelService's status to report the refused {what} at generation {generation} "
        f"(observedGeneration {generation}, Ready reason {reason})",
    )


@pytest.mark.modeldock_check("refused-write-reported", case="invalid-update")
def test_refused_update_reported(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """A child write the API server refuses is reported in the status, at the generation that
    caused it, with the server's message; the retries back off; the fix clears it at once.

    The ModelService is changed so that its Deployment is invalid (requests above limits):
    the API server answers the operator's update with 422 Invalid. Without the report, the
    refusal is in the log and an Event only, and the status (its conditions of the previous
    generation) says nothing went wrong. The status must say Ready=False and
    Progressing=False `FailedUpdate`, `observedGeneration` the current one, with the message
    of the Warning Event (`Failed to update Deployment "web": <the server's message>`). While
    the refusal lasts the operator retries with rate-limited backoff, and it writes the status
    once, not on every retry. Then the spec is fixed: the next reconcile writes the Deployment
    and replaces the refusal in the status.
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web")
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    wait_settled(op)
    start = audit.sync(admin)
    bad = {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}
    generation = admin.patch("modelservices", namespace, "web", {"spec": {"resources": bad}})[
        "metadata"
    ]["generation"]
    msvc = _wait_reported(admin, namespace, generation, "FailedUpdate", "Deployment update")
    got = _owned(msvc)
    evidence.record("refused", got)
    refused = _refused(audit, admin, start, op.impl.user, namespace, "update")
    premise(
        refused and refused[0].code == 422,
        f"the API server refused the Deployment update with 422: {[r.describe() for r in refused]}",
    )
    want = f'Failed to update Deployment "web": {refused[0].message}'
    assert got["Ready"] == ("False", "FailedUpdate", want, generation), (
        f"Ready must be False FailedUpdate with the Event's message {want!r} at generation "
        f"{generation}: {got['Ready']}"
    )
    assert got["Progressing"] == ("False", "FailedUpdate", want, generation), got["Progressing"]

    # The refusal lasts: retries back off, and the status is not written again.
    time.sleep(RETRY_WINDOW)
    window = select(
        audit.requests(start, audit.sync(admin)),
        user=op.impl.user,
        namespace=namespace,
        writes_only=True,
    )
    attempts = [r for r in window if r.resource == "deployments" and r.verb == "update"]
    status_writes = [
        r for r in window if r.resource == "modelservices" and r.subresource == "status" and r.ok
    ]
    evidence.record("retries", {"attempts": len(attempts), "status_writes": len(status_writes)})
    assert len(status_writes) == 1, (
        f"the refusal stayed the same: one status write, not one per retry: "
        f"{[r.describe() for r in status_writes]}"
    )
    assert 2 <= len(attempts) <= RETRY_BOUND, (
        f"{len(attempts)} attempts of the refused update in about {RETRY_WINDOW:g} s: want "
        f"retries with rate-limited backoff (2 to {RETRY_BOUND})"
    )

    fixed = admin.patch(
        "modelservices",
        namespace,
        "web",
        {"spec": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}},
    )["metadata"]["generation"]
    msvc = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (m.get("status") or {}).get("observedGeneration") == fixed,
        REACT_TIMEOUT,
        f"the status to follow the fixed spec (generation {fixed}) promptly",
    )
    evidence.record("fixed", _owned(msvc))
    assert {_owned(msvc)[c][1] for c in ("Ready", "Progressing")}.isdisjoint(
        {"FailedUpdate", "FailedCreate"}
    ), f"the write succeeded, the refusal must be cleared: {_owned(msvc)}"
    dep = get_present(admin, "deployments", namespace, "web")
    premise(
        dep["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1",
        f"the Deployment carries the fixed resources: {dep['spec']['template']['spec']}",
    )


#: The admission policy's message: longer than a condition may hold, so the status write that
#: reports it must cut it (CONTRACT.md, "Status").
POLICY_MESSAGE = "modeldock refuses this Deployment on purpose: " + "x" * 40000


@pytest.mark.modeldock_check("refused-write-reported", case="admission-refused-create")
def test_refused_create_reported(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """A child create an admission policy refuses is reported in the status of a ModelService
    that has no status yet, with the policy's message cut visibly to the CRD's bound.

    A ValidatingAdmissionPolicy refuses every Deployment create in the namespace with 403
    Forbidden and a message longer than a condition may hold (32768 characters). Without the
    report the new ModelService has no status at all. With a report that copies the message
    whole, the status write is itself refused by the CRD's bound, and the report is lost with
    it. The status must say Ready=False and Progressing=False `FailedCreate` at generation 1,
    the Event's message (`Failed to create Deployment "web": <the server's message>`) cut to
    32768 characters ending in ` ... [truncated]`. Once the policy is gone, the retry (still
    backing off) creates the Deployment and the refusal leaves the status.
    """
    name = f"modeldock-refuse-{namespace}"
    with refusal(
        admin,
        name,
        namespace,
        ("CREATE",),
        "false",
        POLICY_MESSAGE,
        lambda: dry_run_create(admin, "deployments", namespace, probe_deployment()),
        201,
    ):
        op = operators.start()
        start = audit.sync(admin)
        create_modelservice(admin, namespace, "web")
        msvc = _wait_reported(admin, namespace, 1, "FailedCreate", "Deployment create")
        got = _owned(msvc)
        evidence.record("refused", {c: (*v[:2], len(v[2]), v[3]) for c, v in got.items()})
        refused = _refused(audit, admin, start, op.impl.user, namespace, "create")
        premise(
            refused and refused[0].code == 403 and "modeldock refuses" in refused[0].message,
            f"the policy refused the Deployment create: {[r.describe() for r in refused]}",
        )
        full = f'Failed to create Deployment "web": {refused[0].message}'
        premise(len(full) > MESSAGE_MAX_LENGTH, f"the refusal is {len(full)} characters long")
        want = full[: MESSAGE_MAX_LENGTH - len(TRUNCATED_MARKER)] + TRUNCATED_MARKER
        for ctype in ("Ready", "Progressing"):
            status, reason, message, observed = got[ctype]
            assert (status, reason, observed) == ("False", "FailedCreate", 1), got[ctype][:2]
            assert message == want, (
                f"{ctype} message: want the Event's message cut to {MESSAGE_MAX_LENGTH} "
                f"characters ending in {TRUNCATED_MARKER!r}; got {len(message)} characters "
                f"beginning {message[:120]!r} and ending {message[-40:]!r}"
            )

    msvc = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (
            admin.get("deployments", namespace, "web") is not None
            and _owned(m)["Ready"][1] != "FailedCreate"
        ),
        CONVERGE_TIMEOUT,
        "the retry to create the Deployment once the policy is gone, and the status to say so",
    )
    evidence.record("recovered", _owned(msvc))
    assert _owned(msvc)["Progressing"][1] != "FailedCreate", _owned(msvc)


#: refused-write-reported[webhook-answer]: the answer an admission webhook could give to the
#: Deployment create, as the API server passes it on (its message prefixed, its causes kept):
#: two causes the message does not end with, and a message sized so that the condition's,
#: `Failed to create Deployment "web": <message>`, is exactly MESSAGE_MAX_LENGTH characters.
#: Its em dashes are three bytes each in UTF-8, so a bound counted in bytes cuts it too.
WEBHOOK_PREFIX = 'admission webhook "images.example.com" denied the request: '
WEBHOOK_CAUSES = (
    ("spec.template.spec.containers[0].image", "registry not allowed"),
    ("spec.template.spec.containers[0].ports[0].containerPort", "port not allowed"),
)
WEBHOOK_REFUSALS = 10


def webhook_message() -> str:
    """The webhook's message: its wording, then filler, so that the condition message it
    makes is exactly MESSAGE_MAX_LENGTH characters (a premise checks the arithmetic)."""
    head = WEBHOOK_PREFIX + "the image and the port are not allowed here — ask the platform team"
    room = MESSAGE_MAX_LENGTH - len('Failed to create Deployment "web": ') - len(head)
    return head + ("—" * room)


@pytest.mark.modeldock_check("refused-write-reported", case="webhook-answer")
def test_webhook_answer_reported_as_sent(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """refused-write-reported[webhook-answer]: a refusal is reported in the words it came in.
    The operator's API proxy answers its Deployment creates 403 Forbidden as an admission
    webhook's answer reaches a client: a message of the webhook's own wording, and two
    details.causes that the message does not end with. The message is sized so that the
    conditions' message, `Failed to create Deployment "web": <message>`, is exactly 32768
    characters, the CRD's maxLength (many of them em dashes: three bytes each). Ready and
    Progressing must say False `FailedCreate` with exactly that message, whole: not cut
    (it fits), and not reworded (the causes are put in order only where the message ends
    with them as apimachinery lists them; a webhook's wording is kept as it is). Then the
    proxy stops refusing and the ModelService converges.
    """
    message = webhook_message()
    want = f'Failed to create Deployment "web": {message}'
    premise(len(want) == MESSAGE_MAX_LENGTH, f"the condition message is {len(want)} characters")
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        set_up(lambda: wait_settled(op), "settling before the refusals are armed")
        for n in range(1, WEBHOOK_REFUSALS + 1):
            proxy.inject_write_error(
                n, 403, resources=["deployments"], message=message, causes=WEBHOOK_CAUSES
            )
        create_modelservice(admin, namespace, "web")
        msvc = _wait_reported(admin, namespace, 1, "FailedCreate", "Deployment create")
        fired = [f for f in proxy.faults()["write_faults"] if f.get("fired")]
        proxy.clear_faults()
        got = _owned(msvc)
        evidence.record(
            "reported",
            {
                c: {
                    "reason": v[1],
                    "characters": len(v[2]),
                    "ends": v[2][-40:],
                    "cut": v[2].endswith(TRUNCATED_MARKER),
                }
                for c, v in got.items()
            },
        )
        premise(fired != [], "the API proxy should have answered the Deployment create 403")
        for ctype in ("Ready", "Progressing"):
            status, reason, reported, observed = got[ctype]
            assert (status, reason, observed) == ("False", "FailedCreate", 1), got[ctype][:2]
            assert reported == want, (
                f"{ctype} message: want the refusal as it came, whole ({len(want)} characters, "
                f"the CRD's maxLength, so it fits), ending {want[-40:]!r}; got {len(reported)} "
                f"characters ending {reported[-60:]!r}"
            )
        wait_converged(admin, namespace, "web")


#: Two resources the Deployment's validation refuses at once (the case the generator found,
#: harness/generate/cases/refusal-message-order.yaml), and the causes the API server names for
#: them, as it words them (a premise: the refused create's message carries both).
TWO_CAUSES_LIMITS = {"nvidia.com/gpu": "0.5", "example.com/fpga": "0.5"}
TWO_CAUSES = (
    'spec.template.spec.containers[0].resources.limits[example.com/fpga]: Invalid value: "500m": '
    "must be an integer",
    'spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "500m": '
    "must be an integer",
)


@pytest.mark.modeldock_check("refused-write-reported", case="two-causes")
def test_refused_two_causes_reported(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """A refusal with two causes is reported with both, in sorted order, and written once.

    The new ModelService's limits make the Deployment invalid twice over (two fractional
    extended resources, a GPU and an FPGA; the CRD refuses a negative quantity itself): the API server answers the create with 422 and two causes. It
    finds them by ranging over the limits, a Go map, so its message lists them in an order
    drawn anew on every try. An operator that copies that order into its condition message
    computes a different status on many retries and writes it again each time, and two
    operators end with different messages. The status must say Ready=False and
    Progressing=False `FailedCreate` at generation 1, with the Event's message whose list of
    causes is in sorted order (CONTRACT.md, "A refused child write"), and be written once while
    the retries back off.
    """
    op = operators.start()
    start = audit.sync(admin)
    create_modelservice(admin, namespace, "web", resources={"limits": TWO_CAUSES_LIMITS})
    msvc = _wait_reported(admin, namespace, 1, "FailedCreate", "Deployment create")

    # The refusal lasts: retries back off, each meets the two causes in the order drawn.
    time.sleep(RETRY_WINDOW)
    msvc = get_present(admin, "modelservices", namespace, "web")
    got = _owned(msvc)
    evidence.record("refused", got)
    window = select(
        audit.requests(start, audit.sync(admin)),
        user=op.impl.user,
        namespace=namespace,
        writes_only=True,
    )
    refused = [r for r in window if r.resource == "deployments" and r.verb == "create"]
    premise(
        len(refused) >= 2
        and all(r.code == 422 and all(c in r.message for c in TWO_CAUSES) for r in refused),
        f"the API server refused every Deployment create with 422 naming both causes: "
        f"{[r.describe() for r in refused]}",
    )
    status_writes = [
        r for r in window if r.resource == "modelservices" and r.subresource == "status" and r.ok
    ]
    evidence.record(
        "retries",
        {
            "attempts": len(refused),
            "orders": len({r.message for r in refused}),
            "status_writes": len(status_writes),
        },
    )
    want = f'Failed to create Deployment "web": Deployment.apps "web" is invalid: [{", ".join(TWO_CAUSES)}]'
    for ctype in ("Ready", "Progressing"):
        status, reason, message, observed = got[ctype]
        assert (status, reason, observed) == ("False", "FailedCreate", 1), got[ctype]
        assert all(c in message for c in TWO_CAUSES), (
            f"{ctype} message must name every cause {TWO_CAUSES}: {message!r}"
        )
        assert message == want, (
            f"{ctype} message: want the causes in sorted order, the same bytes whatever order "
            f"the API server listed them in:\n  want {want!r}\n  got  {message!r}"
        )
    assert len(status_writes) == 1, (
        f"the refusal stayed the same ({len(refused)} attempts, "
        f"{len({r.message for r in refused})} orders of its causes): one status write, not one "
        f"per order: {[r.describe() for r in status_writes]}"
    )


#: refused-write-reported[three-causes]: three causes of one 422, as the API server words a
#: Deployment whose validation met three fractional extended resources, listed in reverse
#: sorted order (an order its range over the limits, a Go map, can draw). The operator's API
#: proxy gives this answer to its Deployment creates, so the order is the same on every try.
THREE_CAUSES = tuple(
    (
        f"spec.template.spec.containers[0].resources.limits[{name}]",
        'Invalid value: "500m": must be an integer',
    )
    for name in ("nvidia.com/gpu", "example.com/fpga", "example.com/asic")
)
THREE_CAUSES_REFUSALS = 10


def _causes_text(causes: Any) -> str:
    """``[<field>: <message>, ...]``, as apimachinery ends an Invalid error's message."""
    return "[" + ", ".join(f"{field}: {text}" for field, text in causes) + "]"


@pytest.mark.modeldock_check("refused-write-reported", case="three-causes")
def test_refused_three_causes_sorted(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """refused-write-reported[three-causes]: a refusal with three causes is reported with them
    in sorted order, as one with two is. The operator's API proxy answers its Deployment creates
    422 Invalid as the API server words them, `Deployment.apps "web" is invalid: [...]` ending
    with its three details.causes in reverse sorted order (the order a range over a Go map can
    draw). Ready and Progressing must say False `FailedCreate` with the message whose list of
    causes is in sorted order (CONTRACT.md, "A refused child write": the same bytes whatever
    order the answer drew, for two causes or more). Then the proxy stops refusing and the
    ModelService converges.
    """
    _assert_causes_sorted(admin, namespace, operators, evidence, THREE_CAUSES)


@pytest.mark.modeldock_check("refused-write-reported", case="two-causes-reversed")
def test_refused_two_causes_reversed(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """refused-write-reported[two-causes-reversed]: as [three-causes], with the first two of its
    causes, in reverse sorted order, on every try. [two-causes] meets the API server's own
    answer, whose order of two causes is drawn per try and is sorted half the time, so an
    operator that sorts only three causes or more passes it by luck; here the order is always
    the unsorted one, and the report must list the two sorted (CONTRACT.md, "A refused child
    write": two causes or more).
    """
    _assert_causes_sorted(admin, namespace, operators, evidence, THREE_CAUSES[:2])


def _assert_causes_sorted(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    causes: tuple[tuple[str, str], ...],
) -> None:
    """The body of [three-causes] and [two-causes-reversed]: the operator's API proxy answers
    its first THREE_CAUSES_REFUSALS Deployment creates 422 with ``causes`` ((field, message)
    pairs, in reverse sorted order) at the end of the message; Ready and Progressing must then
    say False `FailedCreate` at generation 1 with the causes in sorted order, and once the proxy
    stops refusing, ModelService ``web`` must converge. Raises AssertionError on a report in
    another order."""
    message = f'Deployment.apps "web" is invalid: {_causes_text(causes)}'
    want = 'Failed to create Deployment "web": Deployment.apps "web" is invalid: ' + _causes_text(
        sorted(causes)
    )
    premise(want.endswith(_causes_text(sorted(causes))) and want != message, want)
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        set_up(lambda: wait_settled(op), "settling before the refusals are armed")
        for n in range(1, THREE_CAUSES_REFUSALS + 1):
            proxy.inject_write_error(
                n, 422, resources=["deployments"], message=message, causes=causes
            )
        create_modelservice(admin, namespace, "web")
        msvc = _wait_reported(admin, namespace, 1, "FailedCreate", "Deployment create")
        fired = [f for f in proxy.faults()["write_faults"] if f.get("fired")]
        proxy.clear_faults()
        got = _owned(msvc)
        evidence.record("reported", got)
        premise(fired != [], "the API proxy should have answered the Deployment create 422")
        for ctype in ("Ready", "Progressing"):
            status, reason, reported, observed = got[ctype]
            assert (status, reason, observed) == ("False", "FailedCreate", 1), got[ctype]
            assert reported == want, (
                f"{ctype} message: want the {len(causes)} causes in sorted order, the same "
                f"bytes whatever order the answer listed them in:\n  want {want!r}\n  got  "
                f"{reported!r}"
            )
        wait_converged(admin, namespace, "web")
