"""Foreign children beside ours: what a same-named child that is not ours changes, and what not.

``child-conflict`` and ``replaced-child-kept`` each stage one foreign child in one place (a
Deployment another controller owns before the ModelService exists; a Service replaced while
the operator is down). These cases put the foreign child where the other child's handling
must go on regardless (CONTRACT.md, "Ownership" and "Deletion"):

- ``replaced-child-kept[foreign-deployment]``: the *Deployment* is replaced by a foreign one
  while the Service is still ours; deleting the ModelService must delete our Service all the
  same (the cleanup looks at every child, not only up to the first that is not ours) and keep
  the foreign Deployment.
- ``child-conflict[other-group]``: a same-named *Service* controlled by a ModelService of
  another API group (a second CRD, ``ModelService`` in ``<namespace>.other.example/v1``,
  with an object called like ours): the owner's kind and name are ours, its group is not, so
  it is neither our child nor a vanished ModelService's, and neither adopted (though it
  carries our selector label) nor deleted: a ChildConflict, reported after the Deployment
  was created.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.premises import set_up
from conformance.support import (
    REACT_TIMEOUT,
    SELECTOR_LABEL,
    condition,
    controller_ref,
    create_foreign_deployment,
    create_modelservice,
    get_present,
    present,
    wait_converged,
    wait_gone,
    wait_settled,
)
from harness.accounting import Accounting
from harness.audit import select
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence


@pytest.mark.modeldock_needs("audit-log")
@pytest.mark.modeldock_check("replaced-child-kept", case="foreign-deployment")
def test_foreign_deployment_our_service(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """replaced-child-kept[foreign-deployment]: when the Deployment is no longer ours but the
    Service still is, deleting the ModelService deletes our Service (UID precondition), keeps
    the foreign Deployment, and only then removes the finalizer.

    The cleanup reads each child in turn, Deployment then Service, and deletes the ones whose
    controller ownerReference carries the ModelService's UID (CONTRACT.md, "Deletion"). A
    child that is not ours is skipped, not a reason to stop: here, while the operator is
    down, the converged ModelService's Deployment is deleted and a same-named Deployment that
    a ConfigMap controls takes its place; then the ModelService is deleted and the operator
    started. The ModelService must be gone, the foreign Deployment stored with its UID, and
    the operator's deletes (read from the audit log) must be exactly one: the Service's, with
    its UID as precondition. An operator that stops at the first child that is not ours
    removes its finalizer over its own Service, which then outlives its owner.
    """
    op = operators.start()
    create_modelservice(admin, namespace, "web")
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    svc_uid = get_present(admin, "services", namespace, "web")["metadata"]["uid"]
    op.terminate()

    admin.delete("deployments", namespace, "web")
    set_up(
        lambda: wait_gone(admin, "deployments", namespace, "web"),
        "our Deployment gone before the foreign one takes its name",
    )
    foreign = create_foreign_deployment(admin, namespace, "web")
    evidence.record(
        "children", {"foreign_deployment": foreign["metadata"]["uid"], "our_service": svc_uid}
    )
    start = audit.sync(admin)
    admin.delete("modelservices", namespace, "web")
    op.start()
    wait_gone(admin, "modelservices", namespace, "web", what="the ModelService to finish deleting")
    svc = admin.get("services", namespace, "web")
    dep = admin.get("deployments", namespace, "web")
    deletes = [
        r
        for r in select(
            audit.requests(start, audit.sync(admin)),
            user=impl.user,
            namespace=namespace,
            writes_only=True,
        )
        if r.verb == "delete"
    ]
    seen = [f"{r.describe()} precondition uid={r.precondition_uid}" for r in deletes]
    evidence.record("operator_deletes", seen)
    assert dep is not None and dep["metadata"]["uid"] == foreign["metadata"]["uid"], (
        "the foreign Deployment (controlled by ConfigMap other-owner) was deleted or replaced "
        "by the cleanup"
    )
    assert svc is None, (
        f"our Service (uid {svc_uid}) outlived its ModelService: the cleanup removed the "
        f"finalizer without deleting it, once the Deployment was not ours; deletes: {seen}"
    )
    assert [(r.resource, r.precondition_uid) for r in deletes] == [("services", svc_uid)], (
        f"the cleanup must delete our Service, with its UID as precondition, and nothing "
        f"else: {seen}"
    )


#: The second API group's version, and its ModelService CRD's spec (the same kind and plural
#: as ours, any content).
OTHER_VERSION = "v1"


def _other_crd(group: str) -> dict[str, Any]:
    """A namespaced CRD ``modelservices.<group>`` of kind ModelService, schema-less."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"modelservices.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {
                "plural": "modelservices",
                "singular": "modelservice",
                "kind": "ModelService",
                "listKind": "ModelServiceList",
            },
            "versions": [
                {
                    "name": OTHER_VERSION,
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


@contextmanager
def other_group_modelservice(admin: Kube, namespace: str, name: str) -> Iterator[dict[str, Any]]:
    """A ModelService ``name`` of another API group, ``<namespace>.other.example/v1`` (its CRD
    installed for the body, one per namespace so that parallel runs never share it, removed
    after, objects and all): yields the stored object. PremiseFailed when the CRD is not
    served within REACT_TIMEOUT."""
    group = f"{namespace}.other.example"
    crd = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/modelservices.{group}"
    admin.request("POST", crd.rsplit("/", 1)[0], _other_crd(group))
    try:
        path = f"/apis/{group}/{OTHER_VERSION}/namespaces/{namespace}/modelservices"

        def create() -> dict[str, Any] | None:
            try:
                body = {
                    "apiVersion": f"{group}/{OTHER_VERSION}",
                    "kind": "ModelService",
                    "metadata": {"name": name},
                }
                created: dict[str, Any] = admin.request("POST", path, body)
                return created
            except ApiException as exc:
                if exc.status == 404:
                    return None  # not served yet
                raise

        yield set_up(
            lambda: wait_for(create, lambda o: o is not None, REACT_TIMEOUT, f"{group} served"),
            f"the CRD of {group} served",
        )
    finally:
        try:
            admin.request("DELETE", crd)
        except ApiException as exc:
            if exc.status != 404:
                raise


@pytest.mark.modeldock_check("child-conflict", case="other-group")
def test_child_of_another_group(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """child-conflict[other-group]: a same-named Service controlled by a ModelService of
    another API group is neither adopted nor deleted: the status says ChildConflict naming the
    Service, and the Service keeps its UID, resourceVersion and controller.

    A ModelService is ``modeldock.io``'s: the rule that deletes the child of a vanished
    ModelService (same kind, same name, another UID; CONTRACT.md, "When the ModelService
    vanishes") holds for that group only, and adoption only for an ownerless child. Here a
    second CRD serves ``ModelService`` in ``<namespace>.other.example/v1``; its object ``web``
    exists and controls a Service ``web`` that carries our selector label and selects our
    pods (a label is not ownership while a controller is set: only an ownerless child with it
    is adoptable); then our ModelService ``web`` is created.
    The Deployment is free, so the operator creates it and meets the Service in step 5: Ready
    must say ChildConflict and name Service "web", and once the operator settled the Service
    must be the same object, unwritten, still controlled by the other group's ModelService.
    """
    with other_group_modelservice(admin, namespace, "web") as other:
        owner = {
            "apiVersion": other["apiVersion"],
            "kind": "ModelService",
            "name": "web",
            "uid": other["metadata"]["uid"],
            "controller": True,
        }
        foreign = admin.create(
            "services",
            namespace,
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {
                    "name": "web",
                    "labels": {SELECTOR_LABEL: "web"},
                    "ownerReferences": [owner],
                },
                "spec": {
                    "selector": {SELECTOR_LABEL: "web"},
                    "ports": [{"name": "http", "port": 80}],
                },
            },
        )
        evidence.record("foreign_service", {"uid": foreign["metadata"]["uid"], "owner": owner})
        op = operators.start()
        create_modelservice(admin, namespace, "web")
        msvc = wait_for(
            lambda: admin.get("modelservices", namespace, "web"),
            lambda m: (condition(m, "Ready") or {}).get("reason") == "ChildConflict",
            REACT_TIMEOUT,
            "status to report ChildConflict",
        )
        wait_settled(op)
        ready = present(condition(msvc, "Ready"), "condition Ready")
        evidence.record("ready", ready)
        assert 'Service "web"' in ready["message"], f"the message must name the child: {ready}"
        now = get_present(admin, "services", namespace, "web")
        evidence.record(
            "service_after", {"uid": now["metadata"]["uid"], "ref": controller_ref(now)}
        )
        assert now["metadata"]["uid"] == foreign["metadata"]["uid"], (
            f"the Service of {owner['apiVersion']} ModelService web was deleted and replaced: "
            "another group's ModelService is not a vanished one of ours"
        )
        assert controller_ref(now) == owner, (
            f"the Service of {owner['apiVersion']} ModelService web changed controller: "
            f"{controller_ref(now)}"
        )
        assert now["metadata"]["resourceVersion"] == foreign["metadata"]["resourceVersion"], (
            f"the Service of {owner['apiVersion']} ModelService web was written (adopted)"
        )
