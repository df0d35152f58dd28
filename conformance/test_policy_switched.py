"""deletion-policy[switched-to-orphan]: a deletion policy switched to orphan while the cleanup
is under way is honoured, though the operator's cache has not heard of the switch: the
children are kept. deletion-policy[gone-unseen]: a ModelService gone while its cleanup is under
way, though the cache still shows it deleting, ends the cleanup with nothing done.

A DELETE of an object that is already deleting sets the garbage collector's finalizers anew
(the API server's updateForGracefulDeletionAndFinalizers), so `kubectl delete` followed by
`kubectl delete --cascade=orphan` puts `orphan` on the ModelService: the user's last word is
"keep the children". Judged from the API server alone: the stored children and their UIDs,
the ModelService's finalizers, and the operator's deletes in the audit log.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.support import (
    CHILDREN,
    FINALIZER,
    first_convergence,
    get_present,
    operator_writes,
    premise,
    refused_deletes,
    retry_owed,
    wait_refused,
    wait_settled,
)
from harness.accounting import Accounting
from harness.faults.apiproxy.records import RequestLog
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence
from harness.tiers import Tier


@pytest.mark.modeldock_check("deletion-policy", case="switched-to-orphan")
def test_policy_switched_to_orphan(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    tier: Tier,
) -> None:
    """deletion-policy[switched-to-orphan]: `kubectl delete`, then `kubectl delete
    --cascade=orphan` before the cleanup has deleted anything, keeps the children, even when
    the operator's cache still shows the first delete.

    An operator that reads the policy from its cache deletes the workload the user has just
    asked to keep, for as long as the cache lags the second request; a child's own delete
    (its UID precondition) knows nothing of its owner's policy. The garbage collector reads an
    owner live before acting on its dependents (kube v1.34 GarbageCollector.isDangling), and
    so must the cleanup before it deletes a child. Staged with certainty: an admission policy
    refuses the operator's Deployment deletes, so the cleanup of the first (Background) delete
    is under way and stuck; then the operator's API proxy holds every watch event of
    ModelServices, and the ModelService is deleted again with `Orphan`; then the refusal is
    lifted. On the cache's stale word the next cleanup pass would delete both children. The
    operator must instead take the orphan path (remove its finalizer, no child deleted): the
    children keep their UIDs, and no delete of a child by the operator was admitted (audit
    log). On envtest the ModelService then stays with only `orphan` (no garbage collector);
    where one runs it strips the children's references and the ModelService goes.
    """
    op, created = first_convergence(operators, admin, namespace, image="srv:1")
    user = op.impl.user
    proxy = operators.proxy_of(op)
    uid = created["metadata"]["uid"]
    kept = {res: get_present(admin, res, namespace, "web")["metadata"]["uid"] for res in CHILDREN}
    evidence.record("children_before", kept)
    start = audit.sync(admin)
    with refused_deletes(admin, namespace, user):
        admin.delete("modelservices", namespace, "web")
        wait_refused(
            lambda: operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            ),
            "a refused delete of Deployment web: the cleanup of the first delete under way",
            attempts=1,
        )
        # From here the operator's cache hears nothing more of the ModelService.
        proxy.hold(["modelservices"])
        admin.delete("modelservices", namespace, "web", propagation_policy="Orphan")
        switched = admin.get("modelservices", namespace, "web") or {}
        finalizers = (switched.get("metadata") or {}).get("finalizers") or []
        evidence.record("finalizers_after_the_orphan_delete", finalizers)
        # (the operator may already have taken the orphan path: its finalizer is not asked
        # for; where a garbage collector runs, `orphan` may be gone already too)
        premise(
            "orphan" in finalizers or tier.offers("garbage-collector"),
            "a second delete with propagationPolicy Orphan should put `orphan` on the "
            f"ModelService already deleting: {finalizers}",
        )
    failures = sum(
        1
        for r in operator_writes(audit, admin, start, user, namespace, CHILDREN, "delete", "web")
        if not r.ok
    )
    bound, why = retry_owed(failures)

    # The refusal is lifted (no event the operator watches): its owed retry is the next pass.
    def reaction() -> dict[str, Any]:
        m = admin.get("modelservices", namespace, "web")
        ours = m is not None and FINALIZER in m["metadata"].get("finalizers", [])
        admitted = [
            r.describe()
            for r in operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            )
            if r.ok
        ]
        return {"finalizer_removed": not ours, "admitted_deletes": admitted}

    seen = wait_for(
        reaction,
        lambda r: r["finalizer_removed"] or bool(r["admitted_deletes"]),
        bound,
        f"the operator's next cleanup pass once the refusal is lifted ({why})",
    )
    evidence.record("reaction", seen)
    held = proxy.release(["modelservices"])
    evidence.record("modelservice_events_held", held)
    premise(
        held.get("modelservices", 0) > 0,
        "the proxy should have held the ModelService's watch events (the second delete's), "
        f"so that the operator's cache kept the first delete's view: {held}",
    )
    if tier.offers("garbage-collector"):
        wait_for(
            lambda: admin.get("modelservices", namespace, "web") or {},
            lambda m: not m or m["metadata"]["uid"] != uid,
            bound,
            "the garbage collector to orphan the children and the ModelService to go",
        )
    now = {res: admin.get(res, namespace, "web") for res in CHILDREN}
    after = {res: None if obj is None else obj["metadata"]["uid"] for res, obj in now.items()}
    evidence.record("children_after", after)
    admitted = [
        r.describe()
        for r in operator_writes(audit, admin, start, user, namespace, CHILDREN, "delete", "web")
        if r.ok
    ]
    evidence.record("operator_child_deletes_admitted", admitted)
    assert after == kept and not admitted, (
        "the deletion policy was switched to orphan before the cleanup deleted anything, yet "
        f"the operator deleted children (UIDs before {kept}, after {after}; its admitted "
        f"deletes: {admitted}): the cleanup decides on the policy the API server holds, read "
        "live, not on its cache's copy of the ModelService"
    )


#: The operator's requests that act on ModelService web or its children: a write of either,
#: or a GET of the ModelService (its cache lists and watches; a GET is a pass's live read).
_ACTS = ("create", "update", "patch", "delete")


@pytest.mark.modeldock_check("deletion-policy", case="gone-unseen")
def test_gone_before_the_cleanup_read(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """deletion-policy[gone-unseen]: a cleanup pass on a cached ModelService that the API
    server no longer holds ends with nothing done: no child delete, no write of the
    ModelService, no panic.

    The cleanup's live read of the ModelService (CONTRACT.md, "Deletion (step 2)") answers
    404 when another writer (a user's `kubectl patch` of the finalizers, a namespace's
    deletion tooling) stripped our finalizer and the object went while the operator's cache
    lags: the pass has nothing left to do, and the garbage collector owns the children now.
    An operator that goes on to judge the object it did not get (Go's `ContainsFinalizer(nil)`,
    Python's `contains_finalizer(None)`) panics; one that takes the cached copy for the live
    one deletes the children of an owner that is gone and writes a ModelService that is not
    there. Staged with certainty: an admission policy refuses the operator's Deployment
    deletes, so the cleanup of the delete is under way and retried with backoff; the
    operator's API proxy then holds every watch event of ModelServices, and the harness strips
    the finalizers, so the ModelService goes. The operator's next pass must read it live
    (answered 404) and stop there: no request of the operator's writes the ModelService or a
    child after the strip (proxy log, refused writes included), and the panic oracle reads its
    log. Where a garbage collector runs it deletes the children; that is not the operator's.
    """
    op, created = first_convergence(operators, admin, namespace, image="srv:1")
    user = op.impl.user
    proxy = operators.proxy_of(op)
    uid = created["metadata"]["uid"]
    start = audit.sync(admin)
    with refused_deletes(admin, namespace, user):
        admin.delete("modelservices", namespace, "web")
        wait_refused(
            lambda: operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            ),
            "a refused delete of Deployment web: the cleanup of the delete under way",
            attempts=1,
        )
        # From here the operator's cache hears nothing more of the ModelService.
        proxy.hold(["modelservices"])
        mark = len(RequestLog(proxy.request_log).records())
        admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
        gone = admin.get("modelservices", namespace, "web")
        premise(
            gone is None or gone["metadata"]["uid"] != uid,
            "with its finalizers stripped, the deleting ModelService should be gone: "
            f"{(gone or {}).get('metadata', {}).get('finalizers')}",
        )
        failures = sum(
            1
            for r in operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            )
            if not r.ok
        )
        bound, why = retry_owed(failures)

        def since_gone() -> list[str] | None:
            """The operator's requests about web from its first live read answered 404 on
            (None before it): passes that read the ModelService before it went may still end
            after the strip, with their refused delete."""
            records = RequestLog(proxy.request_log).records()[mark:]
            for i, r in enumerate(records):
                if (r.resource, r.verb, r.name, r.code) == ("modelservices", "get", "web", 404):
                    return [
                        f"{q.verb} {q.resource} {q.name}: {q.code}"
                        for q in records[i:]
                        if q.name == "web"
                        and q.resource in (*CHILDREN, "modelservices")
                        and q.verb in (*_ACTS, "get")
                    ]
            return None

        # The refused delete's retry comes with backoff, on the cache's stale copy, and the
        # contract's cleanup reads the ModelService live before any child delete.
        wait_for(
            since_gone,
            lambda seen: seen is not None,
            bound,
            "the operator's next cleanup pass to read the ModelService live and find it gone "
            f"(a GET answered 404), before any child delete ({why})",
        )
        wait_settled(op)
        held = proxy.stats()["resources"].get("modelservices", {}).get("held", 0)
        evidence.record("modelservice_events_held", held)
        premise(
            held > 0,
            "the proxy should have held the ModelService's watch events (the strip and the "
            f"delete), so that the operator's cache still showed it deleting: {held}",
        )
        seen = since_gone() or []
    evidence.record("requests_from_the_live_read_on", seen)
    proxy.release(["modelservices"])
    writes = [line for line in seen if not line.startswith("get ")]
    assert not writes, (
        "the ModelService was gone while its cleanup was under way, and the operator's cache "
        "still showed it deleting; its live read was answered 404, and then it wrote: "
        f"{writes} (its requests from that read on: {seen}). Answered 404, the cleanup ends "
        "with nothing done (the garbage collector owns the children now): no child delete, "
        "no write of the ModelService"
    )
