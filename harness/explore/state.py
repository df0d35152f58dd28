"""The end state of a scenario, normalised so that two runs compare, and the oracle.

Normalised: no UIDs, resourceVersions, times, managedFields, generations of children, or
server-assigned addresses; an ownerReference names its owner (``ModelService/demo``) instead
of its UID, or ``<gone>`` when no live object has that UID; the namespace is ``<ns>``. The status keeps everything but
``lastTransitionTime``. Events are not part of the state (their counts depend on timing).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from harness.kube import Kube

FINALIZER = "modeldock.io/cleanup"
#: The resources that make up the state, and the ones the operator's writes are counted on.
RESOURCES = ("modelservices", "deployments", "services")


def _meta(obj: dict[str, Any], owners: dict[str, str]) -> dict[str, Any]:
    m = obj.get("metadata") or {}
    refs = [
        {
            "kind": r.get("kind"),
            "name": r.get("name"),
            "owner": owners.get(r.get("uid", ""), "<gone>"),
            "controller": bool(r.get("controller")),
            "blockOwnerDeletion": bool(r.get("blockOwnerDeletion")),
        }
        for r in m.get("ownerReferences") or []
    ]
    out: dict[str, Any] = {
        "name": m.get("name"),
        "labels": m.get("labels") or {},
        "annotations": m.get("annotations") or {},
        "finalizers": m.get("finalizers") or [],
        "ownerReferences": refs,
    }
    if m.get("deletionTimestamp"):
        out["deleting"] = True
    return out


def _status(status: dict[str, Any] | None) -> dict[str, Any]:
    s = copy.deepcopy(status or {})
    for c in s.get("conditions") or []:
        c.pop("lastTransitionTime", None)
    return s


def snapshot(admin: Kube, namespace: str) -> dict[str, Any]:
    """The normalised state of the namespace: ``{resource: {name: object}}``."""
    raw = {res: admin.list(res, namespace) for res in (*RESOURCES, "configmaps")}
    owners = {
        o["metadata"]["uid"]: f"{kind}/{o['metadata']['name']}"
        for kind, res in (
            ("ModelService", "modelservices"),
            ("Deployment", "deployments"),
            ("Service", "services"),
            ("ConfigMap", "configmaps"),
        )
        for o in raw[res]
    }
    state: dict[str, Any] = {res: {} for res in RESOURCES}
    for m in raw["modelservices"]:
        state["modelservices"][m["metadata"]["name"]] = {
            "metadata": _meta(m, owners) | {"generation": m["metadata"].get("generation")},
            "spec": m.get("spec"),
            "status": _status(m.get("status")),
        }
    for d in raw["deployments"]:
        state["deployments"][d["metadata"]["name"]] = {
            "metadata": _meta(d, owners),
            "spec": d.get("spec"),
        }
    for s in raw["services"]:
        spec = {
            k: v for k, v in (s.get("spec") or {}).items() if k not in ("clusterIP", "clusterIPs")
        }
        state["services"][s["metadata"]["name"]] = {"metadata": _meta(s, owners), "spec": spec}
    # Each run has its own namespace; where it is named (the status url), it is "<ns>".
    return json.loads(json.dumps(state).replace(namespace, "<ns>"))  # type: ignore[no-any-return]


def diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where two normalised states differ, one line per leaf: ``path: expected -> actual``."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k in sorted(set(expected) | set(actual), key=str):
            p = f"{path}.{k}" if path else str(k)
            if k not in actual:
                out.append(f"{p}: missing (expected {_short(expected[k])})")
            elif k not in expected:
                out.append(f"{p}: unexpected {_short(actual[k])}")
            else:
                out += diff(expected[k], actual[k], p)
        return out
    if expected != actual:
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def _short(v: Any, limit: int = 160) -> str:
    s = repr(v)
    return s if len(s) <= limit else s[:limit] + "..."


def invariants(state: dict[str, Any]) -> list[str]:
    """What must hold in any quiet end state, whatever the clean run did: every child is
    controlled by a live owner (none left behind by a vanished ModelService), no ModelService
    controls two children of a kind, a live ModelService not in ChildConflict controls one of
    each (no child lost), a live ModelService keeps the finalizer and a deleting
    one does not stay held by it."""
    problems = []
    for res in ("deployments", "services"):
        controlled: dict[str, list[str]] = {}
        for name, obj in state[res].items():
            for ref in obj["metadata"]["ownerReferences"]:
                if ref["controller"]:
                    if ref["owner"] == "<gone>":
                        problems.append(
                            f"{res}/{name} left behind: its controller "
                            f"{ref['kind']}/{ref['name']} no longer exists"
                        )
                    controlled.setdefault(ref["owner"], []).append(name)
        for owner, names in controlled.items():
            if len(names) > 1 and owner != "<gone>":
                problems.append(
                    f"{owner} controls {len(names)} {res}: {sorted(names)} (duplicated)"
                )
    for name, m in state["modelservices"].items():
        conflict = any(
            c.get("reason") == "ChildConflict"
            for c in (m.get("status") or {}).get("conditions") or []
        )
        if not m["metadata"].get("deleting") and not conflict:
            for res in ("deployments", "services"):
                mine = [
                    n
                    for n, obj in state[res].items()
                    if any(
                        r["controller"] and r["owner"] == f"ModelService/{name}"
                        for r in obj["metadata"]["ownerReferences"]
                    )
                ]
                if not mine:
                    problems.append(f"modelservices/{name} has no {res[:-1]} (child lost)")
        fins = m["metadata"]["finalizers"]
        if m["metadata"].get("deleting") and FINALIZER in fins:
            problems.append(
                f"modelservices/{name} is deleting and still holds {FINALIZER} (finalizer left)"
            )
        if not m["metadata"].get("deleting") and FINALIZER not in fins:
            problems.append(
                f"modelservices/{name} lacks its finalizer {FINALIZER} (finalizer lost)"
            )
        if fins.count(FINALIZER) > 1:
            problems.append(f"modelservices/{name} has {FINALIZER} {fins.count(FINALIZER)} times")
    return problems
