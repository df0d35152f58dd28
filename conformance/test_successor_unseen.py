"""vanished-owner[successor-unseen]: a child controlled by a ModelService of our name with
another UID is a dead owner's only if the ModelService in hand still holds the name. When the
operator's cache still shows a ModelService the API server has deleted and created anew, the
child is the living successor's, and it is kept.

Judged from the API server alone: the children's UIDs and controllers, and the operator's
deletes in the audit log.
"""

from __future__ import annotations

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
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


def _given_to_successor(admin: Kube, namespace: str, res: str, uid: str) -> None:
    """Make child ``web`` of ``res`` the successor's, as another writer would (an earlier
    leader that saw the successor take over the orphaned child): its controller
    ownerReference now names ``uid``. PremiseFailed when the child is gone (a garbage
    collector took it first) or the update is refused."""
    child = admin.get(res, namespace, "web")
    premise(child is not None, f"{res} web should still be stored (a garbage collector?)")
    assert child is not None
    refs = [
        {**r, "uid": uid} if r.get("controller") else r
        for r in child["metadata"]["ownerReferences"]
    ]
    child["metadata"]["ownerReferences"] = refs
    try:
        admin.update(res, child)
    except ApiException as exc:
        premise(False, f"the update giving {res} web to the successor was refused: {exc.status}")


@pytest.mark.modeldock_check("vanished-owner", case="successor-unseen")
def test_successor_unseen(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """vanished-owner[successor-unseen]: a successor's child that the operator sees before it
    sees the successor is not taken for a dead owner's and deleted: before it deletes the
    child of a vanished ModelService, the operator reads the ModelService live.

    "A child controlled by a ModelService of our name with another UID belongs to one that is
    gone" rests on the ModelService in hand holding the name now. An informer's watches are
    independent: the ModelService watch may lag a delete and a create of the same name while
    the Deployment watch has already brought the new ModelService's child, made by another
    writer (an earlier leader, which had seen the successor). To the stale pass that child
    looks like a dead owner's; deleting it restarts the living owner's pods. The garbage
    collector reads an owner live before it deletes a dependent (kube v1.34
    GarbageCollector.isDangling). Staged with certainty: the operator's API proxy holds every
    watch event of ModelServices; the converged ModelService loses its finalizer and is
    deleted, a successor of the same name is created, and the harness, as that other writer,
    gives the children to the successor (their controller ownerReference now names it: one
    update each, nothing created, so the operator cannot take a child of the harness's for
    one it must make). On sim the garbage collector may delete the gone one's children
    first: a premise error, not a verdict.
    The operator reconciles on its stale view (a request about a child, or its live read of
    the ModelService); then the events are released. The successor's children must keep their
    UIDs, and no child delete of the operator's may have been admitted (audit log).
    """
    with operators.api_proxy() as proxy:
        operators.start(api_proxy=proxy)
        gone = create_modelservice(admin, namespace, "web")
        set_up(
            lambda: wait_converged(admin, namespace, "web"),
            "the first convergence, before the experiment",
        )
        kept = {
            res: get_present(admin, res, namespace, "web")["metadata"]["uid"] for res in CHILDREN
        }
        proxy.hold(["modelservices"])
        admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
        admin.delete("modelservices", namespace, "web", uid=gone["metadata"]["uid"])
        successor = create_modelservice(admin, namespace, "web")
        uid = successor["metadata"]["uid"]
        start = audit.sync(admin)
        mark = len(RequestLog(proxy.request_log).records())
        for res in CHILDREN:
            _given_to_successor(admin, namespace, res, uid)
        evidence.record("successors_children", kept)
        held = proxy.stats()["resources"].get("modelservices", {}).get("held", 0)
        evidence.record("modelservice_events_held", held)
        premise(
            held > 0,
            "the proxy should be holding the ModelService's watch events (its delete and the "
            f"successor's create), so that the operator's cache still shows the gone one: {held}",
        )

        # The operator reconciles on its stale view: a request about a child, or its live read
        # of the ModelService (which a cache never sends: it lists and watches).
        def reaction() -> list[str]:
            return [
                f"{r.verb} {r.resource} {r.name}: {r.code}"
                for r in RequestLog(proxy.request_log).records()[mark:]
                if (r.resource in CHILDREN and r.verb in ("delete", "update", "patch", "create"))
                or (r.resource == "modelservices" and r.verb == "get" and r.name == "web")
            ]

        acted = wait_for(
            reaction,
            bool,
            REACT_TIMEOUT,
            "the operator to act on the successor's children: a request about a child, or a "
            "live read of the ModelService",
        )
        evidence.record("requests_on_the_stale_view", acted)
        proxy.release(["modelservices"])
        msvc = wait_converged(admin, namespace, "web")
    assert msvc["metadata"]["uid"] == uid
    now = {res: get_present(admin, res, namespace, "web") for res in CHILDREN}
    after = {res: obj["metadata"]["uid"] for res, obj in now.items()}
    evidence.record("children_after", after)
    deletes = [
        r.describe()
        for r in operator_writes(audit, admin, start, impl.user, namespace, CHILDREN, "delete")
        if r.ok
    ]
    evidence.record("operator_child_deletes", deletes)
    assert after == kept and not deletes, (
        "the successor's children, which the operator saw before it saw the successor, were "
        f"taken for a dead owner's and deleted (UIDs {kept}, now {after}; the operator's "
        f"deletes: {deletes}): before deleting the child of a vanished ModelService, read the "
        "ModelService live, as the garbage collector reads an owner"
    )
    for res, obj in now.items():
        ref = controller_ref(obj)
        assert ref and ref["uid"] == uid, f"{res} web is not the successor's: {ref}"
