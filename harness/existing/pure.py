"""The pure parts of the ``existing`` tier: names, labels, the run scope, which namespaces a
cleanup takes, the CRD comparison and the token kubeconfig. No I/O, no imports of the rest of
the harness (``harness.lab`` imports this module).
"""

from __future__ import annotations

import copy
import datetime
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: The label every namespace a run creates carries (value: the run id); a cleanup selects by it.
RUN_LABEL = "modeldock.dev/run"
#: The annotation naming the process that owns the run: ``<host>/<pid>:<start time>``.
OWNER_ANNOTATION = "modeldock.dev/owner"
#: The annotation on a cluster-scoped object (the CRD, the ClusterRole) the run created.
CREATED_BY_ANNOTATION = "modeldock.dev/created-by-run"


def new_run_id(now: datetime.datetime | None = None) -> str:
    """A run id that is a valid label value: ``<UTC yyyymmdd-hhmmss>-<6 hex>``."""
    now = now or datetime.datetime.now(datetime.UTC)
    return f"{now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


def run_metadata(run_id: str, host: str, identity: str) -> tuple[dict[str, str], dict[str, str]]:
    """(labels, annotations) of every namespace run ``run_id`` creates: ``RUN_LABEL`` and
    ``OWNER_ANNOTATION`` (``<host>/<identity>``, the owner's ``process_identity``)."""
    return {RUN_LABEL: run_id}, {OWNER_ANNOTATION: f"{host}/{identity}"}


def leftovers(
    namespaces: Iterable[dict[str, Any]],
    *,
    host: str,
    alive: Callable[[str], bool],
    run_id: str | None = None,
    all_runs: bool = False,
) -> list[str]:
    """Names of the namespaces a cleanup deletes, from Namespace objects: those with
    ``RUN_LABEL``; of run ``run_id`` if given; of any run with ``all_runs``; else only those
    whose ``OWNER_ANNOTATION`` names this ``host`` and an identity ``alive`` says is dead (a
    run on another machine, or a live one here, is never taken without being named)."""
    out: list[str] = []
    for ns in namespaces:
        meta = ns.get("metadata") or {}
        labels = meta.get("labels") or {}
        if RUN_LABEL not in labels:
            continue
        if run_id is not None:
            take = labels[RUN_LABEL] == run_id
        elif all_runs:
            take = True
        else:
            owner = str((meta.get("annotations") or {}).get(OWNER_ANNOTATION, ""))
            owner_host, _, identity = owner.partition("/")
            take = owner_host == host and bool(identity) and not alive(identity)
        if take:
            out.append(str(meta.get("name")))
    return sorted(out)


@dataclass(frozen=True)
class RunScope:
    """Where a run's namespaces live on a cluster the harness does not own (the ``existing``
    tier): ``labels`` and ``annotations`` every namespace the run makes carries (the run id,
    its owner), and the namespace of the ServiceAccounts that stand for the harness's users
    (``service_account_name``), the RoleBindings' subjects. ``harness.lab.namespaces.Namespaces``
    takes one; ``harness.existing.cluster.run_scope`` reads it from the run's state file."""

    service_account_namespace: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)


def service_account_name(user: str) -> str:
    """The ServiceAccount that stands for harness user ``user`` on an existing cluster:
    ``modeldock:go`` -> ``modeldock-go`` (a DNS-1123 label: lower case, ``[a-z0-9-]``, at most
    63 characters). Raises ValueError for a user with no letter or digit."""
    name = re.sub(r"[^a-z0-9-]+", "-", user.lower()).strip("-")[:63].rstrip("-")
    if not name:
        raise ValueError(f"no ServiceAccount name can be made from user {user!r}")
    return name


def service_account_username(namespace: str, user: str) -> str:
    """The username the API server gives ``service_account_name(user)`` in ``namespace``:
    ``system:serviceaccount:<namespace>:<name>``."""
    return f"system:serviceaccount:{namespace}:{service_account_name(user)}"


def token_kubeconfig(admin_config: dict[str, Any], token: str, user: str) -> dict[str, Any]:
    """A kubeconfig for a bearer ``token`` on the cluster of ``admin_config`` (a minified,
    flattened kubeconfig: its current context's cluster, CA data and all, is kept as it is;
    its user is replaced). ``user`` names the kubeconfig user entry. Raises KeyError or
    ValueError when ``admin_config`` has no current context or no such cluster."""
    contexts = {c["name"]: c["context"] for c in admin_config.get("contexts") or []}
    current = admin_config.get("current-context")
    if not current or current not in contexts:
        raise ValueError(f"the admin kubeconfig has no current context ({current!r})")
    cluster_name = contexts[current]["cluster"]
    clusters = {c["name"]: c["cluster"] for c in admin_config.get("clusters") or []}
    if cluster_name not in clusters:
        raise ValueError(f"the admin kubeconfig has no cluster {cluster_name!r}")
    ctx = {"cluster": cluster_name, "user": user}
    if contexts[current].get("namespace"):
        ctx["namespace"] = contexts[current]["namespace"]
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": copy.deepcopy(clusters[cluster_name])}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": "modeldock", "context": ctx}],
        "current-context": "modeldock",
    }


def comparable(crd: dict[str, Any]) -> dict[str, Any]:
    """What makes two ModelService CRDs the same API: group, scope, names (kind, plural) and,
    per version, name, served, storage, schema, subresources and printer columns. Server
    defaults (conversion, status, metadata) are left out."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    return {
        "group": spec.get("group"),
        "scope": spec.get("scope"),
        "names": {k: names.get(k) for k in ("kind", "plural", "singular", "listKind")},
        "versions": {
            v.get("name"): {
                "served": v.get("served"),
                "storage": v.get("storage"),
                "schema": v.get("schema"),
                "subresources": v.get("subresources"),
                "additionalPrinterColumns": v.get("additionalPrinterColumns"),
            }
            for v in spec.get("versions") or []
        },
    }


def crd_difference(live: dict[str, Any], wanted: dict[str, Any]) -> str | None:
    """None when the cluster's CRD ``live`` is the one in crds/ (``comparable``), else what
    differs, in one line: the versions when they differ, else the first differing part."""
    a, b = comparable(live), comparable(wanted)
    if a == b:
        return None
    if set(a["versions"]) != set(b["versions"]):
        return (
            f"the cluster serves versions {sorted(a['versions'])}, this harness "
            f"{sorted(b['versions'])}"
        )
    for key in ("group", "scope", "names"):
        if a[key] != b[key]:
            return f"its {key} differs ({a[key]} here, {b[key]} in crds/)"
    for name, version in a["versions"].items():
        for part, value in version.items():
            if value != b["versions"][name][part]:
                return f"version {name}: its {part} differs from crds/"
    return "it differs from crds/"  # unreachable: some part above differs


def crd_mismatch_message(name: str, difference: str, context: str | None) -> str:
    """The error for a CRD of another version already in the cluster: which CRD, what
    differs, and the fix (this harness never upgrades a CRD it does not own)."""
    ctx = f" --context {context}" if context else ""
    return (
        f"CRD {name} in this cluster is not the one in crds/ ({difference}); the harness "
        f"does not upgrade a CRD it did not install. Fix: run against a cluster without it, "
        f"or replace it yourself (`kubectl{ctx} apply --server-side -f crds/` if its "
        f"ModelServices may follow the new schema; `kubectl{ctx} delete crd {name}` deletes "
        f"every ModelService)"
    )
