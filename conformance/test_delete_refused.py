"""finalizer-ordered-delete[delete-refused]: a child whose delete the API server refuses is
not gone. The operator's finalizer stays on the deleting ModelService, the refusal is visible
as a Warning Event, and the cleanup finishes once the refusal is lifted, by the retry the
backoff owes (removing an admission policy is no event the operator watches).

Judged from the API server alone: the stored ModelService and its finalizers, the stored
Deployment, the operator's Events, and the operator's requests in the audit log.

finalizer-ordered-delete[delete-not-found], its counterpart: a child delete answered 404 (the
operator's API proxy plays the child gone since the live read) is no refusal: no Warning, and
the cleanup finishes.
"""

from __future__ import annotations

import pytest

from conformance.support import (
    DELETE_MESSAGE,
    FINALIZER,
    REFUSED_ATTEMPTS,
    backoff_after,
    describe_event,
    first_convergence,
    latest_events,
    operator_events,
    operator_writes,
    premise,
    refusal_events,
    refused_deletes,
    retry_owed,
    wait_events_settled,
    wait_gone,
    wait_refused,
)
from harness.accounting import Accounting
from harness.faults.apiproxy.records import RequestLog
from harness.kube import Kube
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence


@pytest.mark.modeldock_check("finalizer-ordered-delete", case="delete-refused")
def test_refused_child_delete_keeps_finalizer(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """A child whose delete is refused keeps the operator's finalizer on the ModelService
    until the refusal is lifted and the child is gone.

    An admission policy refuses (403) the operator's deletes of Deployments; then the
    ModelService is deleted. The operator's cleanup must meet the refusal and neither take the
    Deployment for gone nor give up: after six refused deletes (the work queue's retries) the
    ModelService must still be stored with the operator's finalizer, the Deployment still
    stored, and a Warning FailedDelete Event must name Deployment "web" and the policy's
    message. The refused delete ends its pass (the children go Deployment first, then
    Service): the Service must still be stored too, never deleted while the Deployment whose
    pods it routes to stays. Then the policy is removed, which nothing the operator watches shows: the
    Deployment, the Service and the ModelService must be gone within the contract's backoff
    after the refused deletes counted (5 ms doubling per failure, at most 1000 s) plus the
    suite's convergence bound. An operator that counts a child whose delete failed as gone
    removes its finalizer and leaves the Deployment behind, owned by a UID that no longer
    exists.
    """
    op, ms = first_convergence(operators, admin, namespace, image="srv:1")
    user = op.impl.user
    with refused_deletes(admin, namespace, user):
        start = audit.sync(admin)
        admin.delete("modelservices", namespace, "web")
        refused = wait_refused(
            lambda: operator_writes(
                audit, admin, start, user, namespace, ("deployments",), "delete", "web"
            ),
            f"{REFUSED_ATTEMPTS} refused deletes of Deployment web, or the ModelService gone",
            unless=lambda: admin.get("modelservices", namespace, "web") is None,
        )
        held = admin.get("modelservices", namespace, "web")
        dep = admin.get("deployments", namespace, "web")
        svc = admin.get("services", namespace, "web")
        warnings = refusal_events(
            admin,
            namespace,
            ms["metadata"]["uid"],
            "FailedDelete",
            'Deployment "web"',
            DELETE_MESSAGE,
        )
        evidence.record(
            "refused",
            {
                "deletes": refused,
                "finalizers": None if held is None else held["metadata"].get("finalizers"),
                "deployment_stored": dep is not None,
                "service_stored": svc is not None,
                "warnings": warnings,
            },
        )
        assert dep is not None, "the policy refused every delete, yet the Deployment is gone"
        assert held is not None and FINALIZER in held["metadata"].get("finalizers", []), (
            "the operator removed its finalizer although its Deployment's delete was refused "
            f"and the Deployment is still stored: the ModelService is "
            f"{'gone' if held is None else held['metadata'].get('finalizers')}; "
            f"the operator's deletes: {refused}"
        )
        assert svc is not None, (
            "the operator deleted the Service while its Deployment's delete was refused: a "
            'refused child delete ends the pass with its error (CONTRACT.md, "Deletion"), '
            f"and the Service comes after the Deployment; the operator's deletes: {refused}"
        )
        assert warnings, (
            'a Warning FailedDelete Event naming Deployment "web" and the policy\'s message: '
            f"{latest_events(admin, namespace)}"
        )
    failures = sum(
        1
        for r in operator_writes(
            audit, admin, start, user, namespace, ("deployments",), "delete", "web"
        )
        if not r.ok
    )
    bound, why = retry_owed(failures)
    what = f"once the policy is gone: {why}"
    wait_gone(admin, "deployments", namespace, "web", timeout=bound, what=f"the Deployment {what}")
    wait_gone(admin, "services", namespace, "web", timeout=bound, what=f"the Service {what}")
    wait_gone(
        admin, "modelservices", namespace, "web", timeout=bound, what=f"the ModelService {what}"
    )
    evidence.record(
        "lifted", {"refused_before": failures, "backoff_bound_s": round(backoff_after(failures), 3)}
    )


@pytest.mark.modeldock_check("finalizer-ordered-delete", case="delete-not-found")
def test_child_delete_not_found_counts_gone(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """finalizer-ordered-delete[delete-not-found]: a child delete answered 404 Not Found is
    no failure: no Warning Event, and the cleanup finishes.

    Between the operator's live read of a child and its delete, someone else may delete the
    child (a user, a garbage collector): the API server then answers 404; with the UID
    precondition, a child replaced meanwhile answers 409. Neither is a failed delete: the
    child the operator meant is gone either way (CONTRACT.md, "Deletion"), and a Warning
    FailedDelete about it would tell the user of a failure that did not happen (a 409 records
    no Warning anyway, as every 409 of the operator's: this case uses the 404). Here the
    operator's API proxy answers the operator's first delete of a Deployment 404 without
    forwarding it (the Deployment stays, so the next pass still finds it); then the
    ModelService is deleted. The next cleanup pass reads the Deployment live, still ours,
    and deletes it; the ModelService must go, and the operator must have recorded no Warning
    Event about it.
    """
    op, ms = first_convergence(operators, admin, namespace, image="srv:1")
    user = op.impl.user
    proxy = operators.proxy_of(op)
    proxy.inject_write_error(1, 404, resources=["deployments"])
    start = audit.sync(admin)
    admin.delete("modelservices", namespace, "web")
    wait_gone(admin, "modelservices", namespace, "web")
    injected = [
        f"{r.verb} {r.resource} {r.name}: {r.code}"
        for r in RequestLog(proxy.request_log).records()
        if r.injected and r.resource == "deployments"
    ]
    evidence.record("answered_404_by_the_proxy", injected)
    premise(
        injected == ["delete deployments web: 404"],
        f"the proxy should have answered the operator's first Deployment delete 404: {injected}",
    )
    evidence.record(
        "deletes",
        [
            r.describe()
            for r in operator_writes(
                audit, admin, start, user, namespace, ("deployments",), "delete", "web"
            )
        ],
    )
    wait_events_settled(admin, namespace)
    warnings = [
        describe_event(e)
        for e in operator_events(admin, namespace, ms["metadata"]["uid"])
        if e.get("type") == "Warning"
    ]
    evidence.record("warnings", warnings)
    assert warnings == [], (
        f"a child delete answered 404 (the child gone since it was read) is no failed "
        f"delete, yet the operator recorded {warnings}"
    )
