"""The cluster object of the ``existing`` tier, as the plugin's fixtures see it.

``ExistingCluster.attach(state_path)`` opens the run's state file (written by
``harness.existing.run.Run``) and offers the surface of the envtest ``ControlPlane`` the
fixtures use, so checks never branch on the tier: ``admin_kubeconfig``, ``kubeconfig_for(user,
groups)``, ``audit_log`` (None: there is no audit log to read), ``tier``,
``kubernetes_version``, ``state_path``, ``lost()`` and ``stop()``.

Identities: each harness user (``modeldock:<impl>``) is a ServiceAccount in the run's
namespace (``harness.existing.pure.service_account_name``), created on first use; its
kubeconfig holds a bearer token from the TokenRequest API
(``create_namespaced_service_account_token``). ``run_scope`` reads the run's ``RunScope``,
which the plugin hands the lab (``harness.lab.namespaces.Namespaces``): the lab then binds the
operator role to that ServiceAccount and labels each namespace with the run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from harness.existing.pure import RunScope, service_account_name, token_kubeconfig
from harness.kube import Kube
from harness.process import identity_alive

#: Seconds a TokenRequest token is asked to live (the API server may cap it lower); the run's
#: operators use it for the whole run, tokens are not renewed.
TOKEN_SECONDS = 6 * 3600


class ClusterError(RuntimeError):
    """The existing cluster cannot be used (unreachable, refused, a state file unreadable);
    the message says which and why."""


def read_state(state_path: Path | str) -> dict[str, Any]:
    """The run's state (JSON) at ``state_path``. Raises ClusterError if unreadable."""
    try:
        data = json.loads(Path(state_path).read_text())
    except (OSError, ValueError) as exc:
        raise ClusterError(f"cannot read the existing run's state {state_path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("tier") != "existing":
        raise ClusterError(f"{state_path} is not the state of an existing-tier run")
    return data


def is_existing_state(state_path: Path | str) -> bool:
    """True when ``state_path`` is the state file of an existing-tier run (``tier``), False
    for a harness-owned control plane's or an unreadable file."""
    try:
        return bool(json.loads(Path(state_path).read_text()).get("tier") == "existing")
    except (OSError, ValueError, AttributeError):
        return False


def ensure_service_account(admin: Kube, namespace: str, name: str) -> None:
    """Create ServiceAccount ``name`` in ``namespace`` unless it exists (409 is fine)."""
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}
    try:
        admin.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", body)
    except ApiException as exc:
        if exc.status != 409:
            raise


def issue_token(admin: Kube, namespace: str, name: str, seconds: int = TOKEN_SECONDS) -> str:
    """A bearer token for ServiceAccount ``name`` in ``namespace`` (TokenRequest API, the
    API server's default audiences, ``seconds`` asked). Raises ApiException."""
    spec = client.V1TokenRequestSpec(audiences=[], expiration_seconds=seconds)
    answer = client.CoreV1Api(admin.api).create_namespaced_service_account_token(
        name, namespace, client.AuthenticationV1TokenRequest(spec=spec)
    )
    if answer.status is None or not answer.status.token:
        raise ClusterError(f"TokenRequest for {namespace}/{name} answered without a token")
    return str(answer.status.token)


class ExistingCluster:
    """A cluster the harness does not own, for one pytest process (see the module docstring).
    Attributes as ``ControlPlane``'s; ``ca`` is None (the harness holds no CA there)."""

    tier = "existing"
    audit_log: Path | None = None
    ca: None = None

    def __init__(self, state_path: Path, state: dict[str, Any]) -> None:
        self.state_path = state_path
        self.state = state
        self.admin_kubeconfig = Path(state["admin_kubeconfig"])
        self.kubernetes_version = str(state.get("kubernetes_version", "unknown"))
        self.capabilities = frozenset(state.get("capabilities") or ())
        self.run_id = str(state["run_id"])
        self.run_namespace = str(state["run_namespace"])
        self.workdir = Path(state["workdir"])
        self._admin: Kube | None = None

    @classmethod
    def attach(cls, state_path: Path | str) -> ExistingCluster:
        """Open the run described by ``state_path``. Raises ClusterError if it is unreadable."""
        path = Path(state_path).resolve()
        return cls(path, read_state(path))

    def _admin_client(self) -> Kube:
        if self._admin is None:
            self._admin = Kube(self.admin_kubeconfig)
        return self._admin

    def kubeconfig_for(self, user: str, groups: tuple[str, ...] = ()) -> Path:
        """A kubeconfig with a TokenRequest token of ``user``'s ServiceAccount in the run's
        namespace (created if absent), issued once per user and reused.

        ``groups`` cannot be put in a ServiceAccount token: the API server sets a token's
        groups itself (``system:serviceaccounts``, ``system:serviceaccounts:<namespace>``).
        They are ignored here, so instances of one implementation share one identity on this
        tier; telling them apart is the API proxy's job (it sees each instance's
        connection), not the credentials'. File: ``<run workdir>/users/<sa>.kubeconfig``."""
        del groups  # see the docstring: not expressible in a token
        name = service_account_name(user)
        users = self.workdir / "users"
        users.mkdir(exist_ok=True)
        path = users / f"{name}.kubeconfig"
        if path.exists():
            return path
        admin = self._admin_client()
        ensure_service_account(admin, self.run_namespace, name)
        token = issue_token(admin, self.run_namespace, name)
        config = token_kubeconfig(yaml.safe_load(self.admin_kubeconfig.read_text()), token, name)
        tmp = users / f".{name}.{os.getpid()}.kubeconfig"
        tmp.write_text(yaml.safe_dump(config, sort_keys=False))
        tmp.chmod(0o600)
        os.replace(tmp, path)  # atomic: concurrent xdist workers each write a valid file
        return path

    def lost(self) -> str | None:
        """Why the run is gone (its owner process died), or None. The cluster itself is not
        polled: it is not the harness's, and a failing request says enough."""
        owner = str((self.state.get("processes") or {}).get("owner", ""))
        if owner and not identity_alive(owner):
            return f"the run's owner (pid {owner.split(':')[0]}) is gone"
        return None

    def stop(self) -> None:
        """Close the admin client; the cluster is left as it is (the run's owner cleans up)."""
        if self._admin is not None:
            self._admin.close()
            self._admin = None


def run_scope(state: dict[str, Any]) -> RunScope:
    """Where this run's namespaces live (``harness.lab.namespaces.Namespaces``'s ``scope``):
    labelled with the run, annotated with its owner, the operator role bound to ServiceAccounts
    in the run's namespace."""
    return RunScope(
        labels=dict(state.get("labels") or {}),
        annotations=dict(state.get("annotations") or {}),
        service_account_namespace=str(state["run_namespace"]),
    )
