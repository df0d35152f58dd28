"""vanished-owner[orphaned-unseen]: a child orphaned by `kubectl delete --cascade=orphan`,
which the operator's cache still shows controlled by the gone ModelService, is adopted by
the successor, not deleted (found by the generated workloads' nightly, stop 46)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    CONVERGE_TIMEOUT,
    FINALIZER,
    REACT_TIMEOUT,
    controller_ref,
    create_modelservice,
    get_present,
    operator_writes,
    premise,
    wait_converged,
)
from harness.accounting import Accounting
from harness.faults.apiproxy.records import RequestLog
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence
from harness.tiers import Tier


def _orphaned(admin: Kube, namespace: str, uid: str, gc: bool) -> None:
    """Premise: ModelService ``web`` of ``uid``, deleted with propagationPolicy Orphan, ends
    as the garbage collector ends it: the operator removes its own finalizer, the children's
    ownerReferences to ``uid`` are stripped and the ``orphan`` finalizer removed (played here
    when ``gc`` is False, the tier having no garbage collector), and the ModelService is gone,
    its children kept. Raises PremiseFailed when a step does not come within
    CONVERGE_TIMEOUT seconds."""

    def ours_gone(m: dict[str, Any]) -> bool:
        return not m or FINALIZER not in m["metadata"].get("finalizers", [])

    wait_for(
        lambda: admin.get("modelservices", namespace, "web") or {},
        ours_gone,
        CONVERGE_TIMEOUT,
        "the operator to remove its finalizer after an Orphan delete",
        premise=True,
    )
    if not gc:
        for res in CHILDREN:
            child = get_present(admin, res, namespace, "web")
            refs = [r for r in child["metadata"].get("ownerReferences") or [] if r["uid"] != uid]
            child["metadata"]["ownerReferences"] = refs or None
            admin.update(res, child)
        m = admin.get("modelservices", namespace, "web")
        if m is not None and m["metadata"]["uid"] == uid:
            fins = [f for f in m["metadata"].get("finalizers") or [] if f != "orphan"]
            m["metadata"]["finalizers"] = fins or None
            admin.update("modelservices", m)

    def orphaned() -> bool:
        if admin.get("modelservices", namespace, "web") is not None:
            return False
        children = [admin.get(res, namespace, "web") for res in CHILDREN]
        return all(
            c is not None
            and not any(r["uid"] == uid for r in c["metadata"].get("ownerReferences") or [])
            for c in children
        )

    wait_for(
        lambda: orphaned() or None,
        bool,
        CONVERGE_TIMEOUT,
        "the ModelService gone and its children kept, without its ownerReference",
        premise=True,
    )


def _watched(request_log: Any, namespace: str) -> set[str]:
    """The children (resources) of which the operator's API proxy has delivered a watch event
    of ``web`` in ``namespace`` other than DELETED: what the operator's cache holds."""
    return {
        r.resource
        for r in RequestLog(request_log).records()
        if r.verb == "watch"
        and r.resource in CHILDREN
        and any(
            e.namespace == namespace and e.name == "web" and e.type != "DELETED" for e in r.events
        )
    }


@pytest.mark.modeldock_check("vanished-owner", case="orphaned-unseen")
def test_orphaned_unseen(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """vanished-owner[orphaned-unseen]: a child the operator's cache still shows controlled by
    a ModelService that is gone, while the API server holds it orphaned, is adopted by the
    successor, not deleted: the delete of a dead owner's child carries the resourceVersion it
    was read at, as the garbage collector's does.

    `kubectl delete --cascade=orphan` and the same ModelService applied again is how a user
    re-creates it without disturbing the running pods: the garbage collector strips the
    children's ownerReferences, and the successor adopts them (same UIDs). An informer cache
    lags, though: for a while it may still show the children controlled by the gone
    ModelService, which makes them, to an operator that trusts it, children of a vanished
    owner to delete and replace (vanished-owner[dead-owner-child]). A UID precondition does
    not stop that delete: the object is the same, only its ownerReferences changed. The
    garbage collector, which judges dependents from a cache of its own, deletes with the
    resourceVersion it read as a precondition too (kube v1.34 GarbageCollector.deleteObject),
    and a child changed since is answered 409 and read again. Staged here with certainty: the
    operator's API proxy holds every watch event of Deployments and Services from before the
    Orphan delete until the successor has been reconciled on the stale view, then releases
    them. Found by the generated workloads' nightly (stop 46): an Orphan delete right after
    a create that adopted orphans; go's children were deleted and created anew, python's
    adopted (mutants trusts-stale-owner, trusts-stale-owner-go). No create of a child may
    be sent either: the children exist all along, and the operator's cache holds them; a
    409 to the resourceVersion precondition taken for "gone" goes on to create over them
    (mutants changed-child-taken-for-gone, changed-child-taken-for-gone-go, and the tool mutants of
    deleteChildIf's and delete_child's 409 test, stop 49).
    """
    gc = tier.offers("garbage-collector")
    with operators.api_proxy() as proxy:
        operators.start(api_proxy=proxy)
        first = create_modelservice(admin, namespace, "web")
        set_up(
            lambda: wait_converged(admin, namespace, "web"),
            "the first convergence, before the experiment",
        )
        kept = {
            res: get_present(admin, res, namespace, "web")["metadata"]["uid"] for res in CHILDREN
        }
        evidence.record("children_before", kept)
        # The operator's cache must hold both children before their events are held: the
        # status that ends the first convergence is written by the pass that created them,
        # and a child whose ADDED event came after the hold would be missing from the
        # cache, which a correct operator answers with a create.
        wait_for(
            lambda: _watched(proxy.request_log, namespace),
            lambda seen: seen == set(CHILDREN),
            REACT_TIMEOUT,
            "the operator's watches to deliver both children before the hold",
            premise=True,
        )
        proxy.hold(list(CHILDREN))
        admin.delete("modelservices", namespace, "web", propagation_policy="Orphan")
        _orphaned(admin, namespace, first["metadata"]["uid"], gc)
        held = {res: proxy.stats()["resources"].get(res, {}).get("held", 0) for res in CHILDREN}
        evidence.record("watch_events_held_at_successor", held)
        premise(
            all(n > 0 for n in held.values()),
            "the proxy should be holding the children's watch events (the stripped "
            f"ownerReferences), so that the operator's cache has not seen the orphaning: {held}",
        )
        start = audit.sync(admin)
        mark = len(RequestLog(proxy.request_log).records())
        successor = create_modelservice(admin, namespace, "web")

        # The operator reconciles the successor on its stale view: wait for its first request
        # about a child after the create (a delete, an adoption's update), or for the
        # successor's status (an implementation that reads the child live may adopt at once).
        def reaction() -> list[str]:
            acted = [
                f"{r.verb} {r.resource} {r.name}: {r.code}"
                for r in RequestLog(proxy.request_log).records()[mark:]
                if r.resource in CHILDREN and r.verb in ("delete", "update", "patch", "create")
            ]
            m = admin.get("modelservices", namespace, "web") or {}
            if not acted and (m.get("status") or {}).get("observedGeneration") == 1:
                acted = ["(no child request: the successor's status written)"]
            return acted

        acted = wait_for(
            reaction,
            bool,
            REACT_TIMEOUT,
            "the operator to act on the successor: a request about a child, or its status",
        )
        evidence.record("child_requests_on_the_stale_view", acted)
        proxy.release(list(CHILDREN))
        msvc = wait_converged(admin, namespace, "web")
    uid = successor["metadata"]["uid"]
    assert msvc["metadata"]["uid"] == uid
    now = {res: get_present(admin, res, namespace, "web") for res in CHILDREN}
    evidence.record("children_after", {res: obj["metadata"]["uid"] for res, obj in now.items()})
    deletes = [
        r.describe()
        for r in operator_writes(audit, admin, start, impl.user, namespace, CHILDREN, "delete")
        if r.ok
    ]
    evidence.record("operator_child_deletes", deletes)
    replaced = {
        res: (kept[res], obj["metadata"]["uid"])
        for res, obj in now.items()
        if obj["metadata"]["uid"] != kept[res]
    }
    assert not replaced and not deletes, (
        "the orphaned children, which the API server no longer showed owned by the gone "
        "ModelService, were deleted on the cache's stale word and created anew (old UID, new "
        f"UID): {replaced}; the operator's deletes: {deletes}. A dead owner's child is deleted "
        "with the resourceVersion read as a precondition too, as the garbage collector does"
    )
    creates = [
        r.describe()
        for r in operator_writes(audit, admin, start, impl.user, namespace, CHILDREN, "create")
    ]
    evidence.record("operator_child_creates", creates)
    assert not creates, (
        "the operator sent creates of children that existed all along, in the API server and "
        f"in its own cache (admitted or refused): {creates}. A delete with the "
        "resourceVersion precondition answered 409 (the child changed since it was read) "
        "ends the pass: the next pass reads the child again; it is not taken for gone"
    )
    for res, obj in now.items():
        ref = controller_ref(obj)
        assert ref and ref["uid"] == uid, f"{res} web is not the successor's: {ref}"
