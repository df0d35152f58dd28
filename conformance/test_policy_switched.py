"""deletion-policy[switched-to-orphan]: a deletion policy switched to orphan while the cleanup
is under way is honoured, though the operator's cache has not heard of the switch: the
children are kept.

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
)
from harness.accounting import Accounting
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
