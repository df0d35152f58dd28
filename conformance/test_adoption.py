"""Ownership decisions beyond "ours or not": adopting what an orphaning deletion left behind,
and replacing a child whose immutable fields no longer match (CONTRACT.md, "Ownership").

A controller decides what is its own from the controller ownerReference, and two situations
put that to the test. After ``kubectl delete msvc web --cascade=orphan`` the garbage collector
strips the children's ownerReferences and leaves them running; applying the same ModelService
again is the usual way to recreate it without disturbing what it runs, and the new
ModelService must take them back (adopt them), as the Kubernetes controllers do, without ever
claiming an object someone else owns or one that merely has the right name. And a child the
controller owns may carry an immutable field (a Deployment's ``spec.selector``) that differs
from what the controller would set today, left by an earlier version or an edit before an
upgrade: the API server refuses every update of it, so the controller must replace it instead
of retrying the same refused update for ever.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    CONVERGE_TIMEOUT,
    condition,
    controller_ref,
    create_modelservice,
    get_present,
    labels,
    operator_events,
    operator_writes,
    premise,
    present,
    wait_converged,
    wait_gone,
    wait_settled,
    writes_showing,
)
from harness.accounting import Accounting
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, RequestLog
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.modelservice import SELECTOR_LABEL
from harness.operators import Implementation
from harness.plugin.evidence import Evidence

#: A finalizer of the harness's own: it holds the foreign Deployment ``held`` while deleting.
HOLD = "example.com/hold"

#: The children's resources, and the verbs that write.
WRITE_VERBS = ("create", "update", "patch", "delete")


def orphaned_deployment(name: str, selector: dict[str, str], **meta: Any) -> dict[str, Any]:
    """A Deployment ``name`` as a ModelService ``name`` with the default spec makes it, but
    selecting ``selector`` (its template labels are ours plus the selector) and with no
    ownerReference unless ``meta`` gives one: what the garbage collector leaves after an
    orphaning delete, or (with another selector) what an earlier version made."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels(name), **meta},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": labels(name) | selector},
                "spec": {"containers": [{"name": "server", "image": "srv:1"}]},
            },
        },
    }


def orphaned_service(name: str) -> dict[str, Any]:
    """The Service of a ModelService ``name`` without its ownerReference."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": labels(name)},
        "spec": {
            "selector": {SELECTOR_LABEL: name},
            "ports": [{"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}],
        },
    }


def wait_event(admin: Kube, namespace: str, uid: str, reason: str) -> dict[str, Any]:
    """The operator's Event with ``reason`` about the object ``uid``; AssertionError when none
    is written within CONVERGE_TIMEOUT (Events are written in the background)."""
    return wait_for(
        lambda: next(
            (e for e in operator_events(admin, namespace, uid) if e.get("reason") == reason),
            None,
        ),
        lambda e: True,
        CONVERGE_TIMEOUT,
        f"the operator's {reason} Event",
    )


@pytest.mark.modeldock_check("child-conflict", case="adopt-ownerless")
def test_adopt_ownerless(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """child-conflict[adopt-ownerless]: children with our selector label and no controller
    ownerReference (what ``--cascade=orphan`` leaves) are adopted by the ModelService of their
    name; an ownerless same-named child without the label is not.

    Staged as the garbage collector leaves it (envtest has none; deletion-policy[orphan] does
    the real thing on sim): a Deployment and a Service ``web`` with the three labels of a
    ModelService ``web`` and no ownerReferences, and a Deployment ``plain`` with no labels and
    no owner. Then ModelServices ``web`` and ``plain`` are created. ``web`` must converge on
    the same two objects (same UIDs: no delete, no create, the pods never disturbed), now
    controlled by it, with Normal AdoptedDeployment and AdoptedService Events. ``plain`` must
    report ChildConflict and leave its Deployment unwritten: a name is not ownership.
    Adoption mirrors the ReplicaSet controller, which adopts ownerless pods its selector
    matches and never one another controller owns (child-conflict's own case).

    Two more same-named children that are not ours must each be a ChildConflict, whatever
    else about them looks harmless: a Service ``bare``, ownerless and unlabelled, beside a
    free Deployment name (a Service has no immutable field the operator sets, so only the
    missing label tells it from an orphan of ours: it must stay unwritten, no
    ownerReference), and a Deployment ``held``, ownerless and unlabelled, that is being
    deleted and held there by a finalizer of the harness's (a child that is going is
    waited for only when it is ours; someone else's is a conflict like any other, and the
    Service is not created beside it).
    """
    dep = admin.create(
        "deployments", namespace, orphaned_deployment("web", {SELECTOR_LABEL: "web"})
    )
    svc = admin.create("services", namespace, orphaned_service("web"))
    plain_dep = orphaned_deployment("plain", {"app": "plain"})
    plain_dep["metadata"] = {"name": "plain"}
    plain_dep["spec"]["template"]["metadata"]["labels"] = {"app": "plain"}
    admin.create("deployments", namespace, plain_dep)
    bare_svc = orphaned_service("bare")
    bare_svc["metadata"] = {"name": "bare"}
    admin.create("services", namespace, bare_svc)
    held_dep = orphaned_deployment("held", {"app": "held"}, finalizers=[HOLD])
    held_dep["metadata"]["labels"] = {}
    held_dep["spec"]["replicas"] = 0
    held_dep["spec"]["template"]["metadata"]["labels"] = {"app": "held"}
    admin.create("deployments", namespace, held_dep)
    admin.delete("deployments", namespace, "held")
    premise(
        bool(
            get_present(admin, "deployments", namespace, "held")["metadata"].get(
                "deletionTimestamp"
            )
        ),
        "the Deployment held must be deleting, held by the harness's finalizer",
    )
    before = {"deployments": dep["metadata"]["uid"], "services": svc["metadata"]["uid"]}
    op = operators.start()
    start = audit.sync(admin)
    create_modelservice(admin, namespace, "web")
    create_modelservice(admin, namespace, "plain")
    create_modelservice(admin, namespace, "bare")
    create_modelservice(admin, namespace, "held")
    msvc = wait_converged(admin, namespace, "web")
    uid = msvc["metadata"]["uid"]
    after = {res: get_present(admin, res, namespace, "web") for res in CHILDREN}
    evidence.record(
        "children_uids",
        {"staged": before, "after": {res: obj["metadata"]["uid"] for res, obj in after.items()}},
    )
    evidence.record("controllers", {res: controller_ref(obj) for res, obj in after.items()})
    for res, obj in after.items():
        assert obj["metadata"]["uid"] == before[res], (
            f"the ownerless {res[:-1]} web was replaced, not adopted: uid "
            f"{obj['metadata']['uid']} (was {before[res]})"
        )
        assert (controller_ref(obj) or {}).get("uid") == uid, (
            f"the {res[:-1]} web is not controlled by the ModelService {uid}: "
            f"{obj['metadata'].get('ownerReferences')}"
        )
    for reason in ("AdoptedDeployment", "AdoptedService"):
        event = wait_event(admin, namespace, uid, reason)
        assert event.get("type") == "Normal", f"{reason} must be a Normal Event: {event}"

    conflict = wait_for(
        lambda: admin.get("modelservices", namespace, "plain"),
        lambda m: (condition(m, "Ready") or {}).get("reason") == "ChildConflict",
        CONVERGE_TIMEOUT,
        "ModelService plain to report ChildConflict (its Deployment has no label of ours)",
    )
    wait_settled(op)
    kept = get_present(admin, "deployments", namespace, "plain")
    evidence.record(
        "unlabelled_ownerless",
        {
            "condition": condition(conflict, "Ready"),
            "ownerReferences": kept["metadata"].get("ownerReferences"),
        },
    )
    assert not kept["metadata"].get("ownerReferences"), (
        f"an ownerless Deployment without the label modeldock.io/modelservice was adopted: "
        f"{kept['metadata'].get('ownerReferences')}"
    )
    for name, what in (
        ("bare", "its Service has no label of ours"),
        ("held", "its Deployment, someone else's, is being deleted"),
    ):
        wait_for(
            partial(admin.get, "modelservices", namespace, name),
            lambda m: (condition(m, "Ready") or {}).get("reason") == "ChildConflict",
            CONVERGE_TIMEOUT,
            f"ModelService {name} to report ChildConflict ({what})",
        )
    wait_settled(op)
    bare = get_present(admin, "services", namespace, "bare")
    evidence.record("unlabelled_ownerless_service", bare["metadata"].get("ownerReferences"))
    assert not bare["metadata"].get("ownerReferences"), (
        f"an ownerless Service without the label modeldock.io/modelservice was adopted: "
        f"{bare['metadata'].get('ownerReferences')}"
    )
    writes = operator_writes(audit, admin, start, impl.user, namespace, CHILDREN)
    evidence.record("child_writes", [r.describe() for r in writes])
    foreign = [
        r.describe()
        for r in writes
        if r.name in ("plain", "held") or (r.name, r.resource) == ("bare", "services")
    ]
    assert foreign == [], f"the operator wrote children it does not own: {foreign}"
    recreated = [r.describe() for r in writes if r.verb in ("create", "delete") and r.name == "web"]
    assert recreated == [], f"adoption must not delete or create a child: {recreated}"
    admin.patch("deployments", namespace, "held", {"metadata": {"finalizers": []}})


def ownerless_children_judged(
    admin: Kube, proxy: ApiProxy, namespace: str, evidence: Evidence
) -> tuple[list[str], dict[str, Any]]:
    """Strip the ownerReferences of ``web``'s children while the operator's ModelService
    events are held at its API proxy (``proxy``, holding), wait (CONVERGE_TIMEOUT) for three
    of its live reads of ModelService ``web`` (refused adoptions) or a child write, and return
    the child writes seen (``"<verb> <resource> <name>: <code>"``) and each child's
    ownerReferences then, both recorded in ``evidence``. The staging that adopt-recheck and
    adopt-recheck-deleting share; each judges the result with its own message."""
    mark = len(RequestLog(proxy.request_log).records())

    def since_mark() -> list[ProxyRequest]:
        return [
            r
            for r in RequestLog(proxy.request_log).records()[mark:]
            if r.namespace == namespace and r.name == "web"
        ]

    for res in CHILDREN:
        obj = get_present(admin, res, namespace, "web")
        obj["metadata"]["ownerReferences"] = None
        admin.update(res, obj)
    seen = wait_for(
        since_mark,
        lambda rs: (
            sum(r.verb == "get" and r.resource == "modelservices" for r in rs) >= 3
            or any(r.verb in WRITE_VERBS and r.resource in CHILDREN for r in rs)
        ),
        CONVERGE_TIMEOUT,
        "three live reads of ModelService web by the operator (refused adoptions) or a "
        "write of a child",
    )
    writes = [
        f"{r.verb} {r.resource} {r.name}: {r.code}"
        for r in seen
        if r.verb in WRITE_VERBS and r.resource in CHILDREN
    ]
    owners = {
        res: get_present(admin, res, namespace, "web")["metadata"].get("ownerReferences")
        for res in CHILDREN
    }
    evidence.record("child_writes_while_cache_stale", writes)
    evidence.record("owners_while_cache_stale", owners)
    return writes, owners


@pytest.mark.modeldock_check("child-conflict", case="adopt-recheck")
def test_adopt_recheck(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """child-conflict[adopt-recheck]: before an adoption the operator reads the ModelService
    from the API server, not from its cache, and adopts nothing for a ModelService the API
    server no longer holds, even while its cache still does.

    A cache lags: the deletion of a ModelService and a successor of the same name can reach
    the API server before their watch events reach the operator. An adoption decided on the
    cache alone then writes the UID of an object that no longer exists into the child's
    controller ownerReference, and the child is the garbage collector's to delete, the very
    workload an orphaning delete was meant to keep (kube's ControllerRefManager re-reads the
    owner first for this: RecheckDeletionTimestamp). Staged with the operator's API proxy:
    ModelService ``web`` converges; the proxy holds every watch event of ModelServices; the
    harness removes the operator's finalizer, deletes ``web`` and creates ``web`` again (a new
    UID), then strips the ownerReferences of both children, as the garbage collector does
    for an orphaning delete. The children's events reach the operator, whose cache still
    holds the old ``web``: over three of its live reads of ``web`` (refused adoptions,
    retried) it must write neither child. Released, the new ``web`` must converge on the same
    two children (same UIDs), adopted by the new UID.
    """
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        create_modelservice(admin, namespace, "web")
        set_up(
            lambda: wait_converged(admin, namespace, "web"),
            "the first convergence, before the experiment",
        )
        children = {res: get_present(admin, res, namespace, "web") for res in CHILDREN}
        before = {res: obj["metadata"]["uid"] for res, obj in children.items()}
        proxy.hold(["modelservices"])
        admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
        admin.delete("modelservices", namespace, "web")
        wait_gone(admin, "modelservices", namespace, "web")
        successor = create_modelservice(admin, namespace, "web")["metadata"]["uid"]
        writes, owners = ownerless_children_judged(admin, proxy, namespace, evidence)
        assert writes == [] and not any(owners.values()), (
            f"the operator adopted for a ModelService its cache held but the API server had "
            f"deleted (re-created as {successor}): writes {writes}, ownerReferences {owners}"
        )
        proxy.release()
        msvc = wait_converged(admin, namespace, "web")
        premise(msvc["metadata"]["uid"] == successor, "ModelService web must be the successor")
        after = {res: get_present(admin, res, namespace, "web") for res in CHILDREN}
        evidence.record(
            "children_after", {res: obj["metadata"]["uid"] for res, obj in after.items()}
        )
        for res, obj in after.items():
            assert obj["metadata"]["uid"] == before[res], (
                f"the orphaned {res[:-1]} web was replaced, not adopted by the successor: uid "
                f"{obj['metadata']['uid']} (was {before[res]})"
            )
            assert (controller_ref(obj) or {}).get("uid") == successor, (
                f"the {res[:-1]} web is not controlled by the successor {successor}: "
                f"{obj['metadata'].get('ownerReferences')}"
            )
        wait_settled(op)


@pytest.mark.modeldock_check("child-conflict", case="adopt-recheck-deleting")
def test_adopt_recheck_deleting(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """child-conflict[adopt-recheck-deleting]: before an adoption the operator reads the
    ModelService from the API server and adopts nothing for one that is being deleted, even
    while its cache holds it undeleted.

    adopt-recheck's twin for the other half of the live read: there the ModelService is gone
    (another UID answers), here the API server still holds the same UID, with a
    deletionTimestamp, held by a finalizer of someone else (kube's ControllerRefManager,
    RecheckDeletionTimestamp, refuses both). A child adopted by a ModelService on its way out
    gets a controller ownerReference the garbage collector acts on once the finalizer goes: the
    workload is deleted with it. Staged with the operator's API proxy: ModelService ``web``
    converges; the proxy holds every watch event of ModelServices; the harness replaces the
    operator's finalizer with its own (HOLD), deletes ``web`` (it stays, deleting) and strips
    the ownerReferences of both children, as an orphaning delete does. The children's events
    reach the operator, whose cache holds ``web`` undeleted: over three of its live reads of
    ``web`` (refused adoptions, retried) it must write neither child. Released, it still must
    not adopt them; the harness then removes its finalizer and ``web`` goes.
    """
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        create_modelservice(admin, namespace, "web")
        set_up(
            lambda: wait_converged(admin, namespace, "web"),
            "the first convergence, before the experiment",
        )
        proxy.hold(["modelservices"])
        admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": [HOLD]}})
        admin.delete("modelservices", namespace, "web")
        held = get_present(admin, "modelservices", namespace, "web")
        premise(
            bool(held["metadata"].get("deletionTimestamp")),
            "ModelService web must be held deleting by the harness's finalizer",
        )
        writes, owners = ownerless_children_judged(admin, proxy, namespace, evidence)
        assert writes == [] and not any(owners.values()), (
            "the operator adopted for a ModelService its cache held undeleted but the API "
            f"server held deleting: writes {writes}, ownerReferences {owners}"
        )
        proxy.release()
        wait_settled(op)
        owners = {
            res: get_present(admin, res, namespace, "web")["metadata"].get("ownerReferences")
            for res in CHILDREN
        }
        evidence.record("owners_after_release", owners)
        assert not any(owners.values()), (
            f"the operator adopted children for a ModelService being deleted: {owners}"
        )
        admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
        wait_gone(admin, "modelservices", namespace, "web")
        wait_settled(op)


@pytest.mark.modeldock_check("child-repaired", case="immutable-selector")
def test_immutable_selector_replaced(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """child-repaired[immutable-selector]: a Deployment of ours whose spec.selector differs
    from the desired one is replaced (deleted with its UID as precondition and
    propagationPolicy Background, then created anew), not updated in a loop the API server
    refuses.

    A Deployment's selector is immutable: every update that changes it is refused with 422.
    Here, before the operator starts, ModelService ``web`` exists and so does a Deployment
    ``web`` it controls (its ownerReference) that selects ``app.kubernetes.io/name: web``, as
    an earlier version of the operator might have made it. The operator must delete it once,
    with the UID precondition and Background propagation (the garbage collector then takes its
    ReplicaSets and pods; Orphan would leave pods that match neither selector), record a
    ReplacingDeployment Event, create the new Deployment with the selector
    ``modeldock.io/modelservice: web``, and converge; its updates of the Deployment are never
    refused with 422.
    """
    msvc = create_modelservice(admin, namespace, "web")
    uid = msvc["metadata"]["uid"]
    owner = {
        "apiVersion": "modeldock.io/v1alpha1",
        "kind": "ModelService",
        "name": "web",
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    old = admin.create(
        "deployments",
        namespace,
        orphaned_deployment("web", {"app.kubernetes.io/name": "web"}, ownerReferences=[owner]),
    )
    old_uid = old["metadata"]["uid"]
    start = audit.sync(admin)
    op = operators.start()
    desired = {"matchLabels": {SELECTOR_LABEL: "web"}}
    new = wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["metadata"]["uid"] != old_uid and d["spec"].get("selector") == desired,
        CONVERGE_TIMEOUT,
        f"the Deployment with the old selector (uid {old_uid}) to be replaced by one "
        f"selecting {desired}",
    )
    wait_converged(admin, namespace, "web")
    wait_settled(op)
    evidence.record("deployment", {"old_uid": old_uid, "new_uid": new["metadata"]["uid"]})
    writes = [
        r
        for r in writes_showing(
            audit,
            admin,
            start,
            lambda rs: any(r.verb == "create" and r.resource == "deployments" for r in rs),
            "the create of the new Deployment",
            user=impl.user,
            namespace=namespace,
            writes_only=True,
        )
        if r.resource == "deployments"
    ]
    evidence.record(
        "deployment_writes",
        [
            f"{r.describe()} code={r.code} precondition uid={r.precondition_uid} "
            f"propagationPolicy={(r.request_object or {}).get('propagationPolicy')}"
            for r in writes
        ],
    )
    refused = [r.describe() for r in writes if r.code == 422]
    assert refused == [], f"updates of an immutable selector were sent and refused: {refused}"
    deletes = [r for r in writes if r.verb == "delete" and r.ok]
    assert len(deletes) == 1, (
        f"the old Deployment must be deleted exactly once: {[r.describe() for r in deletes]}"
    )
    assert deletes[0].precondition_uid == old_uid, (
        f"the replacing delete must carry the old Deployment's UID {old_uid} as precondition: "
        f"{deletes[0].precondition_uid}"
    )
    policy = (deletes[0].request_object or {}).get("propagationPolicy")
    assert policy == "Background", (
        f"the replacing delete must use propagationPolicy Background (the garbage collector "
        f"removes the old ReplicaSets and pods): {policy}"
    )
    event = wait_event(admin, namespace, uid, "ReplacingDeployment")
    evidence.record("event", event.get("message"))
    assert "spec.selector" in present(event.get("message"), "the Event's message"), (
        f"the ReplacingDeployment Event must name the immutable field: {event.get('message')}"
    )
