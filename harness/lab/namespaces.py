"""The namespaces a run's checks run in, and the operator role bound there.

``Namespaces(role_file, scope)`` makes them: ``create`` names one after the check
(``md-<label>-<random>``), labels it and binds the operator ClusterRole (``role_file``:
``config/rbac/role.yaml``, or an RBAC ablation variant) to the implementation's user there
only. ``scope`` is the run's ``RunScope`` on a cluster the harness does not own (the
``existing`` tier: namespaces labelled and annotated with the run, users bound as
ServiceAccounts), None on a cluster the harness owns (users bound as ``User`` subjects). The
plugin builds one per session from its options and tier and passes it to its fixtures; the
bench, the explorer and the mutant runner, on control planes of their own, use the defaults
(``create_namespace``, ``bind_operator_role``). Nothing here is set globally.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from kubernetes.client.exceptions import ApiException

from harness.envtest.controlplane import ControlPlaneError
from harness.existing.pure import RunScope, service_account_name
from harness.kube import Kube
from harness.paths import RBAC_DIR
from harness.rbac import role as rbac


@dataclass(frozen=True)
class Namespaces:
    """How a run makes its namespaces: the ClusterRole file bound in each (``role_file``) and
    the run scope (``scope``: None on a harness-owned cluster)."""

    role_file: Path = rbac.ROLE_FILE
    scope: RunScope | None = None

    def role(self) -> dict[str, Any]:
        """The operator ClusterRole in force: the one in ``role_file``."""
        return rbac.load_role(self.role_file)

    def subject_for(self, user: str) -> dict[str, str]:
        """The RoleBinding subject that is harness user ``user``: a ``User`` (client-certificate
        CN) on a harness-owned cluster, its ServiceAccount under a ``RunScope``."""
        if self.scope is None:
            return {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}
        return {
            "kind": "ServiceAccount",
            "name": service_account_name(user),
            "namespace": self.scope.service_account_namespace,
        }

    def ensure_cluster_role(self, admin: Kube, role: dict[str, Any]) -> None:
        """Create the ClusterRole, or update its rules if they differ from ``role``'s (a
        control plane left up while role.yaml changed; an ablation variant on a private control
        plane). Under a ``RunScope`` a role it creates carries the run's labels, so the last
        run's cleanup removes it (``harness.existing.run.remove_shared``)."""
        name = role["metadata"]["name"]
        for _ in range(3):
            live = admin.get("clusterroles", None, name)
            try:
                if live is None:
                    if self.scope is not None:  # a run on an existing cluster: its cleanup finds it
                        meta = role["metadata"]
                        labels = {**(meta.get("labels") or {}), **self.scope.labels}
                        role = {**role, "metadata": {**meta, "labels": labels}}
                    admin.create("clusterroles", None, role)
                elif live.get("rules") != role.get("rules"):
                    admin.update("clusterroles", {**live, "rules": role.get("rules")})
                return
            except ApiException as exc:
                if exc.status != 409:  # another xdist worker wrote it meanwhile: look again
                    raise
        raise ControlPlaneError(f"ClusterRole {name} kept changing under us")

    def bind_operator_role(
        self, admin: Kube, namespace: str, user: str, role: dict[str, Any] | None = None
    ) -> None:
        """Apply ``config/rbac/role_binding.yaml`` in ``namespace`` for ``user`` only
        (``subject_for``), bound to ``role`` (default: the role in force, ``role()``), which is
        created if absent."""
        role = role or self.role()
        self.ensure_cluster_role(admin, role)
        binding = yaml.safe_load((RBAC_DIR / "role_binding.yaml").read_text())
        binding["metadata"]["namespace"] = namespace
        binding["roleRef"]["name"] = role["metadata"]["name"]
        binding["subjects"] = [self.subject_for(user)]
        admin.create("rolebindings", namespace, binding)

    def create(self, admin: Kube, label: str, user: str, role: dict[str, Any] | None = None) -> str:
        """Create ``md-<label>-<random>`` with ``role`` (default: the role in force) bound to
        ``user``; return its name. Labels: ``modeldock.io/check`` (``label``) and, under a
        reduced role of the RBAC ablation, ``modeldock.io/ablated`` (the right it lacks, as the
        role's label says); under a ``RunScope`` also its labels and annotations."""
        role = role or self.role()
        name = f"md-{label[:30]}-{uuid.uuid4().hex[:6]}".replace("_", "-")
        scope = self.scope
        labels = {"modeldock.io/check": label, **(scope.labels if scope else {})}
        ablated = (role["metadata"].get("labels") or {}).get("modeldock.io/ablated")
        if ablated:
            labels["modeldock.io/ablated"] = str(ablated)[:63]
        admin.create(
            "namespaces",
            None,
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {
                    "name": name,
                    "labels": labels,
                    "annotations": dict(scope.annotations) if scope else {},
                },
            },
        )
        self.bind_operator_role(admin, name, user, role)
        return name


def create_namespace(admin: Kube, label: str, user: str, role: dict[str, Any] | None = None) -> str:
    """``Namespaces().create``: a namespace on a cluster the harness owns, with ``role``
    (default: ``config/rbac/role.yaml``) bound to ``user``."""
    return Namespaces().create(admin, label, user, role)


def bind_operator_role(
    admin: Kube, namespace: str, user: str, role: dict[str, Any] | None = None
) -> None:
    """``Namespaces().bind_operator_role``: bind ``role`` (default: ``config/rbac/role.yaml``)
    to ``user`` in ``namespace`` on a cluster the harness owns."""
    Namespaces().bind_operator_role(admin, namespace, user, role)
