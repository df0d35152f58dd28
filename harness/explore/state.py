"""The end state of a scenario, normalised so that two runs compare, and the oracle.

Normalised: no UIDs, resourceVersions, times, managedFields, generations of children, or
server-assigned addresses; an ownerReference names its owner (``ModelService/demo``) instead
of its UID, or ``<gone>`` when no live object has that UID; the namespace is ``<ns>``. The status keeps everything but
``lastTransitionTime``, its conditions keyed by type. Events are not part of the state (their
counts depend on timing).

Besides the state: ``recovery_writes``, the bound on what the operator process started after a
crash may write (docs/design.md, "Exploration").
"""

from __future__ import annotations

import copy
import json
from typing import Any, NamedTuple

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
    """The status without times, its conditions keyed by type: a map list
    (``x-kubernetes-list-type: map``), whose order carries no meaning, as
    ``conformance/test_parity.py`` compares them, so two implementations that write the same
    conditions in another order compare equal."""
    s = copy.deepcopy(status or {})
    if "conditions" in s:
        s["conditions"] = {
            c.get("type"): {k: v for k, v in c.items() if k != "lastTransitionTime"}
            for c in s["conditions"] or []
        }
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
            for c in ((m.get("status") or {}).get("conditions") or {}).values()
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


#: The children whose writes after a restart are bounded (``recovery_writes``).
CHILDREN = ("deployments", "services")


class Write(NamedTuple):
    """One write of the operator as its API proxy logged it: ``verb`` (create, update, patch,
    delete, ...), plural ``resource``, object ``name``, HTTP ``code`` of the answer (the API
    server's; a write the proxy answered itself is not a ``Write``)."""

    verb: str
    resource: str
    name: str
    code: int


def _stale(
    child: dict[str, Any], res: str, state: dict[str, Any], expected: dict[str, Any] | None
) -> bool:
    """Whether the operator may delete ``child`` (normalised, of ``res``) in ``state``: it is
    controlled by a ModelService that is gone or being deleted (cleanup, CONTRACT.md step 2),
    or by a ModelService UID that no longer exists (a vanished owner), or a Deployment whose
    ``spec.selector``, immutable, differs from the one in ``expected`` (a replacement,
    CONTRACT.md "Ownership"). A child someone else controls is never stale."""
    for ref in child["metadata"]["ownerReferences"]:
        if not ref["controller"] or ref["kind"] != "ModelService":
            continue
        if ref["owner"] == "<gone>":
            return True
        owner = state["modelservices"].get(ref["owner"].partition("/")[2])
        if owner is None or owner["metadata"].get("deleting"):
            return True
        want = ((expected or {}).get(res) or {}).get(child["metadata"]["name"])
        if res == "deployments" and want is not None:
            return bool(
                (want.get("spec") or {}).get("selector")
                != (child.get("spec") or {}).get("selector")
            )
    return False


def recovery_writes(
    at_restart: dict[str, Any], writes: list[Write], expected: dict[str, Any] | None = None
) -> list[str]:
    """The writes to children of the operator process started after a crash that recovery did
    not need; one line each, empty when every write was needed.

    ``at_restart``: the normalised state (``snapshot``) after the crashed process was killed
    and before the new one started; ``writes``: the new process's writes, in order, of any
    resource (only ``CHILDREN`` are judged); ``expected``: the clean run's end state (for the
    immutable fields of a replacement), or None.

    The rule, per child (resource and name): the new process starts from a full list of the
    world, so it creates a child only if it was missing at restart or the process itself
    deleted it meanwhile, at most once per absence; a create answered 409 AlreadyExists is
    allowed once, right after the process's own accepted create of that child (its cache a
    moment behind its own write); it deletes a child only if it existed at restart and was
    stale (``_stale``), at most once: a second delete, or a delete of a child that was
    neither stale nor there, is a write recovery did not need. Updates are not bounded here
    (quiet is). Source: CONTRACT.md, "After a crash" (level-triggered recovery from the
    world, no write the world did not call for).
    """
    problems: list[str] = []
    for res in CHILDREN:
        for name in sorted({w.name for w in writes if w.resource == res}):
            live = at_restart.get(res, {}).get(name)
            present, created, tolerated, deleted = live is not None, False, False, False
            stale = (
                live is not None
                and not live["metadata"].get("deleting")
                and _stale(live, res, at_restart, expected)
            )
            for w in (w for w in writes if w.resource == res and w.name == name):
                what = f"{w.verb} {res}/{name} {w.code}"
                ok = 200 <= w.code < 300
                if w.verb == "create":
                    if not present:
                        if ok:
                            present = created = True
                        continue
                    if created and not tolerated and w.code == 409:
                        tolerated = True  # its cache a moment behind its own create
                        continue
                    problems.append(
                        f"{what}: the child "
                        + (
                            "was created by this process already"
                            if created
                            else "existed at restart"
                        )
                        + " (a create recovery did not need)"
                    )
                elif w.verb == "delete":
                    if deleted or not present:
                        problems.append(
                            f"{what}: "
                            + (
                                "a second delete of the child"
                                if deleted
                                else "the child was not there"
                            )
                            + " (a delete recovery did not need)"
                        )
                        continue
                    if not stale or created:
                        problems.append(
                            f"{what}: the child was not stale (its ModelService live and not "
                            "deleting, no immutable field to replace) or was being deleted "
                            "already: a delete recovery did not need"
                        )
                    deleted = True
                    if ok or w.code == 404:
                        present = False
    return problems
