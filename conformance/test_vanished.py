"""When the ModelService vanishes under the operator: the children it leaves, and its successor.

A finalizer is meant to hold a ModelService until its operator has cleaned up, but it is not a
lock the API server always honours. A DELETE without preconditions that read the object before
the operator's finalizer update committed removes it anyway, with the update answered 200
(kubernetes/kubernetes#77988; the fix, #129768, was reverted in #133979 and is open again as
#133995; the 1.34 API server the harness builds has the bug). The operator then creates the
children of an object that no longer exists, and they stay owned by its UID: for ever where no
garbage collector runs, and a successor of the same name would report ChildConflict for ever.
These checks show what the operator does about it (CONTRACT.md, "When the ModelService
vanishes"): the pass that learns the ModelService is gone deletes the children it holds, and a
successor deletes a same-named child whose controller is a ModelService that no longer exists.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    DELETE_MESSAGE,
    FINALIZER,
    REACT_TIMEOUT,
    REFUSED_ATTEMPTS,
    condition,
    controller_ref,
    create_modelservice,
    get_present,
    latest_events,
    operator_writes,
    premise,
    present,
    refusal_events,
    refused_deletes,
    retry_owed,
    wait_converged,
    wait_gone,
    wait_refused,
    wait_settled,
)
from harness.accounting import Accounting
from harness.audit import Request, select
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import Implementation, OperatorProcess
from harness.plugin.evidence import Evidence


def _children_of(admin: Kube, namespace: str, uid: str) -> dict[str, str]:
    """``{resource: child uid}`` of the children named ``web`` whose controller ownerReference
    carries ``uid``."""
    found = {}
    for res in CHILDREN:
        obj = admin.get(res, namespace, "web")
        if obj is not None and (controller_ref(obj) or {}).get("uid") == uid:
            found[res] = obj["metadata"]["uid"]
    return found


def _converges_as(admin: Kube, namespace: str, uid: str, evidence: Evidence) -> None:
    """ModelService ``web`` converges with UID ``uid``, its Deployment controlled by it."""
    msvc = wait_converged(admin, namespace, "web")
    evidence.record("successor_ready", condition(msvc, "Ready"))
    assert msvc["metadata"]["uid"] == uid
    dep = get_present(admin, "deployments", namespace, "web")
    assert present(controller_ref(dep), "the Deployment's controller")["uid"] == uid, (
        f"the successor's Deployment must be its own: {controller_ref(dep)}"
    )


def _foreign_service(admin: Kube, namespace: str) -> str:
    """Create a Service ``web`` that a ConfigMap ``other-owner`` (created too) controls;
    return its UID."""
    other = admin.create("configmaps", namespace, {"metadata": {"name": "other-owner"}})
    owner = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "other-owner",
        "uid": other["metadata"]["uid"],
        "controller": True,
    }
    svc = admin.create(
        "services",
        namespace,
        {
            "metadata": {"name": "web", "ownerReferences": [owner]},
            "spec": {"selector": {"app": "other"}, "ports": [{"port": 80}]},
        },
    )
    return str(svc["metadata"]["uid"])


def _dead_owner_children(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> tuple[OperatorProcess, dict[str, Any], dict[str, str]]:
    """Stage the children of a ModelService ``web`` that no longer exists: it converges, then
    loses its finalizer and is deleted while the operator is down, and its children stay
    (envtest has no garbage collector). Returns the stopped operator, the gone ModelService as
    created and ``{resource: child uid}`` of the children it left (``_children_of``)."""
    op = operators.start()
    gone = create_modelservice(admin, namespace, "web")
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    op.terminate()
    admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
    admin.delete("modelservices", namespace, "web")
    left = _children_of(admin, namespace, gone["metadata"]["uid"])
    evidence.record("children_of_the_gone_modelservice", left)
    return op, gone, left


@pytest.mark.modeldock_check("vanished-owner", case="finalizer-race")
def test_finalizer_race(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """vanished-owner[finalizer-race]: a pass whose ModelService was deleted although its
    finalizer update was answered 200 deletes, by UID precondition, the children it created,
    once its status update is answered 404; a successor of the same name then converges.

    The race itself (a DELETE that read the object before the finalizer update committed,
    then deleted it anyway) happens inside the API server, between its read and its storage
    delete, where no proxy can reach; holding the update until the DELETE arrives only makes
    the update fail (404). So this case stages the world the race leaves, deterministically:
    the operator's API proxy forwards the finalizer update at once and keeps its answer back;
    meanwhile the harness (admin) removes the finalizer and deletes the ModelService, which
    goes at once; then the answer, 200 with the finalizer on, is delivered. The operator holds
    a ModelService with its finalizer, as on the racing API server, creates both children for
    it, and learns at its status update that it is gone. A loop of create and delete shows
    the real race on envtest within a few dozen tries; this shows the same end state every
    time. Where a garbage collector runs (sim) it may delete the children first: the check
    passes then too.
    """
    _finalizer_race(admin, namespace, operators, audit, evidence, impl, foreign=False)


@pytest.mark.modeldock_check("vanished-owner", case="foreign-held")
def test_finalizer_race_foreign_held(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """vanished-owner[foreign-held]: the cleanup of a pass whose ModelService is gone deletes
    only the children that ModelService controlled, never a foreign one the pass holds.

    Staged as ``[finalizer-race]``, with a Service ``web`` that a ConfigMap controls there
    from the start: the pass creates its Deployment, reports a ChildConflict for the Service
    and holds it beside the Deployment. When its status update is answered 404, the
    Deployment must be deleted and the foreign Service must keep its UID (CONTRACT.md, "When
    the ModelService vanishes"). The harness removes it before the successor is created.
    """
    _finalizer_race(admin, namespace, operators, audit, evidence, impl, foreign=True)


def _finalizer_race(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    *,
    foreign: bool,
) -> None:
    """The body of ``[finalizer-race]`` (``foreign``: with a Service ``web`` a ConfigMap
    controls, ``[foreign-held]``). Raises AssertionError on the checks' failures and
    PremiseFailed when the race was not staged."""
    foreign_uid = _foreign_service(admin, namespace) if foreign else ""
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        # The first write of a ModelService is the finalizer update.
        proxy.hold_answer(1, resources=["modelservices"])
        uid = create_modelservice(admin, namespace, "web")["metadata"]["uid"]
        held = proxy.wait_answer(REACT_TIMEOUT)
        request = held.get("request") or {}
        evidence.record("held_answer", {k: request.get(k) for k in ("verb", "resource", "code")})
        premise(
            # update, as the contract says; an implementation that patches (kopf) races alike
            held.get("held")
            and request.get("verb") in ("update", "patch")
            and request.get("code") == 200,
            f"the proxy should hold the answer (200) of the operator's finalizer write: {held}",
        )
        stored = get_present(admin, "modelservices", namespace, "web")
        premise(
            FINALIZER in stored["metadata"].get("finalizers", []),
            f"the finalizer update should have been applied: {stored['metadata']}",
        )
        # The API server's part of the race: the object goes, finalizer and all.
        admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
        admin.delete("modelservices", namespace, "web")
        premise(
            admin.get("modelservices", namespace, "web") is None,
            "the ModelService should be gone at once (no finalizer left)",
        )
        start = audit.sync(admin)
        premise(proxy.release_answer(), "the proxy should release the held answer")
        wait_settled(op)
        writes = select(
            audit.requests(start, audit.sync(admin)),
            user=impl.user,
            namespace=namespace,
            writes_only=True,
        )
        evidence.record("operator_writes", [r.describe() for r in writes])
        created = [
            r for r in writes if r.verb == "create" and r.resource in CHILDREN and r.code < 300
        ]
        premise(
            created,
            "after its finalizer update was answered 200 the operator should have created "
            f"children for ModelService {uid}: {[r.describe() for r in writes]}",
        )
        left = _children_of(admin, namespace, uid)
        evidence.record("children_left_behind", left)
        assert not left, (
            f"ModelService {uid} is gone (its status update was answered 404), and the children "
            f"its operator created for it are left, owned by a UID that no longer exists: {left}"
        )
        deletes = [r for r in writes if r.verb == "delete"]
        assert all(r.precondition_uid for r in deletes), (
            "every delete of a child must carry its UID as a precondition: "
            f"{[(r.describe(), r.precondition_uid) for r in deletes]}"
        )
        if foreign:
            kept = admin.get("services", namespace, "web")
            evidence.record(
                "foreign_service_uid",
                {"staged": foreign_uid, "after": (kept or {}).get("metadata", {}).get("uid")},
            )
            assert kept is not None and kept["metadata"]["uid"] == foreign_uid, (
                "the Service web a ConfigMap controls (the pass's ChildConflict) was deleted by "
                f"the cleanup of the gone ModelService {uid}: only its own children are its to "
                f"delete; the operator's deletes: {[r.describe() for r in deletes]}"
            )
            admin.delete("services", namespace, "web")
            wait_gone(admin, "services", namespace, "web")
        successor = create_modelservice(admin, namespace, "web")
        _converges_as(admin, namespace, successor["metadata"]["uid"], evidence)


@pytest.mark.modeldock_check("vanished-owner", case="dead-owner-child")
def test_dead_owner_child(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """vanished-owner[dead-owner-child]: a same-named child whose controller ownerReference is
    a ModelService of our name with another UID is the child of a ModelService that no longer
    exists; the operator deletes it (UID precondition) and creates its own, where the garbage
    collector would have collected it, instead of reporting ChildConflict for ever.

    Names are unique at any one time and UIDs are never reused, so while ModelService ``web``
    exists, a ``web`` child controlled by another ModelService ``web`` belongs to one that is
    gone: left by a pass that could not clean up (the race of ``[finalizer-race]`` with the
    operator killed before its status update, or an operator that did not clean up at all).
    Here it is staged by hand: a converged ModelService loses its finalizer and is deleted
    while the operator is down, its children stay (envtest has no garbage collector; on sim
    the garbage collector takes them and the case shows the successor converging), and a
    successor of the same name is created. The successor's children are new objects: the gone
    ModelService's are deleted, never updated into the successor's (same UIDs, the controller
    ownerReference rewritten), as an operator that tells its children by the owner's kind or
    name would. A child controlled by anything else is still a ChildConflict
    (``child-conflict``; another live ModelService: ``child-conflict[other-modelservice]``).
    """
    op, gone, left = _dead_owner_children(admin, namespace, operators, evidence)
    op.start()
    start = audit.sync(admin)
    successor = create_modelservice(admin, namespace, "web")
    msvc: dict[str, Any] = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (
            (m.get("status") or {}).get("observedGeneration") == 1
            and condition(m, "Ready") is not None
        ),
        REACT_TIMEOUT,
        "the operator to write the successor's status",
    )
    ready = present(condition(msvc, "Ready"), "condition Ready")
    evidence.record("successor_ready_first", ready)
    assert ready["reason"] != "ChildConflict", (
        f"the children of ModelService {gone['metadata']['uid']}, which no longer exists, are "
        f"not a conflict: they are the garbage collector's, and the successor's to replace: "
        f"{ready}"
    )
    _converges_as(admin, namespace, successor["metadata"]["uid"], evidence)
    writes = select(
        audit.requests(start, audit.sync(admin)),
        user=impl.user,
        namespace=namespace,
        writes_only=True,
    )
    deletes = [r for r in writes if r.verb == "delete"]
    evidence.record("operator_deletes", [(r.describe(), r.precondition_uid) for r in deletes])
    assert all(r.precondition_uid in left.values() for r in deletes), (
        f"every delete must carry the UID of a child of the gone ModelService ({left}) as "
        f"its precondition: {[(r.describe(), r.precondition_uid) for r in deletes]}"
    )
    assert successor["metadata"]["uid"] != gone["metadata"]["uid"]
    # Ownership is by UID (CONTRACT.md, "Ownership"): the gone ModelService's children are
    # replaced (deleted, created anew), never updated into the successor's, which an operator
    # that tells its children by the owner's kind or name does (mutants owner-by-kind,
    # owner-by-kind-go): same UID, its controller ownerReference rewritten.
    now = {res: get_present(admin, res, namespace, "web")["metadata"]["uid"] for res in CHILDREN}
    evidence.record("successor_children", now)
    kept = {res: uid for res, uid in left.items() if now.get(res) == uid}
    assert not kept, (
        f"the children of ModelService {gone['metadata']['uid']}, which no longer exists, were "
        f"taken over in place (same UIDs) instead of replaced: {kept}"
    )
    updates = [
        r.describe() for r in writes if r.resource in CHILDREN and r.verb in ("update", "patch")
    ]
    evidence.record("child_updates", updates)
    assert updates == [], (
        f"no child of the gone ModelService is updated as if it were the successor's: {updates}"
    )


@pytest.mark.modeldock_needs("audit-log")
@pytest.mark.modeldock_check("vanished-owner", case="refused-delete")
def test_refused_delete_of_dead_owner_child(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """vanished-owner[refused-delete]: a refused delete of a dead owner's child ends the
    successor's pass: no create is sent over the child still in the way, a Warning
    FailedDelete names it, and once the refusal is lifted the successor converges.

    The children of a ModelService ``web`` that no longer exists are staged as in
    ``[dead-owner-child]``; an admission policy then refuses the operator's Deployment deletes
    and a successor ``web`` is created. The delete the successor owes the dead owner's
    Deployment is refused (403): the child is still there, so the pass must end with that
    error and be retried with backoff (CONTRACT.md, "When the ModelService vanishes"). After
    six refused deletes the operator's requests must hold no create of Deployment ``web`` (one
    would only be answered 409 AlreadyExists: a write sent over a child the operator knows is
    in its way), the dead owner's Deployment must still be stored, and a Warning FailedDelete
    Event about the successor must name Deployment "web" and the policy's message. Then the
    policy is removed, which no watch shows: the successor must converge with children of its
    own within the backoff owed after the refused deletes plus the convergence bound.
    """
    op, _, left = _dead_owner_children(admin, namespace, operators, evidence)
    premise("deployments" in left, f"the gone ModelService left its Deployment: {left}")
    user = impl.user
    start = audit.sync(admin)

    def deployment_writes(verb: str) -> list[Request]:
        """The operator's requests of ``verb`` on Deployment web since the successor."""
        return operator_writes(audit, admin, start, user, namespace, ("deployments",), verb, "web")

    with refused_deletes(admin, namespace, user):
        op.start()
        successor = create_modelservice(admin, namespace, "web")
        refused = wait_refused(
            lambda: deployment_writes("delete"),
            f"{REFUSED_ATTEMPTS} refused deletes of the gone ModelService's Deployment web",
        )
        creates = [r.describe() for r in deployment_writes("create")]
        dep = admin.get("deployments", namespace, "web")
        warnings = refusal_events(
            admin,
            namespace,
            successor["metadata"]["uid"],
            "FailedDelete",
            'Deployment "web"',
            DELETE_MESSAGE,
        )
        evidence.record(
            "refused",
            {"deletes": refused, "creates": creates, "warnings": warnings},
        )
        assert creates == [], (
            "the operator sent a create of Deployment web while the gone ModelService's "
            f"Deployment, whose delete was refused, was still in the way: {creates}; a refused "
            'delete ends the pass with its error (CONTRACT.md, "When the ModelService '
            'vanishes")'
        )
        assert dep is not None and dep["metadata"]["uid"] == left["deployments"], (
            "the policy refused every delete, yet the gone ModelService's Deployment is not "
            f"stored: {None if dep is None else dep['metadata']['uid']}"
        )
        assert warnings, (
            'a Warning FailedDelete Event naming Deployment "web" and the policy\'s message: '
            f"{latest_events(admin, namespace)}"
        )
    failures = sum(1 for r in deployment_writes("delete") if not r.ok)
    bound, why = retry_owed(failures)
    evidence.record("lifted", {"refused_before": failures, "owed": why})
    wait_converged(admin, namespace, "web", timeout=bound)
    _converges_as(admin, namespace, successor["metadata"]["uid"], evidence)
