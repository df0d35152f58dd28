"""Core checks: convergence, no-op stability, conditions, optimistic concurrency, restart.

Each check runs against one implementation (``--impl``) in a fresh namespace, with the
operator as a real process under its own user. The docstring's first paragraph is the check's
"why": the comparison report shows it next to each implementation's evidence.
"""

from __future__ import annotations

import datetime
import random
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    CONVERGE_TIMEOUT,
    FINALIZER,
    QUIET_IGNORED_RESOURCES,
    QUIET_IGNORED_VERBS,
    REACT_TIMEOUT,
    actual_deployment_fields,
    actual_service_fields,
    condition,
    controller_ref,
    create_modelservice,
    diff_fields,
    expected_deployment_fields,
    expected_service_fields,
    get_present,
    premise,
    status_of,
    wait_converged,
    wait_events_settled,
    wait_observed,
    wait_reconciled_past,
    wait_settled,
    writes_during,
)
from conformance.tiered import unrelated_metadata, wait_rolled_out
from harness.accounting import Accounting
from harness.audit import Request, select, summarize
from harness.envtest.controlplane import ControlPlane
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import CRASH_EXIT_CODE, Implementation, OperatorProcess
from harness.plugin.evidence import Evidence
from harness.tiers import Tier

#: The work queue's adds counter (CONTRACT.md "Metrics"), as exposed; create-converges reads
#: its series ``name="modelservice"`` (controller-runtime adds a ``controller`` label too).
WORKQUEUE_ADDS = "workqueue_adds_total"


@pytest.mark.modeldock_check("create-converges")
def test_create_converges(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """A new ModelService converges to exactly the children and status the contract describes.

    The Deployment and Service carry the desired fields and a controller ownerReference
    (controller=true, blockOwnerDeletion=true) to the ModelService's UID, which is how the
    controller's watches map child events back to their parent and how garbage collection
    knows what to remove. The finalizer is in place before any child exists, so a deletion can
    never outrun cleanup. status.observedGeneration equals metadata.generation: the status
    describes the spec the user last wrote, not an older one; and metadata.generation is 1:
    the spec is the user's, and the operator never rewrote it. Its reconcile-time histogram
    (CONTRACT.md, "Metrics") has observed the reconciles, each a duration in seconds: no
    reconcile outlasts the process, so the histogram's sum is at most its count times the
    seconds since the operator was started (_assert_reconcile_time; mutants:
    reconcile-time-wall-clock, reconcile-time-wall-clock-go).
    """
    started = time.monotonic()
    op = operators.start()
    create_modelservice(
        admin,
        namespace,
        "web",
        replicas=3,
        port=9000,
        args=["--dtype=bf16"],
        resources={"limits": {"cpu": "2", "memory": "1Gi"}},
    )
    msvc = wait_converged(admin, namespace, "web")
    # Where Pods become Ready (sim) the counts move until the rollout is over: judge them then.
    msvc = wait_rolled_out(admin, namespace, "web", tier) or msvc
    counted = 3 if tier.offers("pods-ready") else 0
    uid = msvc["metadata"]["uid"]
    evidence.record("modelservice_uid", uid)
    # Both children exist: wait_converged saw them (is_converged).
    dep = get_present(admin, "deployments", namespace, "web")
    svc = get_present(admin, "services", namespace, "web")

    problems = diff_fields(expected_deployment_fields(msvc), actual_deployment_fields(dep))
    problems += diff_fields(expected_service_fields(msvc), actual_service_fields(svc))
    server = next(c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] == "server")
    if server.get("resources", {}).get("limits") != {"cpu": "2", "memory": "1Gi"}:
        problems.append(
            f"container.resources.limits: expected cpu 2, memory 1Gi, got "
            f"{server.get('resources')!r}"
        )
    for kind, child in (("Deployment", dep), ("Service", svc)):
        ref = controller_ref(child)
        evidence.record(f"{kind.lower()}_controller_ref", ref)
        want = {
            "apiVersion": "modeldock.io/v1alpha1",
            "kind": "ModelService",
            "name": "web",
            "uid": uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
        if ref != want:
            problems.append(f"{kind} controller ownerReference: expected {want}, got {ref}")
    finalizers = msvc["metadata"].get("finalizers") or []
    evidence.record("finalizers", finalizers)
    if FINALIZER not in finalizers:
        problems.append(f"finalizer {FINALIZER} missing: {finalizers}")
    status = msvc["status"]
    evidence.record("generation", msvc["metadata"]["generation"])
    evidence.record("observedGeneration", status.get("observedGeneration"))
    # The user wrote the spec once and nobody else wrote it: generation 1. More means someone
    # changed the spec, and the only other writer here is the operator (rewrites-spec).
    if msvc["metadata"]["generation"] != 1:
        problems.append(
            f"metadata.generation: expected 1 (the user wrote the spec once), got "
            f"{msvc['metadata']['generation']}: the operator changed the user's spec"
        )
    want_status = {
        "selector": "modeldock.io/modelservice=web",
        "url": f"http://web.{namespace}.svc:9000",
        "replicas": counted,
        "readyReplicas": counted,
        "availableReplicas": counted,
    }
    for key, value in want_status.items():
        if status.get(key) != value:
            problems.append(f"status.{key}: expected {value!r}, got {status.get(key)!r}")
    # What the user asked for, not the stored spec (the API server's echo of its own create
    # proves nothing about the operator): 3 replicas.
    if dep["spec"].get("replicas") != 3:
        problems.append(
            f"spec.replicas: the user asked for 3, the Deployment has "
            f"{dep['spec'].get('replicas')!r}"
        )
    # The work queue's metrics (CONTRACT.md "Metrics"): the ModelService and its children's
    # events went through the queue named modelservice, so its adds are counted.
    adds = sum(
        v
        for k, v in op.metrics([WORKQUEUE_ADDS]).items()
        if k.startswith(WORKQUEUE_ADDS + "{") and 'name="modelservice"' in k
    )
    evidence.record("workqueue_adds_total", adds)
    if adds < 1:
        problems.append(
            f'{WORKQUEUE_ADDS}{{name="modelservice"}}: expected at least 1 after a reconcile, '
            f"got {adds:g}: the controller's work queue must report its adds (a queue built "
            "without the controller's metrics reports none)"
        )
    assert not problems, "children or status differ from the contract:\n  " + "\n  ".join(problems)

    writes = select(audit.requests(), user=impl.user, namespace=namespace, writes_only=True)
    evidence.record("operator_requests", summarize(writes))
    ok_writes = [r for r in writes if r.ok]
    ok_targets = [(r.verb, r.target) for r in ok_writes]
    for needed in [
        ("update", "modelservices"),
        ("create", "deployments"),
        ("create", "services"),
        ("update", "modelservices/status"),
    ]:
        assert needed in ok_targets, (
            f"expected a successful {needed} by {impl.user}; saw {ok_targets}"
        )
    # The finalizer is in place before any child exists: the operator's first successful
    # write of the ModelService itself (the finalizer; nothing else of it is the operator's
    # to change) completes before its first child create, in the API server's own order.
    order = [r.describe() for r in ok_writes]
    finalizer_at = finalizer_write_index(ok_writes)
    child_at = next(
        (i for i, r in enumerate(ok_writes) if r.verb == "create" and r.resource in CHILDREN),
        None,
    )
    evidence.record(
        "finalizer_before_children",
        {
            "finalizer_write": finalizer_at,
            "first_child_create": child_at,
            "successful_writes": order,
        },
    )
    assert finalizer_at is not None and child_at is not None and finalizer_at < child_at, (
        f"the finalizer must be in place before any child exists: the operator's successful "
        f"writes, in order, were {order}"
    )
    _assert_reconcile_time(op, started, evidence)


#: The reconcile-time histogram (CONTRACT.md, "Metrics"), seconds per reconcile.
RECONCILE_TIME = "controller_runtime_reconcile_time_seconds"
#: How long the histogram may take to show a reconcile once the ModelService has converged,
#: seconds: the observation follows the reconcile's last write, a scrape or two later.
RECONCILE_TIME_WAIT_S = 10.0


def _reconcile_time(op: OperatorProcess) -> tuple[float, float]:
    """(count, sum in seconds) of the modelservice controller's reconcile-time histogram."""
    samples = op.metrics([RECONCILE_TIME])

    def total(suffix: str) -> float:
        return sum(
            v
            for k, v in samples.items()
            if k.startswith(RECONCILE_TIME + suffix + "{") and 'controller="modelservice"' in k
        )

    return total("_count"), total("_sum")


def _assert_reconcile_time(op: OperatorProcess, started: float, evidence: Evidence) -> None:
    """The reconcile-time histogram of ``op`` has observed at least one reconcile, and its sum
    is at most its count times the seconds since ``started`` (``time.monotonic()`` before the
    process was started): an observation is one reconcile's duration in seconds, which no
    reconcile of the process can exceed. A timestamp observed, or a clock's end taken from
    another clock than its start, breaks the bound by orders of magnitude, whatever the load
    (no fixed time is compared). AssertionError otherwise."""
    count, total = wait_for(
        lambda: _reconcile_time(op),
        lambda seen: seen[0] >= 1,
        RECONCILE_TIME_WAIT_S,
        f"the operator's {RECONCILE_TIME} histogram to observe a reconcile",
    )
    lived = time.monotonic() - started
    evidence.record(
        "reconcile_time", {"count": count, "sum_s": round(total, 3), "lived_s": round(lived, 3)}
    )
    assert total <= count * lived, (
        f"{RECONCILE_TIME} has observed {count:g} reconciles summing to {total:g} s, but the "
        f"operator has run for {lived:.1f} s: at most {count * lived:.1f} s can have been "
        "spent in them. Each observation is one reconcile's duration in seconds, its end "
        'minus its start on one monotonic clock (CONTRACT.md, "Metrics")'
    )


def finalizer_write_index(writes: Iterable[Request]) -> int | None:
    """Index of the first successful update (or patch) of a ModelService itself (not its
    status) in ``writes``: the operator's finalizer write."""
    return next(
        (
            i
            for i, r in enumerate(writes)
            if r.ok and r.verb in ("update", "patch") and r.target == "modelservices"
        ),
        None,
    )


@pytest.mark.modeldock_check("noop-stable")
def test_noop_stable(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """Reconciles with nothing to change write nothing.

    A level-triggered controller reconciles often: after a restart it re-lists and reconciles
    every object, and any event (an annotation someone added, a status update of its own)
    brings the whole object back through Reconcile. If each of those wrote — a fresh timestamp,
    a full Update that wipes server defaults — every write would cause another event and the
    controller would never go quiet, loading the API server and etcd and hiding real changes.
    Here the operator is restarted and two unrelated annotations are added; the audit log must
    show zero successful writes by the operator's user, Events included (an Event on a
    reconcile that changed nothing is a write, and a false report), the metrics must show
    that reconciles did run, and the children's resourceVersions must not move.
    """
    set_up_from = audit.offset()
    op = operators.start()
    create_modelservice(admin, namespace, "web")
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    assert_quiet_window(op, admin, namespace, audit, evidence, impl, tier, set_up_from)


@pytest.mark.modeldock_check("noop-stable", case="rewritten-values")
def test_noop_stable_rewritten_values(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """ "Nothing changed" is judged against what the API server stores, not what the user wrote.

    The API server rewrites some valid values when it stores a child: it rounds every resource
    quantity up to a whole number of thousandths (1.5m is stored as 2m, 1e-4 as 1e-3); other
    spellings of the same value (0.5Gi, 536870912) compare equal by value whatever form is
    stored. An operator that compares its desired Deployment with the stored one using the
    user's values finds a difference on every reconcile and updates the Deployment, with an
    Event, for ever. Here the ModelService's resources are spellings drawn (seeded, so both
    implementations get the same) from those the CRD admits, the CPU request always one the
    API server rounds; the operator must converge on them (judged: the CRD admits each and the
    API server stores each), and it is a premise that the stored Deployment spells at least one
    of them otherwise. Then the window of noop-stable: a restart and two unrelated annotations
    must bring no write.
    """
    resources = rewritten_resources(random.Random(REWRITTEN_VALUES_SEED))
    evidence.record("resources", resources)
    set_up_from = audit.offset()
    # The CRD admits every spelling and the API server stores each: not converging on them is
    # the operator's fault, judged, not an unmet premise.
    op, stored = converged_resources(admin, namespace, operators, evidence, resources, judged=True)
    rewritten = [
        f"{field}.{name}: {value!r} stored as {stored.get(field, {}).get(name)!r}"
        for field, values in resources.items()
        for name, value in values.items()
        if stored.get(field, {}).get(name) != value
    ]
    evidence.record("rewritten_by_the_api_server", rewritten)
    premise(bool(rewritten), f"the API server stored every quantity as spelled: {stored}")
    assert_quiet_window(op, admin, namespace, audit, evidence, impl, tier, set_up_from)


def converged_resources(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    resources: dict[str, dict[str, Any]],
    *,
    judged: bool = False,
) -> tuple[OperatorProcess, dict[str, Any]]:
    """Start the operator, create ModelService ``web`` with ``resources`` and wait for it to
    converge: a set-up wait (a timeout is an unmet premise), or with ``judged`` the check's own
    (a timeout fails it: the caller knows the API server takes these resources); return the
    operator and the ``server`` container's resources as the API server stored them in the
    Deployment (recorded as ``stored_resources``)."""
    op = operators.start()
    create_modelservice(admin, namespace, "web", resources=resources)
    if judged:
        wait_converged(admin, namespace, "web")
    else:
        set_up(
            lambda: wait_converged(admin, namespace, "web"),
            "the first convergence, before the experiment",
        )
    dep = get_present(admin, "deployments", namespace, "web")
    server = next(c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] == "server")
    stored: dict[str, Any] = server.get("resources") or {}
    evidence.record("stored_resources", stored)
    return op, stored


@pytest.mark.modeldock_check("noop-stable", case="exponent-spelling")
def test_noop_stable_exponent_spelling(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """A child's quantity is the text the API server stores for the user's spelling, byte for byte.

    The API server keeps the format a quantity was written in (an exponent stays an exponent)
    and rounds it up to a thousandth without changing that format: given 1e-4 it stores 1e-3,
    given 15e-4 it stores 2e-3, where an operator that rounds into millis writes 1m and 2m.
    Equal by value, so neither writes again; but two implementations of one contract then
    leave different Deployments, and the bytes depend on which one wrote last. Here the
    ModelService's resources are spelled with exponents (EXPONENT_SPELLINGS), the API server
    itself says what it stores for them (a dry-run create of a Deployment with the same
    resources, read back: a premise that it rewrote at least one), and the ModelService must
    converge (the API server took the resources, so never converging is the operator's
    failure, as for 0.125, a fraction an exponent guard may misread) with a Deployment that
    carries exactly that. Then the window of noop-stable: a restart and two
    unrelated annotations must bring no write, also for 1000E, which the API server stores as
    "1": an operator that compares with the spelled value instead of the stored text's
    writes it again on every reconcile.
    """
    resources = EXPONENT_SPELLINGS
    evidence.record("resources", resources)
    expected = stored_by_the_api_server(admin, namespace, resources)
    evidence.record("api_server_stores", expected)
    premise(
        expected != resources,
        f"the API server stored every quantity as spelled, nothing to judge: {expected}",
    )
    set_up_from = audit.offset()
    # The API server took these resources in a Deployment (the dry run): a ModelService that
    # carries them and never converges is the operator's failure, not an unmet premise.
    op, stored = converged_resources(admin, namespace, operators, evidence, resources, judged=True)
    assert stored == expected, (
        f"the Deployment's resources are {stored}, the API server stores {expected} for the "
        f"ModelService's {resources}: the operator wrote another text of the same value "
        "(CONTRACT.md, Desired Deployment, Quantities)"
    )
    assert_quiet_window(op, admin, namespace, audit, evidence, impl, tier, set_up_from)


#: noop-stable[exponent-spelling]'s resources: exponent spellings (apimachinery's
#: DecimalExponent format) the API server rounds up to a thousandth and keeps as exponents
#: (1e-4 -> 1e-3, 15e-4 -> 2e-3), two it only writes otherwise (5e8 -> 500e6, 1E99 as is), and
#: 1000E (E the exa suffix: 10^21), which apimachinery writes with no suffix at all, "1", so
#: the stored value is not the spelled one, and 0.125 (stored 125m), a fraction of three
#: digits that an exponent guard reading any final digits as an exponent refuses as beyond 99
#: (mutants fraction-as-exponent, fraction-as-exponent-go). The memory limit 1E99 has the
#: largest exponent the CRD's pattern admits (two digits) and the API server stores it as
#: spelled: a guard that refuses two-digit exponents, or 99 itself, never converges (mutants
#: two-digit-exponent, two-digit-exponent-go). Limits above requests, so the Deployment is
#: valid.
EXPONENT_SPELLINGS: dict[str, dict[str, str]] = {
    "requests": {"cpu": "1e-4", "memory": "5e8", "ephemeral-storage": "0.125"},
    "limits": {"cpu": "15e-4", "memory": "1E99", "ephemeral-storage": "1000E"},
}


def stored_by_the_api_server(
    admin: Kube, namespace: str, resources: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """The container resources the API server stores when it is given ``resources`` (limits
    and requests: resource name -> quantity text) in a Deployment: a server-side dry run
    (``dryRun=All``) of a Deployment in ``namespace`` whose one container has them, read back
    from the answer; nothing is stored. Raises ApiException if the API server refuses it."""
    labels = {"modeldock.io/probe": "quantities"}
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "quantity-probe"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "x", "resources": resources}]},
            },
        },
    }
    answer = admin.request(
        "POST", Kube.path("deployments", namespace), body, query=[("dryRun", "All")]
    )
    container = answer["spec"]["template"]["spec"]["containers"][0]
    return dict(container.get("resources") or {})


#: noop-stable[respelled]'s resources: requests only (no limits: an absent field must not stop
#: the others from being compared), a CPU request given as a JSON integer (the CRD's
#: int-or-string keeps it an integer in the ModelService) and a memory request in exponent
#: form, which the API server stores in the Deployment as 500e6. RESPELLED_MEMORY is the same
#: value spelled as an integer, for which a fresh Deployment would get 500M.
RESPELLED_RESOURCES: dict[str, dict[str, Any]] = {"requests": {"cpu": 1, "memory": "5e8"}}
RESPELLED_MEMORY = 500000000
#: What the API server stores for RESPELLED_RESOURCES' memory request (quantity-spellings.json).
RESPELLED_STORED = "500e6"


@pytest.mark.modeldock_check("noop-stable", case="respelled")
def test_noop_stable_respelled(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """A new spelling of an equal value is not a change: a ModelService respelled writes no child.

    Quantities compare by value (CONTRACT.md, "Desired Deployment", Quantities): the Deployment
    keeps the text it has until the value changes. Here the ModelService asks for a CPU
    request given as a JSON integer (the CRD admits integers and strings, and the ModelService
    keeps the integer) and a memory request of 5e8, with no limits; the API server took both,
    so it must converge (an operator that reads only strings never does), and the Deployment
    holds 500e6. Then the user respells the memory request as the integer 500000000, the same
    value, for which a fresh Deployment would get 500M: the operator records the new generation
    in the status and must write neither child (an operator that compares the texts, or that
    stops comparing at the missing limits, updates the Deployment to 500M). Then the window of
    noop-stable: a restart and two unrelated annotations must bring no write.
    """
    evidence.record("resources", RESPELLED_RESOURCES)
    set_up_from = audit.offset()
    # The API server admits these resources (the CRD's int-or-string, and Deployments take
    # them): never converging is the operator's failure, not an unmet premise.
    op, stored = converged_resources(
        admin, namespace, operators, evidence, RESPELLED_RESOURCES, judged=True
    )
    premise(
        stored.get("requests", {}).get("memory") == RESPELLED_STORED,
        f"the API server should store the memory request 5e8 as {RESPELLED_STORED}: {stored}",
    )

    def respell() -> dict[str, Any]:
        admin.patch(
            "modelservices",
            namespace,
            "web",
            {"spec": {"resources": {"requests": {"memory": RESPELLED_MEMORY}}}},
        )
        return wait_observed(admin, namespace, "web", 2)

    window = writes_during(op, audit, admin, namespace, respell, ok_only=True)
    child_writes = [r.describe() for r in window.writes if r.resource in CHILDREN]
    dep = get_present(admin, "deployments", namespace, "web")
    server = next(c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] == "server")
    evidence.record("child_writes_after_respelling", child_writes)
    evidence.record("resources_after_respelling", server.get("resources"))
    assert child_writes == [], (
        f"the ModelService's memory request was respelled 5e8 -> {RESPELLED_MEMORY}, an equal "
        f"value, and the operator wrote: {child_writes} (CONTRACT.md, Desired Deployment, "
        "Quantities: a new spelling of an equal value is not a change)"
    )
    # The Deployment's text, not its resourceVersion: where a deployment controller runs it
    # writes the Deployment's status meanwhile (the existing and sim tiers).
    assert (server.get("resources") or {}) == stored, (
        f"the Deployment's resources changed from {stored} to {server.get('resources')} after "
        "an equal respelling: the stored text stays until the value changes"
    )
    assert_quiet_window(op, admin, namespace, audit, evidence, impl, tier, set_up_from)


#: noop-stable[long-quiet]'s window in CI, seconds: longer than one period of a 20 s
#: heartbeat or resync that writes (mutants heartbeat, heartbeat-go), so such a write falls in
#: it whatever the phase; the full suite's window (``--full``) is LONG_QUIET_FULL.
LONG_QUIET_CI = 30.0

#: noop-stable[long-quiet, minutes]'s window, seconds (``modeldock_slow``: only with ``--full``): a
#: timer of up to five minutes that writes (a periodic resync with a write) falls in it.
LONG_QUIET_FULL = 330.0


@pytest.mark.modeldock_check("noop-stable", case="long-quiet")
def test_noop_stable_long_quiet(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """An operator with nothing to do stays quiet for longer than any short window.

    The other windows of noop-stable end PROXY_QUIET seconds after the operator's last
    request, so a write on a timer (a heartbeat every 20 s, a requeue that writes every 30 s)
    falls outside all of them. Here the ModelService converges, the operator goes quiet, and
    then nothing changes for LONG_QUIET_CI seconds: its API proxy must see no request of it in
    that time but watches (re-opened on the client's own timeout) and Leases. It bounds the
    period of such a timer from below: one shorter than the window fails, one longer passes
    (the full suite's case, LONG_QUIET_FULL, covers up to five minutes).
    """
    assert_long_quiet(admin, namespace, operators, evidence, LONG_QUIET_CI)


@pytest.mark.modeldock_slow
@pytest.mark.modeldock_check("noop-stable", case="long-quiet-minutes")
def test_noop_stable_long_quiet_minutes(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """noop-stable[long-quiet] with a window of LONG_QUIET_FULL seconds (five and a half
    minutes): an operator whose timer writes less often than every 30 s, but at least every
    five minutes (a periodic resync that writes a status), fails here."""
    assert_long_quiet(admin, namespace, operators, evidence, LONG_QUIET_FULL)


def assert_long_quiet(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    window: float,
) -> None:
    """Converge the ModelService ``web``, let the operator settle, then wait ``window``
    seconds with nothing changing: AssertionError listing the requests other than watches and
    Leases that the operator's API proxy saw in that time (``operators.accounting``)."""
    op = operators.start()
    create_modelservice(admin, namespace, "web")
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    wait_settled(op)
    accounting = operators.accounting
    start = accounting.sync()
    time.sleep(window)  # the experiment's length: nothing may happen in it
    end = accounting.sync()
    seen = [
        r
        for r in accounting.requests(start, end)
        if r.verb not in QUIET_IGNORED_VERBS and r.resource not in QUIET_IGNORED_RESOURCES
    ]
    evidence.record("window_s", window)
    evidence.record("requests_in_window", [r.describe() for r in seen])
    assert seen == [], (
        f"the operator made {len(seen)} requests in {window:g}s with nothing changed: "
        f"{[r.describe() for r in seen][:10]}"
    )


#: The seed of noop-stable[rewritten-values]'s spellings: fixed, so that every implementation
#: and every run is judged on the same input (the evidence records it).
REWRITTEN_VALUES_SEED = 22


def rewritten_resources(rng: random.Random) -> dict[str, dict[str, str]]:
    """Container resources whose every quantity is a spelling the API server stores otherwise,
    drawn with ``rng``: a CPU request it rounds up to 2m (``rounded_spellings``), a memory
    request of 512Mi and limits of 1.5 CPU and 1Gi in non-canonical spellings
    (``quantity_spellings``; limits above requests, so the Deployment is valid)."""
    return {
        "requests": {
            "cpu": rng.choice(rounded_spellings(2)),
            "memory": rng.choice(["0.5Gi", "536870912", "524288Ki", "0.5e9"]),
        },
        "limits": {
            "cpu": rng.choice(quantity_spellings(1500)),
            "memory": rng.choice(["1024Mi", "1073741824", "1048576Ki", "1e9"]),
        },
    }


def quantity_spellings(millis: int) -> list[str]:
    """Spellings of ``millis`` thousandths that the CRD's quantity pattern admits and the API
    server stores in another form (``<millis>m``, or a whole number): decimal, exponent, micro
    and nano suffixes."""
    whole, frac = divmod(millis, 1000)
    return [f"{whole}.{frac:03d}", f"{millis}e-3", f"{millis * 1000}u", f"{millis * 1000000}n"]


def rounded_spellings(millis: int) -> list[str]:
    """Values the CRD's quantity pattern admits that lie between ``millis - 1`` and ``millis``
    thousandths, which the API server rounds up to ``millis`` when it stores them
    (SetDefaults_ResourceList: RoundUp to milli). ``millis`` must be at least 1."""
    below = millis - 1
    return [f"{below}.5m", f"{below * 1000 + 1}u", f"{below + 0.1:g}e-3", f"{below}.0001m"]


def assert_quiet_window(
    op: OperatorProcess,
    admin: Kube,
    namespace: str,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
    set_up_from: int,
) -> None:
    """noop-stable's window, on the converged ModelService ``web``: a restart of ``op`` and two
    unrelated annotations (on the ModelService, on the Deployment) must bring no successful
    write of ``impl``'s user (Events included), reconciles must have run, and the children's
    resourceVersions must not move. Raises AssertionError saying what was written.

    The evidence keeps the judged writes and the set-up's apart: ``successful_writes`` (and
    ``operator_writes_in_window``) are the window's, the only ones judged;
    ``set_up_writes_not_judged`` counts the successful writes of the first convergence, from
    ``set_up_from`` (the accounting's marker taken before the operator started) to the window's
    opening. The request count of the report's summary is the whole check's, so it holds both."""
    wait_rolled_out(admin, namespace, "web", tier)  # sim: the rollout's status writes first
    wait_settled(op)
    # Events are written in the background: the ones of the first convergence before the window.
    events_before = _event_counts(wait_events_settled(admin, namespace))
    svc_rv = get_present(admin, "services", namespace, "web")["metadata"]["resourceVersion"]

    def restart() -> None:
        # 1. Restart: the new process lists everything and reconciles it.
        op.terminate()
        op.start()

    window = writes_during(
        op,
        audit,
        admin,
        namespace,
        restart,
        # 2. An unrelated annotation on the ModelService: an update event, nothing to do.
        lambda: admin.patch(
            "modelservices",
            namespace,
            "web",
            {"metadata": {"annotations": {"example.com/note": "x"}}},
        ),
        # 3. An unrelated annotation on the Deployment: a child event mapped to the parent (a
        # label where a deployment controller runs: there an annotation bumps the generation,
        # a rollout).
        lambda: admin.patch(
            "deployments",
            namespace,
            "web",
            {"metadata": {unrelated_metadata(tier): {"example.com/note": "y"}}},
        ),
        # ... and any Event a reconcile of the window recorded, in the window.
        settle_events=True,
    )
    # The restarted operator reconciled (writes_during waited for its count to pass 0): the
    # count is its own word, a premise; the oracle is the request accounting below.
    evidence.premise("reconciles_after_restart", window.reconciles[0])
    dep_rv = window.results[2]["metadata"]["resourceVersion"]
    events_after = _event_counts(window.events or [])

    evidence.record("operator_writes_in_window", summarize(window.writes))
    successful = window.described(ok_only=True)
    evidence.record("successful_writes", len(successful))
    set_up_writes = select(
        audit.requests(set_up_from, window.opened),
        user=impl.user,
        namespace=namespace,
        writes_only=True,
        ok_only=True,
    )
    evidence.record("set_up_writes_not_judged", len(set_up_writes))
    event_writes = [r.describe() for r in window.writes if r.resource == "events"]
    evidence.record("event_writes_in_window", event_writes)
    evidence.record("events", {"before": events_before, "after": events_after})
    dep_after = get_present(admin, "deployments", namespace, "web")["metadata"]["resourceVersion"]
    svc_after = get_present(admin, "services", namespace, "web")["metadata"]["resourceVersion"]
    evidence.record("deployment_resourceVersion", {"before": dep_rv, "after": dep_after})
    evidence.record("service_resourceVersion", {"before": svc_rv, "after": svc_after})
    assert successful == [], f"operator {impl.user} wrote while nothing changed: {successful}"
    assert events_after == events_before, (
        f"Events recorded while nothing changed (Event writes are writes): {events_before} -> "
        f"{events_after}"
    )
    assert dep_after == dep_rv, f"Deployment resourceVersion moved {dep_rv} -> {dep_after}"
    assert svc_after == svc_rv, f"Service resourceVersion moved {svc_rv} -> {svc_after}"


def _event_counts(events: list[dict[str, Any]]) -> dict[str, int]:
    """``{"<reason> <message>": count}`` of the Events in a namespace."""
    return {f"{e.get('reason')} {e.get('message')}": int(e.get("count") or 1) for e in events}


#: What the deployment controller says when it gives up on a rollout (played by
#: progressing-without-kubelet: envtest has no deployment controller).
DEADLINE_MESSAGE = 'ReplicaSet "web-0" has timed out progressing.'


def _child_uids(admin: Kube, namespace: str) -> dict[str, str]:
    """The UIDs of ModelService web's Deployment and Service, by resource."""
    return {r: get_present(admin, r, namespace, "web")["metadata"]["uid"] for r in CHILDREN}


def _play_deployment_status(
    admin: Kube, namespace: str, fields: dict[str, Any], conditions: list[dict[str, Any]]
) -> datetime.datetime:
    """Write Deployment web's status as the deployment controller would: through the status
    subresource, observedGeneration = its generation, with ``fields`` and ``conditions``.
    Returns when the API server took the write, as a datetime (UTC, whole seconds): the time
    of the status subresource's entry in the answer's managedFields, the API server's clock."""
    dep = get_present(admin, "deployments", namespace, "web")
    dep["status"] = {
        "observedGeneration": dep["metadata"]["generation"],
        **fields,
        "conditions": conditions,
    }
    written = admin.update("deployments", dep, subresource="status")
    times = [
        m["time"]
        for m in written["metadata"].get("managedFields") or []
        if m.get("subresource") == "status" and m.get("time")
    ]
    premise(times != [], f"the Deployment's status write left no managedFields time: {written}")
    return max(_instant(t) for t in times)


def _instant(stamp: str) -> datetime.datetime:
    """An RFC 3339 time (``2026-01-02T03:04:05Z``, fractions and offsets allowed) as an aware
    datetime."""
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


@pytest.mark.modeldock_needs("no-kubelet", "no-deployment-controller")
@pytest.mark.modeldock_check("progressing-without-kubelet")
def test_progressing_without_kubelet(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """Without a kubelet no pod ever becomes available: status must say Progressing, not Ready,
    and a condition's lastTransitionTime must not move while its status does not change.

    Conditions are how users and other controllers learn what happened. Claiming Ready before
    replicas are available misleads them; rewriting lastTransitionTime on every reconcile
    destroys the one fact it exists to keep (since when has this been so?) and turns every
    reconcile into a status write. Here the ModelService is reconciled again several times,
    including after a spec change (generation 2) that leaves the conditions' status as it was
    and whose status write the operator's API proxy answers 409 (stale: recomputed from a
    fresh read, never taken for a ModelService gone, whose children would go); the
    ModelService exists before the operator starts, so its first list must bring it. Then
    another client writes Ready's lastTransitionTime as the same instant with fractional
    seconds and an offset (a legal date-time), and the next reconcile must leave it as written:
    an operator that re-encodes its stored conditions rewrites a time nobody changed. Last, the
    check plays the deployment controller (envtest has none): one of the 2 replicas created,
    none available, then the progress deadline exceeded. The first changes the conditions'
    message alone, which must name the Deployment's 2 replicas, not the default 1 (and a spec
    change after it changes the message alone back to waiting for the deployment
    controller); the second
    changes Ready's reason alone (False, ProgressDeadlineExceeded), which must be written while
    Ready's lastTransitionTime stays as it was: a condition is more than its status. It also
    turns Progressing from True to False, and Progressing's lastTransitionTime must then move
    to that transition, no earlier than the API server took the stalled Deployment status (its
    managedFields time): an operator that keeps a stored time whatever the status says answers
    "since when?" with the time of another state.
    """
    # Created before the operator starts: found by its first list, not by a watch event.
    create_modelservice(admin, namespace, "web")
    proxy = operators.api_proxy()
    op = operators.start(api_proxy=proxy)
    msvc = wait_converged(admin, namespace, "web")
    children = _child_uids(admin, namespace)
    ready, progressing = condition(msvc, "Ready"), condition(msvc, "Progressing")
    evidence.record("conditions_first", [ready, progressing])
    assert ready and ready["status"] == "False" and ready["reason"] == "ReplicasUnavailable", ready
    assert (
        progressing
        and progressing["status"] == "True"
        and progressing["reason"] == "RolloutInProgress"
    ), progressing

    count = wait_settled(op)
    admin.patch(
        "modelservices", namespace, "web", {"metadata": {"annotations": {"example.com/a": "1"}}}
    )
    wait_reconciled_past(op, count)
    # The status write of the spec change meets a 409 (the API proxy answers it): a stale
    # write, to be recomputed from a fresh read; never taken for a ModelService gone.
    proxy.inject_write_error(1, 409, resources=["modelservices"])
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    wait_observed(admin, namespace, "web", 2)
    wait_settled(op)
    fired = [f for f in proxy.faults()["write_faults"] if f.get("fired")]
    premise(fired != [], "the API proxy should have answered the status write with 409")
    after_conflict = _child_uids(admin, namespace)
    evidence.record("child_uids_across_status_conflict", [children, after_conflict])
    assert after_conflict == children, (
        f"a 409 on the status write replaced the children of a live ModelService (UIDs "
        f"{children} -> {after_conflict}): a conflict is not a NotFound"
    )
    msvc2 = get_present(admin, "modelservices", namespace, "web")
    ready2, progressing2 = condition(msvc2, "Ready"), condition(msvc2, "Progressing")
    evidence.record("conditions_after", [ready2, progressing2])
    assert ready2 and progressing2
    assert (ready2["status"], progressing2["status"]) == ("False", "True")
    assert ready2["lastTransitionTime"] == ready["lastTransitionTime"], (
        f"Ready.lastTransitionTime moved without a status change: {ready} -> {ready2}"
    )
    assert progressing2["lastTransitionTime"] == progressing["lastTransitionTime"], (
        f"Progressing.lastTransitionTime moved without a status change: {progressing} -> {progressing2}"
    )
    assert ready2.get("observedGeneration") == 2 and progressing2.get("observedGeneration") == 2, (
        "conditions must carry the generation they describe"
    )

    # The same instant, spelled by another client: fractional seconds and an offset.
    instant = datetime.datetime.fromisoformat(ready2["lastTransitionTime"].replace("Z", "+00:00"))
    respelled = instant.astimezone(datetime.timezone(datetime.timedelta(hours=1))).isoformat(
        timespec="milliseconds"
    )
    msvc2["status"]["conditions"] = [
        {**c, "lastTransitionTime": respelled} if c["type"] == "Ready" else c
        for c in msvc2["status"]["conditions"]
    ]
    stored = admin.update("modelservices", msvc2, subresource="status")
    premise(
        (condition(stored, "Ready") or {}).get("lastTransitionTime") == respelled,
        f"the API server should store the time as written: {condition(stored, 'Ready')}",
    )
    count = wait_settled(op)
    admin.patch(
        "modelservices", namespace, "web", {"metadata": {"annotations": {"example.com/b": "1"}}}
    )
    wait_reconciled_past(op, count)
    wait_settled(op)
    ready3 = condition(get_present(admin, "modelservices", namespace, "web"), "Ready")
    evidence.record("ready_after_respelling", ready3)
    assert ready3 and ready3["lastTransitionTime"] == respelled, (
        f"Ready.lastTransitionTime was rewritten though its status did not change: written "
        f"{respelled!r} by another client, now {ready3 and ready3['lastTransitionTime']!r}"
    )

    # The deployment controller, played: one replica of the two created, none available. Only
    # the message changes, and it counts against the Deployment's spec.replicas (2).
    waiting = (condition(msvc2, "Progressing") or {}).get("message")
    _play_deployment_status(admin, namespace, {"replicas": 1, "updatedReplicas": 1}, [])
    scaling = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (condition(m, "Progressing") or {}).get("message") != waiting,
        CONVERGE_TIMEOUT,
        "the conditions' message to follow the Deployment's status (1 of 2 replicas updated)",
    )
    want = 'Deployment "web" has 1/2 updated replicas'
    got = [
        (condition(scaling, t) or {}).get(k)
        for t in ("Ready", "Progressing")
        for k in ("status", "reason", "message")
    ]
    evidence.record("conditions_while_scaling", got)
    assert got == ["False", "ReplicasUnavailable", want, "True", "RolloutInProgress", want], (
        f"with 1 of the Deployment's 2 replicas updated, Ready and Progressing must say "
        f"{want!r}; got {got}"
    )

    # A spec change the deployment controller has not observed yet: the message alone changes
    # again, back to waiting (a change of the message is written whichever way it sorts).
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 3}})
    rescaled = wait_observed(admin, namespace, "web", 3)
    want = 'Deployment "web" is waiting for the deployment controller to observe its latest spec'
    got = [(condition(rescaled, t) or {}).get("message") for t in ("Ready", "Progressing")]
    evidence.record("messages_after_rescale", got)
    assert got == [want, want], (
        f"the Deployment's new generation is not observed yet: both conditions must say {want!r}; "
        f"got {got}"
    )

    # The progress deadline exceeded: Ready stays False with another reason (a change of the
    # reason alone), Progressing turns False; Ready's lastTransitionTime does not move, and
    # Progressing's moves to the transition: no earlier than the stalled status was written.
    progressing_since = _instant(progressing2["lastTransitionTime"])
    stalled_at = _play_deployment_status(
        admin,
        namespace,
        {"replicas": 1, "updatedReplicas": 1},
        [
            {
                "type": "Progressing",
                "status": "False",
                "reason": "ProgressDeadlineExceeded",
                "message": DEADLINE_MESSAGE,
                "lastUpdateTime": ready2["lastTransitionTime"],
                "lastTransitionTime": ready2["lastTransitionTime"],
            }
        ],
    )
    stalled = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (condition(m, "Progressing") or {}).get("status") == "False",
        CONVERGE_TIMEOUT,
        "Progressing to turn False once the Deployment exceeded its progress deadline",
    )
    ready4 = condition(stalled, "Ready") or {}
    evidence.record("ready_after_deadline", ready4)
    want = f'Deployment "web" exceeded its progress deadline: {DEADLINE_MESSAGE}'
    assert (ready4.get("status"), ready4.get("reason"), ready4.get("message")) == (
        "False",
        "ProgressDeadlineExceeded",
        want,
    ), (
        f"Ready's reason and message must follow the stalled rollout though its status stays False: {ready4}"
    )
    assert ready4.get("lastTransitionTime") == respelled, (
        f"Ready.lastTransitionTime moved though its status stayed False: {ready4}"
    )
    progressing4 = condition(stalled, "Progressing") or {}
    evidence.record(
        "progressing_after_deadline",
        {
            "before": progressing2["lastTransitionTime"],
            "stalled_written_at": stalled_at.isoformat(),
            "after": progressing4.get("lastTransitionTime"),
        },
    )
    premise(
        progressing_since < stalled_at,
        f"Progressing turned True at {progressing_since}, not before the stalled status was "
        f"written at {stalled_at}: a kept lastTransitionTime could not be told from a new one",
    )
    moved = progressing4.get("lastTransitionTime")
    assert moved and _instant(moved) >= stalled_at, (
        f"Progressing went from True to False, so its lastTransitionTime must be the time of "
        f"that transition, no earlier than the Deployment's stalled status ({stalled_at}); it "
        f"is {moved!r}, kept from before (it was {progressing2['lastTransitionTime']!r})"
    )


@pytest.mark.modeldock_check("stale-update-conflict")
def test_stale_update_conflict(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """An update based on an old resourceVersion is refused with 409 Conflict, and a controller
    that knows only the object's key still converges to the newest spec.

    Kubernetes uses optimistic concurrency: every write names the resourceVersion it was based
    on, and the API server refuses it if the object changed since. A controller must treat 409
    as "my view is stale": requeue and recompute from a fresh read, never resend the rejected
    object (that would overwrite someone else's change, or loop forever). Here a stale copy is
    held while a fresh copy sets replicas to 2; the stale write must fail; then a fresh operator
    process, given nothing but the key through its watch, must converge the Deployment to 2.
    The 409 here is the API server's (an admin write while the operator is stopped): a premise
    of the lesson, not the operator's proof; `[operator-409]` makes the operator's own write
    stale.
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web", replicas=1)
    set_up(lambda: wait_converged(admin, namespace, "web"), "converging before the stale write")
    op.terminate()

    stale = get_present(admin, "modelservices", namespace, "web")
    fresh = get_present(admin, "modelservices", namespace, "web")
    fresh["spec"]["replicas"] = 2
    updated = admin.update("modelservices", fresh)
    evidence.premise(
        "resourceVersions",
        {
            "stale": stale["metadata"]["resourceVersion"],
            "fresh": updated["metadata"]["resourceVersion"],
        },
    )
    stale["spec"]["replicas"] = 5
    status = status_of(lambda: admin.update("modelservices", stale))
    evidence.premise("stale_update_status", status)
    premise(
        status == 409,
        f"the API server must refuse an update based on an old "
        f"resourceVersion with 409 Conflict; it answered {status}",
    )

    operators.start()
    dep = wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["spec"].get("replicas") == 2,
        CONVERGE_TIMEOUT,
        "Deployment replicas to converge to 2",
    )
    evidence.record("deployment_replicas", dep["spec"]["replicas"])
    wait_converged(admin, namespace, "web")


@pytest.mark.modeldock_check("restart-reconverges")
def test_restart_reconverges(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """A controller killed between two writes finishes the job from the state of the world,
    not from a remembered intent.

    The operator is killed right after it wrote the Deployment and before the Service (crash
    point after-deployment, exit code 86). While it is down, replicas change to 2. A
    level-triggered controller restarts, lists what exists, and computes the difference: it
    keeps the Deployment it made (same UID) and sets replicas to 2, creates the one missing
    Service, and creates nothing twice. Replaying the intent it had when it died ("create a
    Deployment with 1 replica") would be wrong twice over.
    """
    op = operators.start(crash_at="after-deployment")
    create_modelservice(admin, namespace, "web", replicas=1)
    code = op.wait_exit(CONVERGE_TIMEOUT)
    evidence.record("crash_exit_code", code)
    assert code == CRASH_EXIT_CODE, (
        f"expected exit code {CRASH_EXIT_CODE} at the crash point, got {code}"
    )
    dep = admin.get("deployments", namespace, "web")
    assert dep is not None, "the Deployment should have been written before the crash point"
    assert admin.get("services", namespace, "web") is None, (
        "the Service must not exist yet: the crash point is before it"
    )
    uid = dep["metadata"]["uid"]
    evidence.record("deployment_uid_before", uid)

    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    op.start()
    wait_converged(admin, namespace, "web")
    deps = admin.list("deployments", namespace)
    svcs = admin.list("services", namespace)
    evidence.record("deployment_uid_after", [d["metadata"]["uid"] for d in deps])
    evidence.record("counts", {"deployments": len(deps), "services": len(svcs)})
    assert len(deps) == 1 and deps[0]["metadata"]["uid"] == uid, (
        f"expected the same Deployment {uid}, found {[d['metadata']['uid'] for d in deps]}"
    )
    # Replicas 2 and observedGeneration = generation: wait_converged saw both. One Service
    # more than it checks (it reads the one named web).
    assert len(svcs) == 1, f"expected one Service, found {[s['metadata']['name'] for s in svcs]}"


@pytest.mark.modeldock_check("restart-reconverges", case="after-finalizer")
def test_restart_after_finalizer(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """restart-reconverges[after-finalizer]: the operator is killed right after its finalizer
    write succeeded (crash point after-finalizer), before anything else.

    The finalizer is the operator's promise that a deletion waits for its cleanup, so it must
    be in place before the first child exists: at this crash point the ModelService carries
    the finalizer and no Deployment or Service exists yet. While the operator is down replicas
    change to 2; restarted, it finds the finalizer already there (no second finalizer write)
    and creates exactly one Deployment, with 2 replicas, and one Service.
    """
    op = operators.start(crash_at="after-finalizer")
    create_modelservice(admin, namespace, "web", replicas=1)
    code = op.wait_exit(CONVERGE_TIMEOUT)
    evidence.record("crash_exit_code", code)
    assert code == CRASH_EXIT_CODE, (
        f"expected exit code {CRASH_EXIT_CODE} at the crash point, got {code}"
    )
    at_crash = {
        "finalizers": get_present(admin, "modelservices", namespace, "web")["metadata"].get(
            "finalizers"
        )
        or [],
        "deployments": [d["metadata"]["name"] for d in admin.list("deployments", namespace)],
        "services": [s["metadata"]["name"] for s in admin.list("services", namespace)],
    }
    evidence.record("at_crash", at_crash)
    assert FINALIZER in at_crash["finalizers"], (
        f"crash point after-finalizer reached, but the finalizer is not stored: {at_crash}"
    )
    assert not at_crash["deployments"] and not at_crash["services"], (
        f"children exist at the after-finalizer crash point ({at_crash}): the finalizer must "
        "be in place before any child is created"
    )

    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    start = audit.sync(admin)
    op.start()
    msvc = wait_converged(admin, namespace, "web")
    wait_settled(op)
    end = audit.sync(admin)
    writes = select(
        audit.requests(start, end),
        user=impl.user,
        namespace=namespace,
        writes_only=True,
        ok_only=True,
    )
    evidence.record("writes_after_restart", [r.describe() for r in writes])
    deps = admin.list("deployments", namespace)
    svcs = admin.list("services", namespace)
    evidence.record("counts", {"deployments": len(deps), "services": len(svcs)})
    # Its replicas (2) wait_converged saw; that it is the only Deployment, it did not.
    assert len(deps) == 1, f"expected one Deployment, found {[d['metadata']['name'] for d in deps]}"
    assert len(svcs) == 1, f"expected one Service, found {len(svcs)}"
    assert msvc["metadata"].get("finalizers") == [FINALIZER], msvc["metadata"].get("finalizers")
    assert finalizer_write_index(writes) is None, (
        "the finalizer was already stored, yet the restarted operator wrote the ModelService "
        f"again: {[r.describe() for r in writes]}"
    )


#: Seconds the API proxy holds the operator's first write: time for the check to see it held
#: and change the object under it, on a loaded machine.
WRITE_HOLD_S = 3.0


def _writes_of(stats: dict[str, Any], resource: str, name: str) -> list[dict[str, Any]]:
    """The API proxy's records of writes to one object (any subresource), in the order their
    answers came back."""
    return [
        r
        for r in stats["recent"]
        if r["resource"] == resource
        and r["name"] == name
        and r["verb"] in ("create", "update", "patch", "delete")
    ]


def _rv(record: dict[str, Any]) -> int | None:
    """A record's resourceVersion as a number (one etcd: revisions compare), or None."""
    try:
        return int(record["resource_version"])
    except (KeyError, TypeError, ValueError):
        return None


@pytest.mark.modeldock_check("stale-update-conflict", case="operator-409")
def test_operator_conflict_is_recomputed(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    control_plane: ControlPlane,
    tmp_path: Path,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """stale-update-conflict[operator-409]: the operator's own write is made stale on purpose,
    so the API server refuses it with 409, and the operator must recompute from a fresh read
    rather than resend the rejected object.

    The operator talks to the API server through the harness's API proxy, which holds the
    operator's first write (the finalizer Update of the new ModelService) for a few seconds
    before forwarding it. While it is held, the ModelService is changed directly; the write
    then arrives with an old resourceVersion and gets 409 Conflict. Exactly one write may carry
    that rejected resourceVersion, and the operator's next write of the ModelService must be
    based on a read that saw the change: a resourceVersion at least the change's. A controller
    that resends the rejected object, once or in a loop, fails; so does one that never writes
    again.
    """
    # The operator's own API proxy (the one its requests are accounted through) holds the write.
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        set_up(lambda: wait_settled(op), "settling before the write is held")
        proxy.delay_writes(WRITE_HOLD_S, count=1)
        create_modelservice(admin, namespace, "web", replicas=1)
        first = proxy.wait_stats(
            lambda s: s["writes_holding"] == 1,
            REACT_TIMEOUT,
            "the operator's first write (held by the API proxy)",
        )
        premise(first["writes_held"] == 1, "the proxy should hold exactly one write")
        changed = admin.patch(
            "modelservices",
            namespace,
            "web",
            {"metadata": {"annotations": {"example.com/changed": "meanwhile"}}},
        )
        changed_rv = int(changed["metadata"]["resourceVersion"])
        evidence.record("changed_at_resourceVersion", changed_rv)
        stats = proxy.wait_stats(
            lambda s: any(r["held_ms"] > 0 for r in s["recent"]),
            WRITE_HOLD_S + REACT_TIMEOUT,
            "the held write to be answered",
            premise=True,
        )
        held = next(r for r in stats["recent"] if r["held_ms"] > 0)
        evidence.record(
            "held_write",
            {
                k: held[k]
                for k in (
                    "verb",
                    "resource",
                    "subresource",
                    "name",
                    "resource_version",
                    "code",
                    "held_ms",
                )
            },
        )
        premise(
            held["resource"] == "modelservices"
            and held["name"] == "web"
            and held["code"] == 409
            and bool(held["resource_version"]),
            f"the operator's held first write should be a write of ModelService web refused "
            f"with 409 (the object changed while it was held); it was {held}",
        )
        rejected = held["resource_version"]

        def after_held(s: dict[str, Any]) -> list[dict[str, Any]]:
            writes = _writes_of(s, "modelservices", "web")
            for i, w in enumerate(writes):
                if w["held_ms"] > 0:
                    return writes[i + 1 :]
            return []

        stats = proxy.wait_stats(
            lambda s: bool(after_held(s)),
            REACT_TIMEOUT,
            "the operator to write ModelService web again after the 409",
        )
        writes = _writes_of(stats, "modelservices", "web")
        nxt = after_held(stats)[0]
        evidence.record(
            "operator_writes",
            [
                f"{w['verb']} {w['resource']}{'/' + w['subresource'] if w['subresource'] else ''} "
                f"rv={w['resource_version'] or '-'} -> {w['code']}"
                for w in writes
            ],
        )
        resent = [w for w in writes if w["resource_version"] == rejected]
        assert len(resent) == 1, (
            f"the rejected object (resourceVersion {rejected}) was sent {len(resent)} times: "
            f"after a 409 the operator must re-read and recompute, not resend it"
        )
        nxt_rv = _rv(nxt)
        assert nxt_rv is not None and nxt_rv >= changed_rv, (
            f"the operator's next write of ModelService web after the 409 ({nxt['verb']} "
            f"{nxt['subresource']}, resourceVersion {nxt['resource_version'] or 'none'}) must "
            f"be based on a fresh read, one that saw the change at {changed_rv}"
        )
        msvc = wait_converged(admin, namespace, "web")
        writes = _writes_of(proxy.stats(), "modelservices", "web")
    evidence.record("conflicts", sum(w["code"] == 409 for w in writes))
    assert sum(w["resource_version"] == rejected for w in writes) == 1, (
        f"the rejected object (resourceVersion {rejected}) was resent later"
    )
    assert msvc["metadata"].get("annotations", {}).get("example.com/changed") == "meanwhile"


#: A condition another controller owns, as it would write it. The fractional seconds are
#: legal (the CRD says format date-time) and would not survive a typed round trip through
#: metav1.Time, so an operator that re-encodes conditions it does not own changes them.
AUDITED = {
    "type": "Audited",
    "status": "True",
    "reason": "Checked",
    "message": "reviewed by the audit controller",
    "observedGeneration": 1,
    "lastTransitionTime": "2026-01-02T03:04:05.250Z",
}

#: A second foreign condition, stored after ours: a merge that stops at the first condition of
#: its own loses what follows it (AUDITED, stored first, cannot show that).
SCALED = {
    "type": "Scaled",
    "status": "False",
    "reason": "Paused",
    "message": "autoscaling paused by the platform team",
    "observedGeneration": 1,
    "lastTransitionTime": "2026-01-02T03:04:06Z",
}


@pytest.mark.modeldock_check("foreign-conditions-kept")
def test_foreign_conditions_kept(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """The operator owns its own condition types (Ready, Progressing) and the status fields it
    computes, nothing else: a condition another controller added survives every status write,
    untouched, and its presence costs no write.

    status.conditions is a map keyed by type (the CRD declares it
    x-kubernetes-list-type: map), and the Kubernetes API conventions let several controllers
    report on one object, each with its own condition types: an auditor, a policy engine, a
    rollout tool. An operator that builds the list from scratch ("exactly my two") erases the
    others at its next status write, and the two controllers then fight for ever. Here another
    writer adds an `Audited` condition through the status subresource; the operator must then
    write nothing (the reconcile that event causes has nothing to change), and after a spec
    change (generation 2), which does make it write the status, `Audited` must still be there,
    byte for byte, timestamp included.

    `Audited` is stored first, before Ready and Progressing, with status True as one of them
    has (Progressing while the rollout goes on, Ready once it is done) and a time of its own:
    an operator that looks up its stored condition by position, or by status, rather than by
    type takes `Audited`'s lastTransitionTime for its own, so its conditions' times must stay
    exactly as they were before `Audited` came. A second foreign condition, `Scaled`, is
    stored last, after Ready and Progressing: a merge that stops at its own first condition
    loses it.
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web", replicas=1)
    # on sim the Deployment rolls out first: its status writes are not what this check is about
    wait_rolled_out(admin, namespace, "web", tier) or wait_converged(admin, namespace, "web")
    wait_settled(op)
    msvc = get_present(admin, "modelservices", namespace, "web")
    own_times = {c["type"]: c["lastTransitionTime"] for c in msvc["status"]["conditions"]}

    # Other controllers add their conditions through the status subresource, first and last.
    msvc["status"]["conditions"] = [AUDITED, *msvc["status"]["conditions"], SCALED]
    window = writes_during(
        op,
        audit,
        admin,
        namespace,
        lambda: admin.update("modelservices", msvc, subresource="status"),
        ok_only=True,
    )
    stored = window.results[0]
    premise(
        condition(stored, "Audited") == AUDITED and condition(stored, "Scaled") == SCALED,
        f"the API server changed them: {stored['status']}",
    )
    noop = window.described()
    evidence.record("writes_after_foreign_condition", noop)
    after_noop = get_present(admin, "modelservices", namespace, "web")
    evidence.record(
        "conditions_after_foreign_condition",
        [c["type"] for c in after_noop["status"]["conditions"]],
    )
    for foreign in (AUDITED, SCALED):
        assert condition(after_noop, str(foreign["type"])) == foreign, (
            "the operator removed or rewrote a condition it does not own: "
            f"{after_noop['status']['conditions']}"
        )
    assert noop == [], f"a foreign condition made the operator write: {noop}"

    # A spec change: the operator writes its status, and must leave Audited as it is.
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    wait_observed(admin, namespace, "web", 2)
    wait_settled(op)
    msvc2 = get_present(admin, "modelservices", namespace, "web")
    evidence.record("conditions_after_spec_change", msvc2["status"]["conditions"])
    for foreign in (AUDITED, SCALED):
        assert condition(msvc2, str(foreign["type"])) == foreign, (
            "the operator's status write removed or rewrote a condition it does not own: "
            f"{msvc2['status']['conditions']}"
        )
    for ctype in ("Ready", "Progressing"):
        own = condition(msvc2, ctype)
        assert own and own.get("observedGeneration") == 2, f"{ctype} not updated: {own}"
        before = condition(msvc, ctype) or {}
        if own.get("status") == before.get("status"):
            assert own.get("lastTransitionTime") == own_times.get(ctype), (
                f"{ctype}'s status did not change, yet its lastTransitionTime went from "
                f"{own_times.get(ctype)!r} to {own.get('lastTransitionTime')!r} (Audited's is "
                f"{AUDITED['lastTransitionTime']!r}): a condition's stored time is found by its "
                "type"
            )


#: User-Agent products that name a client library, not the program using it: the Python
#: client's default (OpenAPI-Generator), Go's net/http, urllib, requests and aiohttp.
#: The API server takes the product as the field manager of writes that name none.
LIBRARY_USER_AGENTS = frozenset(
    {"", "OpenAPI-Generator", "Go-http-client", "Python-urllib", "python-requests", "aiohttp"}
)


@pytest.mark.modeldock_check("create-converges", case="names-itself")
def test_create_names_itself(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """The operator names itself: every request it sends carries one User-Agent product of its
    own (the part before "/", e.g. modeldock-go, modeldock-python), never a client library's
    default such as OpenAPI-Generator; so the audit log, and managedFields (the API server
    makes the product the field manager of writes that name none), say who wrote. Read from
    the audit log (userAgent of the operator's user) and the children's managedFields.
    """
    start = audit.sync(admin)
    operators.start()
    create_modelservice(admin, namespace, "web")
    wait_converged(admin, namespace, "web")
    end = audit.sync(admin)
    requests = select(audit.requests(start, end), user=impl.user)
    premise(requests, f"the audit log holds no request of {impl.user} while it converged")
    products = sorted({r.user_agent.split("/")[0].strip() for r in requests})
    evidence.record("user_agent_products", products)
    managers = {}
    for resource in CHILDREN:
        child = admin.get(resource, namespace, "web") or {}
        managers[resource] = sorted(
            {f.get("manager", "") for f in child.get("metadata", {}).get("managedFields") or []}
        )
    evidence.record("child_field_managers", managers)
    assert len(products) == 1, f"{impl.user} sent several User-Agent products: {products}"
    product = products[0]
    assert product not in LIBRARY_USER_AGENTS, (
        f"{impl.user} sends User-Agent {product!r}, a client library's default: managedFields "
        f"and the audit log cannot tell its writes from any other program's; set the client's "
        f"user agent to a name of the operator's own"
    )
    for resource, names in managers.items():
        assert product in names, (
            f"the {resource[:-1]} web has field managers {names}, none is the operator's "
            f"User-Agent product {product!r}"
        )
