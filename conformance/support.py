"""What the checks expect, stated independently of any implementation.

This module restates conformance/CONTRACT.md in test terms: the fields a converged
ModelService's children and status must have, and small helpers to create ModelServices and
wait for convergence. It imports no operator code, so a check can never pass because the
suite and the operator share a bug.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kubernetes.client.exceptions import ApiException

from harness.kube import Kube, wait_for
from harness.modelservice import (  # noqa: F401  (re-exported for the checks)
    GROUP_VERSION,
    SELECTOR_LABEL,
    condition,
    modelservice,
    status_converged,
)
from harness.operators import OperatorProcess
from harness.verdicts import PremiseFailed

FINALIZER = "modeldock.io/cleanup"

#: How long convergence may take on a loaded 2-core machine (a bound, not a measurement).
CONVERGE_TIMEOUT = 60.0


def premise(holds: object, message: str) -> None:
    """Assert something the experiment needs, not something the operator must do: that the
    fault was injected, that the API server answered as the experiment requires. False:
    ``PremiseFailed`` with ``message``, which the report shows as an error of the check
    (verdict ``error``), never as the operator failing it, and the kill matrix never counts
    as a kill. Use ``assert`` for what the operator is judged on."""
    if not holds:
        raise PremiseFailed.because(message)


def create_modelservice(admin: Kube, namespace: str, name: str, **spec: Any) -> dict[str, Any]:
    """Create a ModelService as admin; return the stored object (defaults applied)."""
    return admin.create("modelservices", namespace, modelservice(name, **spec))


def create_foreign_deployment(admin: Kube, namespace: str, name: str,
                              replicas: int = 1) -> dict[str, Any]:
    """Create, as admin, a Deployment ``name`` that another controller owns: its controller
    ownerReference points at a ConfigMap ``other-owner`` (created too, once). Returns the
    stored Deployment. The situation of ChildConflict: a same-named child the ModelService
    does not control."""
    other = admin.get("configmaps", namespace, "other-owner") or admin.create(
        "configmaps", namespace, {"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": "other-owner"}})
    return admin.create("deployments", namespace, {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "ownerReferences": [{
            "apiVersion": "v1", "kind": "ConfigMap", "name": "other-owner",
            "uid": other["metadata"]["uid"], "controller": True}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "other"}},
                 "template": {"metadata": {"labels": {"app": "other"}},
                              "spec": {"containers": [{"name": "c", "image": "other:1"}]}}},
    })


def wait_observed(admin: Kube, namespace: str, name: str, generation: int,
                  timeout: float = CONVERGE_TIMEOUT) -> dict[str, Any]:
    """Wait until the ModelService's status.observedGeneration is ``generation``; return it.
    AssertionError with the last observed object on timeout."""
    return wait_for(lambda: admin.get("modelservices", namespace, name),
                    lambda m: (m.get("status") or {}).get("observedGeneration") == generation,
                    timeout, f"status.observedGeneration of {namespace}/{name} to reach "
                             f"{generation}")


def status_of(call: Callable[[], object]) -> int:
    """The HTTP status a request of the harness's own got: 200 when ``call()`` returns, the
    ApiException's status when it raises one (for premises on what the API server refuses)."""
    try:
        call()
    except ApiException as exc:
        return int(exc.status)
    return 200


def labels(name: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": "modeldock",
            SELECTOR_LABEL: name}


def controller_ref(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The ownerReference with controller=true, or None."""
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return dict(ref)
    return None


def is_converged(admin: Kube, namespace: str, name: str,
                 msvc: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The ModelService if it has converged (status observedGeneration = generation, both
    conditions set and no ChildConflict, a Deployment with spec.replicas, and a Service),
    else None. ``msvc``: the ModelService as just read (default: read it now), so the
    verdict is about the very object returned."""
    msvc = msvc if msvc is not None else admin.get("modelservices", namespace, name)
    if not msvc:
        return None
    if not status_converged(msvc):
        return None
    dep = admin.get("deployments", namespace, name)
    if not dep or dep["spec"].get("replicas") != msvc["spec"]["replicas"]:
        return None
    if not admin.get("services", namespace, name):
        return None
    return msvc


def wait_converged(admin: Kube, namespace: str, name: str,
                   timeout: float = CONVERGE_TIMEOUT) -> dict[str, Any]:
    """Wait until ``is_converged``; return the ModelService. AssertionError with the last
    observed ModelService on timeout."""
    return wait_for(lambda: admin.get("modelservices", namespace, name),
                    lambda m: is_converged(admin, namespace, name, m) is not None,
                    timeout, f"ModelService {namespace}/{name} to converge")


def wait_gone(admin: Kube, resource: str, namespace: str, name: str,
              timeout: float = CONVERGE_TIMEOUT, what: str | None = None) -> None:
    """Wait until the object is absent (404). AssertionError with the last observed object."""
    deadline = time.monotonic() + timeout
    while True:
        obj = admin.get(resource, namespace, name)
        if obj is None:
            return
        if time.monotonic() > deadline:
            meta = {k: obj["metadata"].get(k) for k in ("deletionTimestamp", "finalizers", "uid")}
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for "
                                 f"{what or f'{resource} {namespace}/{name} to be deleted'}; "
                                 f"last observed metadata: {meta}")
        time.sleep(0.1)


def wait_settled(op: OperatorProcess, timeout: float = 30.0, quiet: float = 1.0) -> float:
    """Wait until the operator's workqueue is empty and its reconcile count has not moved for
    ``quiet`` seconds; return that count. AssertionError on timeout."""
    deadline = time.monotonic() + timeout
    last = -1.0
    since = time.monotonic()
    while time.monotonic() < deadline:
        count = op.reconcile_count()
        if count != last or op.workqueue_depth() > 0:
            last, since = count, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return count
        time.sleep(0.1)
    raise AssertionError(f"{op.impl.id} operator did not settle within {timeout:.0f}s "
                         f"(reconcile count {last}, workqueue depth {op.workqueue_depth()})")


def wait_reconciled_past(op: OperatorProcess, count: float, timeout: float = 30.0) -> float:
    """Wait until the operator's reconcile count exceeds ``count``; return the new count."""
    return wait_for(op.reconcile_count, lambda c: c > count, timeout,
                    f"{op.impl.id} operator to reconcile again (count was {count})")


def expected_deployment_fields(msvc: dict[str, Any]) -> dict[str, Any]:
    """The fields of the Deployment that CONTRACT.md fixes, as (path -> value)."""
    name, spec = msvc["metadata"]["name"], msvc["spec"]
    return {
        "metadata.labels": labels(name),
        "spec.replicas": spec["replicas"],
        "spec.selector": {"matchLabels": {SELECTOR_LABEL: name}},
        "spec.template.metadata.labels": labels(name),
        "container.name": "server",
        "container.image": spec["image"],
        "container.args": [f"--model={spec['model']}", f"--port={spec['port']}", *spec.get("args", [])],
        "container.ports": [{"name": "http", "containerPort": spec["port"], "protocol": "TCP"}],
    }


def actual_deployment_fields(dep: dict[str, Any]) -> dict[str, Any]:
    containers = dep["spec"]["template"]["spec"]["containers"]
    server = next((c for c in containers if c.get("name") == "server"), {})
    return {
        "metadata.labels": {k: v for k, v in (dep["metadata"].get("labels") or {}).items()
                            if k in labels(dep["metadata"]["name"])},
        "spec.replicas": dep["spec"].get("replicas"),
        "spec.selector": dep["spec"].get("selector"),
        "spec.template.metadata.labels": {
            k: v for k, v in (dep["spec"]["template"]["metadata"].get("labels") or {}).items()
            if k in labels(dep["metadata"]["name"])},
        "container.name": server.get("name"),
        "container.image": server.get("image"),
        "container.args": server.get("args"),
        "container.ports": [{k: p.get(k) for k in ("name", "containerPort", "protocol")}
                            for p in server.get("ports") or []],
    }


def expected_service_fields(msvc: dict[str, Any]) -> dict[str, Any]:
    name, spec = msvc["metadata"]["name"], msvc["spec"]
    return {
        "metadata.labels": labels(name),
        "spec.type": "ClusterIP",
        "spec.selector": {SELECTOR_LABEL: name},
        "spec.ports": [{"name": "http", "port": spec["port"], "targetPort": "http",
                        "protocol": "TCP"}],
    }


def actual_service_fields(svc: dict[str, Any]) -> dict[str, Any]:
    name = svc["metadata"]["name"]
    return {
        "metadata.labels": {k: v for k, v in (svc["metadata"].get("labels") or {}).items()
                            if k in labels(name)},
        "spec.type": svc["spec"].get("type"),
        "spec.selector": svc["spec"].get("selector"),
        "spec.ports": [{k: p.get(k) for k in ("name", "port", "targetPort", "protocol")}
                       for p in svc["spec"].get("ports") or []],
    }


def diff_fields(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Lines ``path: expected X, got Y`` for each field that differs."""
    return [f"{k}: expected {expected[k]!r}, got {actual.get(k)!r}"
            for k in expected if expected[k] != actual.get(k)]


# --------------------------------------------------------------------------- Events
#: The source of the operator's Events (CONTRACT.md, "Events").
EVENT_COMPONENT = "modelservice-controller"

#: Every Event reason in the contract, with its type.
EVENT_REASONS = {
    "CreatedDeployment": "Normal", "UpdatedDeployment": "Normal", "DeletedDeployment": "Normal",
    "CreatedService": "Normal", "UpdatedService": "Normal", "DeletedService": "Normal",
    "RemovedFinalizer": "Normal",
    "ChildConflict": "Warning", "FailedCreate": "Warning", "FailedUpdate": "Warning",
    "FailedDelete": "Warning",
}


def event_component(event: dict[str, Any]) -> str:
    """Who reported an Event: ``source.component``, or ``reportingComponent`` (an Event written
    through events.k8s.io/v1 has only the latter); ``kubectl describe`` shows the same."""
    return (event.get("source") or {}).get("component") or event.get("reportingComponent") or ""


def operator_events(admin: Kube, namespace: str, uid: str | None = None) -> list[dict[str, Any]]:
    """The core/v1 Events in ``namespace`` reported by the operator's component, about the
    object with ``uid`` if given, oldest first."""
    found = [e for e in admin.list("events", namespace) if event_component(e) == EVENT_COMPONENT
             and (uid is None or (e.get("involvedObject") or {}).get("uid") == uid)]
    return sorted(found, key=lambda e: (e.get("firstTimestamp") or "", e["metadata"]["name"]))


def describe_event(event: dict[str, Any]) -> str:
    """One line as ``kubectl describe`` shows it: ``Warning ChildConflict (x3) msvc/web: msg``."""
    ref = event.get("involvedObject") or {}
    return (f"{event.get('type')} {event.get('reason')} (x{event.get('count') or 1}) "
            f"{ref.get('kind')}/{ref.get('name')}: {event.get('message')}")


def wait_events_settled(admin: Kube, namespace: str, quiet: float = 1.0,
                        timeout: float = 30.0) -> list[dict[str, Any]]:
    """Wait until the Events in ``namespace`` (names and counts) have not changed for ``quiet``
    seconds, and return them. Event writes are asynchronous: an operator's recorder sends them
    shortly after the reconcile that caused them."""
    deadline = time.monotonic() + timeout
    last: list[tuple[str, int]] | None = None
    since = time.monotonic()
    while True:
        items = admin.list("events", namespace)
        now = sorted((e["metadata"]["name"], int(e.get("count") or 1)) for e in items)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return items
        if time.monotonic() > deadline:
            raise AssertionError(f"Events in {namespace} still changing after {timeout:.0f}s: "
                                 f"{last}")
        time.sleep(0.2)
