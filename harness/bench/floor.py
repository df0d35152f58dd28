"""The floor: what the API server allows. The writes a perfect operator needs for each new
ModelService, sent with no informer and no work queue at the same concurrency as the operators'
workers, on the same control plane in the same bench run.

The client is a Go program, ``harness/bench/floorclient`` (client-go, no client-side rate
limit), run by ``harness.bench.gofloor``: the admin creates each ModelService (8 goroutines,
like every bench run), the create's answer goes straight to one of ``workers`` goroutines,
which send, in the contract's order (conformance/CONTRACT.md, "Reconcile, step by step"):

1. the ModelService with finalizer ``modeldock.io/cleanup`` appended (PUT, the create's
   resourceVersion as precondition),
2. the desired Deployment (POST), 3. the desired Service (POST), exactly as the contract's
   "Desired Deployment" and "Desired Service" say,
4. the status (PUT ``/status``, from the answer of write 1): what the operators compute for a
   Deployment without status (envtest runs no Deployment controller): Ready False
   ``ReplicasUnavailable``, Progressing True ``RolloutInProgress``.

A perfect operator learns of each object through a watch event some milliseconds after its
create and writes through a client at least as heavy; the floor learns of it from the create's
own answer, so it is a bound no operator can reach, not a target (``results.floor_violations``
names a ratio to it below 1). The builders here are the Go program's twins, pure functions on
dicts: ``harness/bench/floorclient/testdata/desired.json`` is what both make of one
ModelService, checked by the unit tests of each side. The floor writes as its own user,
``modeldock:floor`` (bound to the operator role like an operator's user), so the audit log
counts its writes apart.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from harness.modelservice import GROUP_VERSION, SELECTOR_LABEL

#: The user the floor client writes as (a client certificate issued by the bench).
FLOOR_USER = "modeldock:floor"

#: The User-Agent of the floor client's requests.
FLOOR_USER_AGENT = "modeldock-floor"

#: The finalizer the contract puts on every ModelService before its children.
FINALIZER = "modeldock.io/cleanup"

#: The CRD's defaults, used only when a ModelService's spec lacks them (the API server
#: defaults them on create, so the create's answer has them).
DEFAULT_REPLICAS = 1
DEFAULT_PORT = 8000


def child_labels(name: str) -> dict[str, str]:
    """The three labels on both children and on the pod template."""
    return {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/managed-by": "modeldock",
        SELECTOR_LABEL: name,
    }


def owner_reference(ms: Mapping[str, Any]) -> dict[str, Any]:
    """The controller ownerReference a child of ``ms`` carries."""
    meta = ms["metadata"]
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "ModelService",
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _child_metadata(ms: Mapping[str, Any]) -> dict[str, Any]:
    meta = ms["metadata"]
    return {
        "name": meta["name"],
        "namespace": meta["namespace"],
        "labels": child_labels(meta["name"]),
        "ownerReferences": [owner_reference(ms)],
    }


def _spec(ms: Mapping[str, Any]) -> tuple[int, int]:
    spec = ms.get("spec") or {}
    return int(spec.get("replicas", DEFAULT_REPLICAS)), int(spec.get("port", DEFAULT_PORT))


def desired_deployment(ms: Mapping[str, Any]) -> dict[str, Any]:
    """The Deployment the contract prescribes for ``ms`` (a ModelService as stored)."""
    name = ms["metadata"]["name"]
    spec = ms.get("spec") or {}
    replicas, port = _spec(ms)
    args = [f"--model={spec.get('model', '')}", f"--port={port}", *(spec.get("args") or [])]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _child_metadata(ms),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {SELECTOR_LABEL: name}},
            "template": {
                "metadata": {"labels": child_labels(name)},
                "spec": {
                    "containers": [
                        {
                            "name": "server",
                            "image": spec.get("image", ""),
                            "args": args,
                            "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
                            "resources": dict(spec.get("resources") or {}),
                        }
                    ]
                },
            },
        },
    }


def desired_service(ms: Mapping[str, Any]) -> dict[str, Any]:
    """The Service the contract prescribes for ``ms``."""
    name = ms["metadata"]["name"]
    _, port = _spec(ms)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _child_metadata(ms),
        "spec": {
            "type": "ClusterIP",
            "selector": {SELECTOR_LABEL: name},
            "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}],
        },
    }


def with_finalizer(ms: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``ms`` (metadata copied one level deep) with the contract's finalizer
    appended; its resourceVersion is the update's precondition."""
    meta = dict(ms["metadata"])
    meta["finalizers"] = [*(meta.get("finalizers") or []), FINALIZER]
    return {**ms, "metadata": meta}


def floor_status(ms: Mapping[str, Any], now: datetime.datetime | None = None) -> dict[str, Any]:
    """The status the operators write after creating a Deployment that has no status yet (the
    contract's "Status": zero replicas, Ready False ``ReplicasUnavailable``, Progressing True
    ``RolloutInProgress``, both at the ModelService's generation)."""
    meta = ms["metadata"]
    name, namespace = meta["name"], meta["namespace"]
    generation = int(meta.get("generation") or 0)
    _, port = _spec(ms)
    when = (now or datetime.datetime.now(datetime.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # The Deployment was just created and has no status yet.
    message = (
        f'Deployment "{name}" is waiting for the deployment controller to observe its latest spec'
    )

    def cond(ctype: str, status: str, reason: str) -> dict[str, Any]:
        return {
            "type": ctype,
            "status": status,
            "observedGeneration": generation,
            "lastTransitionTime": when,
            "reason": reason,
            "message": message,
        }

    return {
        "observedGeneration": generation,
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "selector": f"{SELECTOR_LABEL}={name}",
        "url": f"http://{name}.{namespace}.svc:{port}",
        "conditions": [
            cond("Ready", "False", "ReplicasUnavailable"),
            cond("Progressing", "True", "RolloutInProgress"),
        ],
    }
