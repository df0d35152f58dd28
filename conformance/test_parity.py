"""Parity: two implementations, same input, same output."""

from __future__ import annotations

import copy
import difflib
from functools import partial
from pathlib import Path
from typing import Any, overload

import pytest
import yaml

from conformance.support import (
    CONVERGE_TIMEOUT,
    condition,
    create_foreign_deployment,
    create_modelservice,
    wait_converged,
    wait_settled,
)
from harness.envtest.controlplane import ControlPlane
from harness.kube import Kube, wait_for
from harness.lab.namespaces import create_namespace
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence

#: The inputs: name -> spec. Chosen to exercise defaults, every optional field, a quantity the
#: API server rewrites (1000m -> 1, 1.5m -> 2m), zero replicas, and a conflict with a foreign child.
INPUTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "full": {
        "replicas": 3,
        "port": 9000,
        "args": ["--dtype=bf16", "--max-batch=8"],
        "resources": {"limits": {"cpu": "1000m", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
    },
    # Quantities the API server rounds up (1.5m -> 2m) or spells otherwise (0.5Gi -> 512Mi).
    "rewritten-quantities": {
        "resources": {
            "requests": {"cpu": "1.5m", "memory": "0.5Gi"},
            "limits": {"cpu": "1e-2", "memory": "1073741824"},
        }
    },
    "scaled-to-zero": {"replicas": 0},
    "conflicted": {"model": "other"},
}

#: Metadata that differs between any two runs (identity, time, bookkeeping), and fields the
#: API server allocates.
_VOLATILE_META = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "managedFields",
    "namespace",
    "generateName",
    "selfLink",
)


@overload
def normalise(obj: dict[str, Any], namespace: str) -> dict[str, Any]: ...
@overload
def normalise(obj: None, namespace: str) -> None: ...
@overload
def normalise(obj: dict[str, Any] | None, namespace: str) -> dict[str, Any] | None: ...


def normalise(obj: dict[str, Any] | None, namespace: str) -> dict[str, Any] | None:
    """A copy of ``obj`` without what legitimately differs between runs: uids,
    resourceVersions, timestamps, managedFields (and with them field manager names), the
    namespace, allocated cluster IPs; conditions keyed by type, since their order carries no
    meaning."""
    if obj is None:
        return None
    out = copy.deepcopy(obj)
    meta = out.get("metadata", {})
    for key in _VOLATILE_META:
        meta.pop(key, None)
    for ref in meta.get("ownerReferences") or []:
        ref["uid"] = "<uid of owner>"
    spec = out.get("spec") or {}
    for key in ("clusterIP", "clusterIPs"):
        spec.pop(key, None)
    status = out.get("status") or {}
    if "conditions" in status:
        # A map keyed by type (x-kubernetes-list-type: map): compared by type, not position.
        status["conditions"] = {
            c.get("type"): {
                **c,
                "lastTransitionTime": "<time>",
                **({"lastUpdateTime": "<time>"} if "lastUpdateTime" in c else {}),
            }
            for c in status["conditions"] or []
        }
    text = yaml.safe_dump(out, sort_keys=True)
    normalised: dict[str, Any] = yaml.safe_load(text.replace(namespace, "<namespace>"))
    return normalised


def _seed(admin: Kube, ns: str) -> None:
    create_foreign_deployment(admin, ns, "conflicted")
    for name, spec in INPUTS.items():
        create_modelservice(admin, ns, name, **spec)


def _wait_done(admin: Kube, ns: str) -> None:
    for name in INPUTS:
        if name == "conflicted":
            wait_for(
                partial(admin.get, "modelservices", ns, name),
                lambda m: (condition(m, "Ready") or {}).get("reason") == "ChildConflict",
                CONVERGE_TIMEOUT,
                f"{ns}/{name} to report ChildConflict",
            )
        else:
            wait_converged(admin, ns, name)


def _snapshot(admin: Kube, ns: str) -> dict[str, Any]:
    snap: dict[str, Any] = {}
    for name in INPUTS:
        msvc = admin.get("modelservices", ns, name)
        snap[f"{name}/status"] = normalise(msvc, ns)["status"] if msvc else None
        snap[f"{name}/finalizers"] = (msvc or {}).get("metadata", {}).get("finalizers")
        snap[f"{name}/deployment"] = normalise(admin.get("deployments", ns, name), ns)
        snap[f"{name}/service"] = normalise(admin.get("services", ns, name), ns)
    return snap


def readable_diff(
    left: dict[str, Any], right: dict[str, Any], left_name: str, right_name: str
) -> str:
    """A unified diff of two snapshots' YAML, per differing key."""
    parts = []
    for key in sorted(set(left) | set(right)):
        a = yaml.safe_dump(left.get(key), sort_keys=True).splitlines()
        b = yaml.safe_dump(right.get(key), sort_keys=True).splitlines()
        if a != b:
            parts.append(
                "\n".join(
                    difflib.unified_diff(
                        a, b, f"{left_name}: {key}", f"{right_name}: {key}", lineterm=""
                    )
                )
            )
    return "\n".join(parts)


@pytest.mark.modeldock_check("parity")
def test_parity(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    control_plane: ControlPlane,
    reference_impl: Implementation,
    tmp_path: Path,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """The implementation under test and the reference produce the same Deployments, Services
    and status for the same ModelServices.

    Two controllers that claim to implement one API must be interchangeable: a user who
    switches from one to the other must see the same children and the same status, or every
    tool built on top (dashboards, alerts, GitOps diffs) breaks. The same inputs go to both,
    each in its own namespace; the outputs are compared after removing only what must differ
    (uids, resourceVersions, timestamps, managedFields and with them the field manager's name,
    the namespace, allocated cluster IPs).
    """
    ref_ns = create_namespace(admin, "parity-reference", reference_impl.user)
    try:
        ref_pool = OperatorPool(
            reference_impl, control_plane.kubeconfig_for(reference_impl.user), ref_ns, tmp_path
        )
        ours, theirs = operators.start(), ref_pool.start()
        try:
            _seed(admin, namespace)
            _seed(admin, ref_ns)
            _wait_done(admin, namespace)
            _wait_done(admin, ref_ns)
            wait_settled(ours)
            wait_settled(theirs)
            mine, ref = _snapshot(admin, namespace), _snapshot(admin, ref_ns)
        finally:
            ref_pool.stop_all()
        evidence.record("compared_with", reference_impl.id)
        evidence.record("objects_compared", len(mine))
        diff = readable_diff(ref, mine, reference_impl.id, impl.id)
        evidence.record("differences", diff.count("\n@@"))
        assert not diff, (
            f"{impl.id} and {reference_impl.id} produced different objects "
            f"(- {reference_impl.id}, + {impl.id}):\n{diff}"
        )
    finally:
        admin.delete("namespaces", None, ref_ns)
