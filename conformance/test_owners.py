"""Checks of whose each field is: other writers on the children, the user's ModelService, the
status, and a ModelService that is being deleted.

An operator shares every object it touches. Others write its children (a service mesh
injects a sidecar, ``kubectl rollout restart`` stamps the pod template, an admin pins session
affinity); the user owns the ModelService's spec, labels and annotations; anyone with the
right may overwrite its status; and once a deletion has started, the spec no longer says what
should run. Each check here stages one of those and judges the operator by the requests it
made (its API proxy, or the audit log), not by what it says about itself.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    CONVERGE_TIMEOUT,
    FINALIZER,
    REACT_TIMEOUT,
    condition,
    create_modelservice,
    first_within,
    get_present,
    premise,
    wait_converged,
    wait_gone,
    wait_reconciled_past,
    wait_requests_quiet,
    wait_settled,
    writes_during,
)
from conformance.tiered import wait_rolled_out
from harness.accounting import Accounting
from harness.audit import select, summarize
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.modelservice import modelservice
from harness.operators import Implementation
from harness.plugin.evidence import Evidence
from harness.tiers import Tier

#: What the other writers of foreign-fields-kept add to the children: fields the contract's
#: Mutate never sets (CONTRACT.md, "Desired Deployment" and "Desired Service").
SIDECAR = {"name": "mesh-proxy", "image": "example.com/mesh-proxy:1"}
FOREIGN_ENV = {"name": "EXTRA_FLAGS", "value": "--verbose"}
RESTARTED_AT = ("kubectl.kubernetes.io/restartedAt", "2026-01-02T03:04:05Z")
SESSION_AFFINITY = "ClientIP"
#: A finalizer of the harness's own: it holds an object (a child, the ModelService) while the
#: check changes what it needs to.
HOLD = "example.com/hold"


#: foreign-fields-kept's ModelService resources, the CPU limit the user raises them to, and the
#: requests the user adds in the same change (a field the Deployment did not have).
RESOURCES = {"limits": {"cpu": "1", "memory": "1Gi"}}
RAISED_CPU = "2"
ADDED_REQUESTS = {"memory": "512Mi"}


def _cpu_limit(dep: dict[str, Any]) -> Any:
    """The CPU limit of the operator's container in Deployment ``dep`` (None when unset)."""
    return ((_server(dep).get("resources") or {}).get("limits") or {}).get("cpu")


def _server(dep: dict[str, Any]) -> dict[str, Any]:
    """The Deployment's container named ``server`` (the operator's own)."""
    return next(c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] == "server")


def _foreign_fields(dep: dict[str, Any], svc: dict[str, Any]) -> dict[str, Any]:
    """What of the other writers' fields the children hold now, for evidence and comparison."""
    template = dep["spec"]["template"]
    return {
        "containers": [c["name"] for c in template["spec"]["containers"]],
        "server_env": [e.get("name") for e in _server(dep).get("env") or []],
        "template_annotation": (template["metadata"].get("annotations") or {}).get(RESTARTED_AT[0]),
        "session_affinity": svc["spec"].get("sessionAffinity"),
        "owner_kinds": [
            (r.get("kind"), bool(r.get("controller")))
            for r in dep["metadata"].get("ownerReferences") or []
        ],
    }


#: _foreign_fields of children that kept every field the other writers added.
FOREIGN_KEPT = {
    "containers": ["server", SIDECAR["name"]],
    "server_env": [FOREIGN_ENV["name"]],
    "template_annotation": RESTARTED_AT[1],
    "session_affinity": SESSION_AFFINITY,
    "owner_kinds": [("ConfigMap", False), ("ModelService", True)],
}

#: The ConfigMap whose non-controller ownerReference another writer puts first on the
#: Deployment (a tool that ties the Deployment's life to its config as well).
CO_OWNER = "web-config"


@pytest.mark.modeldock_check("foreign-fields-kept")
def test_foreign_fields_kept(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    tier: Tier,
) -> None:
    """Fields of the children that the operator does not own stay as other writers set them,
    and cost no write; a field it owns that someone changed is restored in one write that
    keeps the others.

    A Deployment and a Service have more writers than their controller: a service mesh adds a
    sidecar container and environment variables, `kubectl rollout restart` stamps the pod
    template with kubectl.kubernetes.io/restartedAt, an admin sets the Service's
    sessionAffinity. An operator that writes its whole idea of the child (the desired object,
    or a template rebuilt from scratch) removes them at its next reconcile, the other writer
    puts them back, and the two fight for ever; a restart the user asked for is silently
    undone. Here the harness, as its own user, adds all four after convergence, and puts a
    non-controller ownerReference to a ConfigMap of its own before ours on the Deployment
    (only the reference with ``controller: true`` says whose child it is, wherever it
    stands): they must stay and the operator must send no write to either child. Then it changes the replicas,
    the image and the CPU limit of the operator's container: the operator must restore all
    three with exactly one successful update of the Deployment, and the foreign fields must
    survive that update. Last, the user raises the CPU limit in the ModelService and adds
    requests, a field the Deployment did not have: the Deployment follows in one update that
    keeps them too (a quantity compares by value, and a changed value is a change; a field
    added to spec.resources after convergence is a change too, not a panic).
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web", replicas=1, resources=RESOURCES)
    msvc = set_up(
        lambda: (
            wait_rolled_out(admin, namespace, "web", tier)
            or wait_converged(admin, namespace, "web")
        ),
        "the first convergence, before the experiment",
    )
    image = msvc["spec"]["image"]

    def add_to_service() -> dict[str, Any]:
        return admin.patch(
            "services", namespace, "web", {"spec": {"sessionAffinity": SESSION_AFFINITY}}
        )

    config = admin.create(
        "configmaps", namespace, {"metadata": {"name": CO_OWNER}, "data": {"mesh": "on"}}
    )
    co_owner = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": CO_OWNER,
        "uid": config["metadata"]["uid"],
    }

    def add_to_deployment() -> dict[str, Any]:
        dep = get_present(admin, "deployments", namespace, "web")
        refs = dep["metadata"].get("ownerReferences") or []
        dep["metadata"]["ownerReferences"] = [co_owner, *refs]
        template = dep["spec"]["template"]
        template["metadata"].setdefault("annotations", {})[RESTARTED_AT[0]] = RESTARTED_AT[1]
        _server(dep).setdefault("env", []).append(FOREIGN_ENV)
        template["spec"]["containers"].append(SIDECAR)
        return admin.update("deployments", dep)

    window = writes_during(
        op, audit, admin, namespace, add_to_service, add_to_deployment, ok_only=True
    )
    stored = _foreign_fields(window.results[1], window.results[0])
    premise(stored == FOREIGN_KEPT, f"the API server did not store the foreign fields: {stored}")
    wait_rolled_out(admin, namespace, "web", tier)  # sim: the restart is a rollout
    dep = get_present(admin, "deployments", namespace, "web")
    svc = get_present(admin, "services", namespace, "web")
    kept = _foreign_fields(dep, svc)
    child_writes = [r.describe() for r in window.writes if r.resource in CHILDREN]
    evidence.record("foreign_fields_after", kept)
    evidence.record("child_writes_after_foreign_fields", child_writes)
    assert kept == FOREIGN_KEPT, (
        f"fields another writer set on the children were removed or changed: expected "
        f"{FOREIGN_KEPT}, the children hold {kept}"
    )
    assert child_writes == [], (
        f"the operator wrote the children after another writer added fields it does not own: "
        f"{child_writes}"
    )

    # A field the operator owns, changed by hand: restored in one update that keeps the rest.
    def edit_owned() -> dict[str, Any]:
        dep = get_present(admin, "deployments", namespace, "web")
        dep["spec"]["replicas"] = 4
        _server(dep)["image"] = "example.com/other:2"
        _server(dep)["resources"]["limits"]["cpu"] = "3"
        admin.update("deployments", dep)
        return wait_for(
            lambda: admin.get("deployments", namespace, "web"),
            lambda d: (
                d["spec"]["replicas"] == 1
                and _server(d)["image"] == image
                and _cpu_limit(d) == RESOURCES["limits"]["cpu"]
            ),
            CONVERGE_TIMEOUT,
            f"hand-edited replicas (4), image and CPU limit (3) to be restored to 1, {image} "
            f"and {RESOURCES['limits']['cpu']}",
        )

    restore = writes_during(op, audit, admin, namespace, edit_owned)
    restored = restore.results[0]
    dep_writes = [r for r in restore.writes if r.resource == "deployments"]
    evidence.record("restore_writes", summarize(restore.writes))
    evidence.record("deployment_writes_to_restore", [r.describe() for r in dep_writes])
    ok = [r.describe() for r in dep_writes if r.ok]
    assert len(ok) == 1 and ok[0].startswith("update deployments web"), (
        f"a hand-edited owned field must be restored with one update of the Deployment; the "
        f"operator's writes of it: {[r.describe() for r in dep_writes]}"
    )
    after = _foreign_fields(restored, get_present(admin, "services", namespace, "web"))
    evidence.record("foreign_fields_after_restore", after)
    assert after == FOREIGN_KEPT, (
        f"the update that restored the owned fields removed another writer's: {after}"
    )

    # A quantity the user changes in the ModelService reaches the Deployment, in one update,
    # and so do requests added in the same change: spec.resources changes shape (a field the
    # converged Deployment lacks), which is written like any other change.
    def raise_limit() -> dict[str, Any]:
        limits = {**RESOURCES["limits"], "cpu": RAISED_CPU}
        admin.patch(
            "modelservices",
            namespace,
            "web",
            {"spec": {"resources": {"limits": limits, "requests": ADDED_REQUESTS}}},
        )
        return wait_for(
            lambda: admin.get("deployments", namespace, "web"),
            lambda d: (
                _cpu_limit(d) == RAISED_CPU
                and (_server(d).get("resources") or {}).get("requests") == ADDED_REQUESTS
            ),
            CONVERGE_TIMEOUT,
            f"the Deployment's CPU limit to follow the ModelService's, raised to {RAISED_CPU}, "
            f"and its requests to be the ones added, {ADDED_REQUESTS}",
        )

    follow = writes_during(op, audit, admin, namespace, raise_limit)
    dep_writes = [r for r in follow.writes if r.resource == "deployments"]
    evidence.record("deployment_writes_to_follow_quantity", [r.describe() for r in dep_writes])
    ok = [r.describe() for r in dep_writes if r.ok]
    assert len(ok) == 1 and ok[0].startswith("update deployments web"), (
        f"a changed quantity in the ModelService must reach the Deployment in one update; the "
        f"operator's writes of it: {[r.describe() for r in dep_writes]}"
    )
    after = _foreign_fields(follow.results[0], get_present(admin, "services", namespace, "web"))
    assert after == FOREIGN_KEPT, (
        f"the update that carried the new CPU limit removed another writer's fields: {after}"
    )


#: The user's ModelService of user-object-kept: labels, annotations and a spec in spellings
#: the API server stores as written (no whitespace or number is normalised in a custom
#: resource), so any change by the operator shows in a byte-for-byte comparison.
USER_LABELS = {"example.com/team": "ml", "app.kubernetes.io/part-of": "demo"}
USER_ANNOTATIONS = {
    "example.com/note": "  kept as written,\ttabs and  spaces included ",
    "example.com/config": '{"b": 1, "a": [2, 1]}',
}
USER_SPEC: dict[str, Any] = {
    "replicas": 2,
    "args": ["--dtype=bf16", "--max-batch=8"],
    "resources": {"limits": {"cpu": "1500m", "memory": "0.5Gi"}},
}


@pytest.mark.modeldock_check("user-object-kept")
def test_user_object_kept(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
    tier: Tier,
) -> None:
    """The ModelService is the user's: its spec, labels and annotations stay byte for byte as
    the user wrote them, metadata.generation stays 1, and the operator writes the object only
    to add its finalizer and, through the status subresource, its status.

    The spec is the user's request and the labels and annotations are the user's (and other
    tools') notes on it; `kubectl apply` compares them with what the user last applied. An
    operator that writes into them (a default filled in, a "managed-by" label, a note of
    what it last handled) turns every apply into a conflict with the operator, makes
    metadata.generation count its writes instead of the user's changes, and makes GitOps
    tools report drift that nobody caused. Here the user writes labels, annotations and a
    spec in spellings the API server keeps as written; after convergence and a restart of the
    operator (which reconciles everything again) all three must equal the stored object of
    the user's create, generation must be 1, and the operator's writes of the ModelService
    must be one update (the finalizer) and status updates, nothing else.
    """
    op = operators.start()
    body = modelservice("web", **USER_SPEC)
    body["metadata"]["labels"] = dict(USER_LABELS)
    body["metadata"]["annotations"] = dict(USER_ANNOTATIONS)
    created = admin.create("modelservices", namespace, body)
    set_up(
        lambda: (
            wait_rolled_out(admin, namespace, "web", tier)
            or wait_converged(admin, namespace, "web")
        ),
        "the first convergence, before the experiment",
    )
    wait_settled(op)
    op.terminate()
    op.start()
    wait_reconciled_past(op, 0)  # premise: the new process reconciled the ModelService
    wait_settled(op)
    msvc = get_present(admin, "modelservices", namespace, "web")

    meta, was = msvc["metadata"], created["metadata"]
    problems = []
    for field in ("labels", "annotations"):
        if meta.get(field) != was.get(field):
            problems.append(
                f"metadata.{field}: the user wrote {was.get(field)}, now {meta.get(field)}"
            )
    if msvc["spec"] != created["spec"]:
        problems.append(f"spec: the user wrote {created['spec']}, now {msvc['spec']}")
    if meta["generation"] != 1:
        problems.append(
            f"metadata.generation: expected 1 (one spec, the user's), got {meta['generation']}"
        )
    added = [f for f in meta.get("finalizers") or [] if f not in (was.get("finalizers") or [])]
    if added != [FINALIZER]:
        problems.append(f"metadata.finalizers: expected {FINALIZER} added, got {added}")
    evidence.record("generation", meta["generation"])
    evidence.record("labels", meta.get("labels"))
    evidence.record("annotations", meta.get("annotations"))

    writes = select(
        audit.requests(),
        user=impl.user,
        namespace=namespace,
        writes_only=True,
        resources=("modelservices",),
    )
    evidence.record("modelservice_writes", summarize(writes))
    own = [r.describe() for r in writes if r.subresource != "status"]
    others = [r.describe() for r in writes if r.subresource == "status" and r.verb != "update"]
    ok_own = [r.describe() for r in writes if r.subresource != "status" and r.ok]
    if len(ok_own) != 1 or not ok_own[0].startswith("update modelservices web"):
        problems.append(
            f"the operator's writes of the ModelService itself must be one update (the "
            f"finalizer); they were {own}"
        )
    if others:
        problems.append(f"the status is written with update only, not: {others}")
    assert not problems, "the operator changed the user's ModelService:\n  " + "\n  ".join(problems)


#: What "someone else" writes over the status in status-rebuilt: conditions, counts and an
#: observedGeneration that describe nothing real.
GARBAGE_CONDITIONS = [
    {
        "type": ctype,
        "status": "Unknown",
        "reason": "Overwritten",
        "message": "written by another client, not by the operator",
        "observedGeneration": 7,
        "lastTransitionTime": "2020-01-01T00:00:00Z",
    }
    for ctype in ("Ready", "Progressing")
]


def _owned_status(msvc: dict[str, Any]) -> dict[str, Any]:
    """The operator's status fields, with its conditions minus their lastTransitionTime (a
    restored condition that changed status gets a new one, rightly)."""
    status = copy.deepcopy(msvc.get("status") or {})
    for cond in status.get("conditions") or []:
        cond.pop("lastTransitionTime", None)
    return status


@pytest.mark.modeldock_check("status-rebuilt")
def test_status_rebuilt(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    tier: Tier,
) -> None:
    """The status is computed from the world, not remembered: a status that someone else
    overwrote is written again as the cluster says it should be.

    The status subresource has other writers than the operator: a `kubectl edit --subresource
    status`, a backup restored, a buggy tool, a second operator by mistake. An operator that
    decides whether to write its status by comparing with what it believes it last wrote
    (a memory in the process) sees no difference and leaves the wrong status there until the
    spec changes or the process restarts; users and other controllers then act on a status
    that describes nothing. Here, after convergence, the harness overwrites the status through
    the status subresource with conditions of status Unknown, a wrong observedGeneration and
    wrong counts; the operator must restore the converged status (timestamps aside).
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web", replicas=1)
    set_up(
        lambda: (
            wait_rolled_out(admin, namespace, "web", tier)
            or wait_converged(admin, namespace, "web")
        ),
        "the first convergence, before the experiment",
    )
    wait_settled(op)
    msvc = get_present(admin, "modelservices", namespace, "web")
    good = _owned_status(msvc)
    msvc["status"] = {
        **msvc["status"],
        "observedGeneration": 7,
        "replicas": 9,
        "readyReplicas": 9,
        "availableReplicas": 9,
        "conditions": copy.deepcopy(GARBAGE_CONDITIONS),
    }
    stored = admin.update("modelservices", msvc, subresource="status")
    premise(
        condition(stored, "Ready") == GARBAGE_CONDITIONS[0],
        f"the API server did not store the overwritten status: {stored.get('status')}",
    )
    restored = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: _owned_status(m) == good,
        CONVERGE_TIMEOUT,
        "the operator to restore the overwritten status",
    )
    evidence.record("status_restored", restored["status"])


#: The Deployment states status-rebuilt[deployment-status] writes, and what the ModelService's
#: Ready condition must then say: (Deployment status, Ready status, Ready reason).
DEPLOYMENT_STATES = [
    (
        # a rollout's last step: both new pods up, an old one still terminating (maxSurge), so
        # status.replicas (3) is not spec.replicas (2)
        {"replicas": 3, "updatedReplicas": 2, "readyReplicas": 3, "availableReplicas": 3},
        "False",
        "ReplicasUnavailable",
    ),
    (
        # a scale-down from 4 the deployment controller has observed and not finished: more
        # updated replicas than spec.replicas, all available. kubectl rollout status says
        # complete (only fewer updated replicas than wanted is a rollout in progress)
        {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 4, "availableReplicas": 4},
        "True",
        "ReplicasAvailable",
    ),
    (
        {"replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2},
        "True",
        "ReplicasAvailable",
    ),
    (
        {"replicas": 2, "updatedReplicas": 2, "readyReplicas": 1, "availableReplicas": 1},
        "False",
        "ReplicasUnavailable",
    ),
]


@pytest.mark.modeldock_needs("no-deployment-controller")
@pytest.mark.modeldock_check("status-rebuilt", case="deployment-status")
def test_status_follows_deployment_status(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """status-rebuilt[deployment-status]: a change of the Deployment's status alone, with no
    change of any spec and no write of the operator's, reaches the ModelService's conditions.

    The deployment controller writes only the Deployment's status subresource: the
    Deployment's generation does not move, and neither does anything the operator wrote. An
    operator that recomputes its status only when it wrote a child, or only when a
    generation changed, never reports a rollout finishing. Envtest has no deployment
    controller, so the harness writes the Deployment's status as it would (observedGeneration
    = generation): a rollout's last step, an old pod still terminating beside the two new
    ones (3 replicas for a spec of 2: Ready=False, ReplicasUnavailable), then a scale-down from
    4 observed and not finished (4 updated replicas, all available, for a spec of 2: complete,
    as kubectl rollout status says, so Ready=True, ReplicasAvailable), then all replicas
    available (Ready=True, ReplicasAvailable), then one lost (Ready=False,
    ReplicasUnavailable). The operator must follow each, with the counts (``replicas``,
    ``readyReplicas``, ``availableReplicas`` copied from the Deployment's status, not from the
    spec: no other check moves them off 0 on envtest), and write no child meanwhile.
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web", replicas=2)
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )

    def play(fields: dict[str, Any]) -> Any:
        dep = get_present(admin, "deployments", namespace, "web")
        dep["status"] = {**fields, "observedGeneration": dep["metadata"]["generation"]}
        admin.update("deployments", dep, subresource="status")

        def follows(m: dict[str, Any]) -> bool:
            return all(
                m["status"].get(k) == fields[k]
                for k in ("replicas", "readyReplicas", "availableReplicas")
            )

        return wait_for(
            lambda: admin.get("modelservices", namespace, "web"),
            follows,
            CONVERGE_TIMEOUT,
            f"the ModelService's status to follow the Deployment's status {fields}",
        )

    window = writes_during(
        op, audit, admin, namespace, *[lambda f=f: play(f) for f, _, _ in DEPLOYMENT_STATES]
    )
    seen = []
    for msvc, (_fields, ready, reason) in zip(window.results, DEPLOYMENT_STATES, strict=True):
        got = condition(msvc, "Ready") or {}
        seen.append((got.get("status"), got.get("reason")))
        assert (got.get("status"), got.get("reason")) == (ready, reason), (
            f"the Deployment's status changed and Ready did not follow: expected {ready}/"
            f"{reason}, got {got}"
        )
    evidence.record("ready_after_each_state", seen)
    child_writes = [r.describe() for r in window.writes if r.resource in CHILDREN]
    evidence.record("child_writes", child_writes)
    assert child_writes == [], (
        f"a status change of the Deployment made the operator write: {child_writes}"
    )


@pytest.mark.modeldock_check("finalizer-ordered-delete", case="spec-while-deleting")
def test_spec_change_while_deleting(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """finalizer-ordered-delete[spec-while-deleting]: a spec changed while the ModelService is
    being deleted changes no child and re-creates none.

    Once a deletion has started, the spec no longer says what should run: the object is on
    its way out, and its finalizer only orders the cleanup. Updates are still allowed (a
    user's apply, a tool that bumps the image), and an operator that rolls them out, deleting
    or not, re-creates the children it just deleted and fights its own cleanup. Here both the
    ModelService and its Deployment carry a finalizer of the harness's own, so the deletion
    stays in progress: the operator deletes both children, the Deployment stays (deleting,
    held) and the operator's finalizer with it. The harness then changes replicas and image;
    over three of the operator's cleanup passes after the change (each a live read of the
    Deployment on its API proxy) it must create and update no child. Once the Deployment is
    released and the operator's finalizer gone, a second spec change must bring no child
    either (the window closes on the operator's API proxy's quiet once it reconciled, or
    REACT_TIMEOUT after the change if it does not look at a ModelService it no longer
    holds).
    """
    op = operators.start()
    body = modelservice("web")
    body["metadata"]["finalizers"] = [HOLD]
    admin.create("modelservices", namespace, body)
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    admin.patch("deployments", namespace, "web", {"metadata": {"finalizers": [HOLD]}})
    admin.delete("modelservices", namespace, "web")
    wait_for(
        lambda: (
            admin.get("deployments", namespace, "web") or {},
            admin.get("services", namespace, "web"),
        ),
        lambda pair: bool(pair[0].get("metadata", {}).get("deletionTimestamp")) and pair[1] is None,
        CONVERGE_TIMEOUT,
        "the operator to delete both children (the Deployment held by the harness's finalizer)",
    )
    held = get_present(admin, "modelservices", namespace, "web")
    premise(
        FINALIZER in held["metadata"].get("finalizers", []),
        f"the operator's finalizer must still be on while its Deployment is held: {held['metadata']}",
    )
    dep_uid = get_present(admin, "deployments", namespace, "web")["metadata"]["uid"]
    accounting = operators.accounting
    start = accounting.sync()
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 3, "image": "srv:2"}})

    def child_requests() -> list[Any]:
        return [
            r
            for r in accounting.requests(start, accounting.sync())
            if r.namespace == namespace and r.resource in CHILDREN
        ]

    # Three cleanup passes after the change, as the proxy saw them (a live read of the
    # Deployment each), or the first child write, which is what this case is about.
    seen = wait_for(
        child_requests,
        lambda rs: (
            sum(r.verb == "get" and r.resource == "deployments" for r in rs) >= 3
            or any(r.is_write and r.verb != "delete" for r in rs)
        ),
        REACT_TIMEOUT,
        "three cleanup passes of the operator after the spec change (live reads of the Deployment)",
    )
    writes = [r.describe() for r in seen if r.is_write and r.verb != "delete"]
    evidence.record("child_writes_after_spec_change", writes)
    assert writes == [], f"a spec changed while deleting made the operator write children: {writes}"
    dep = get_present(admin, "deployments", namespace, "web")
    assert dep["metadata"]["uid"] == dep_uid and dep["spec"]["replicas"] == 1, (
        f"the deleting Deployment was changed: replicas {dep['spec']['replicas']}"
    )
    assert admin.get("services", namespace, "web") is None, "the deleted Service was re-created"

    # The operator's cleanup finishes once the Deployment goes; the harness's finalizer holds on.
    admin.patch("deployments", namespace, "web", {"metadata": {"finalizers": []}})
    wait_for(
        lambda: get_present(admin, "modelservices", namespace, "web"),
        lambda m: m["metadata"].get("finalizers") == [HOLD],
        CONVERGE_TIMEOUT,
        "the operator to remove its finalizer once the Deployment is gone",
    )
    wait_requests_quiet(op)
    start = accounting.sync()
    count = op.reconcile_count()
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    # Evidence, not a premise: a ModelService without the operator's finalizer is nothing of
    # its own to clean up, and an operator may rightly not look at it at all (kopf does not).
    looked = first_within(
        op.reconcile_count, lambda c: c > count, REACT_TIMEOUT, "a reconcile of the change"
    )
    evidence.record("reconciled_after_finalizer_removed", looked is not None)
    wait_requests_quiet(op)
    late = [
        r.describe()
        for r in accounting.requests(start, accounting.sync())
        if r.is_write and r.namespace == namespace and r.resource in CHILDREN
    ]
    evidence.record("child_writes_after_finalizer_removed", late)
    left = [res for res in CHILDREN if admin.get(res, namespace, "web")]
    assert late == [] and left == [], (
        f"after its finalizer was removed, a spec change made the operator write {late}; "
        f"children present: {left}"
    )
    admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": []}})
    wait_gone(admin, "modelservices", namespace, "web")
