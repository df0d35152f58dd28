"""Labs and operator pools: where a check runs, and the operators it starts there.

A *lab* is a control plane, an admin client, its audit log, a namespace where the
implementation's user holds the operator ClusterRole (``harness.lab.namespaces``), and the
operator processes started there (``OperatorPool``), each behind an API proxy of its own
whose request log is the lab's request accounting (``OperatorPool.accounting``,
``harness.accounting``). The plugin's ``namespace``/``operators`` fixtures make the shared lab
of a test; ``Isolated`` makes private labs on control planes of their own, with the
namespaces it is given (the run's role file and scope).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from harness.accounting import ProxyAccounting
from harness.audit import AuditLog, instance_group, select
from harness.envtest.controlplane import ControlPlane
from harness.envtest.pki import CertificateAuthority
from harness.faults.apiproxy import ApiProxy
from harness.kube import Kube
from harness.lab.namespaces import Namespaces
from harness.operators import Implementation, OperatorProcess


class Lab:
    """One place a check runs: a control plane, an admin client, its audit log, a namespace
    where the implementation's user holds the operator role, and the operators started there."""

    def __init__(
        self,
        control_plane: ControlPlane | None,
        admin: Kube,
        audit: AuditLog | None,
        namespace: str,
        operators: OperatorPool,
    ) -> None:
        self.control_plane = control_plane
        self.admin = admin
        self.audit = audit
        self.namespace = namespace
        self.operators = operators

    def save_artifacts(self, dest: Path) -> None:
        """Copy into ``dest`` what a failed check leaves to read: each operator's log, each API
        proxy's request log, the namespace's objects as YAML and its audit events."""
        dest.mkdir(parents=True, exist_ok=True)
        for i, op in enumerate(self.operators.started):
            if op.log_path.exists():
                shutil.copy(op.log_path, dest / f"operator-{i}.log")
        for i, proxy in enumerate(self.operators.proxies):
            if proxy.request_log.exists():
                shutil.copy(proxy.request_log, dest / f"apiproxy-{i}.requests.jsonl")
        objects = {
            res: self.admin.list(res, self.namespace)
            for res in ("modelservices", "deployments", "services", "leases")
        }
        for items in objects.values():
            for obj in items:
                obj.get("metadata", {}).pop("managedFields", None)
        (dest / "objects.yaml").write_text(yaml.safe_dump(objects, sort_keys=False))
        if self.audit is not None:
            reqs = select(self.audit.requests(), namespace=self.namespace)
            (dest / "audit.jsonl").write_text("".join(json.dumps(r.__dict__) + "\n" for r in reqs))


class IsolatedLab(Lab):
    """A lab on a private control plane (``Isolated.new``): its control plane and audit log
    are always there."""

    control_plane: ControlPlane
    audit: AuditLog

    def __init__(
        self,
        control_plane: ControlPlane,
        admin: Kube,
        audit: AuditLog,
        namespace: str,
        operators: OperatorPool,
    ) -> None:
        super().__init__(control_plane, admin, audit, namespace, operators)


class OperatorPool:
    """Starts operator instances for one test, each behind an API proxy of its own, and
    stops them all afterwards.

    Every process ``new`` makes runs behind its own ``ApiProxy`` (upstream: the operator's
    own identity; the operator's kubeconfig points at the proxy), registered in
    ``accounting`` with the implementation's user and the instance's name. A check that
    needs the proxy itself (to hold watch events, to script a fault) or something between the
    operator and the proxy (a TCP fault) makes it with ``api_proxy()`` and passes it to
    ``new``/``start`` (``api_proxy=``), so one proxy serves both. ``audit`` is the audit log
    where the tier has one (None elsewhere); ``audit_start`` its offset when the pool was
    made.
    """

    def __init__(
        self,
        impl: Implementation,
        kubeconfig: Path,
        namespace: str,
        logs: Path,
        audit: AuditLog | None = None,
        issue: Callable[[tuple[str, ...]], Path] | None = None,
        serving_ca: CertificateAuthority | None = None,
    ) -> None:
        self.impl = impl
        self.audit = audit
        self.audit_start = audit.offset() if audit is not None else 0
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.logs = logs
        self.started: list[OperatorProcess] = []
        #: the request accounting of every proxy this pool started
        self.accounting = ProxyAccounting()
        self.proxies: list[ApiProxy] = []
        self._proxy_of: dict[int, ApiProxy] = {}
        #: issues a kubeconfig of the implementation's user in the given groups
        self._issue = issue
        self._serving_ca = serving_ca

    def instance_kubeconfig(self, instance: str) -> Path:
        """A kubeconfig of the implementation's user (same CN, so the same RBAC binding) whose
        certificate also names group ``modeldock:instance:<instance>``: the audit log then
        attributes each request to this one instance."""
        if self._issue is None:
            raise RuntimeError("this operator pool cannot issue instance identities")
        return self._issue((instance_group(instance),))

    def api_proxy(
        self,
        instance: str | None = None,
        kubeconfig: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> ApiProxy:
        """Start an API proxy that forwards with ``kubeconfig``'s credential (default: the
        instance's identity, ``instance_kubeconfig``, else the pool's), accounted as the
        implementation's user (and ``instance``); ``env``: the operator's environment, whose
        HTTP/2 deadlines the proxy's upstream health check takes (``ApiProxy``'s
        ``operator_env``). Stopped with the pool."""
        upstream = kubeconfig or (
            self.instance_kubeconfig(instance) if instance else self.kubeconfig
        )
        proxy = ApiProxy.for_kubeconfig(
            upstream,
            user=self.impl.user,
            workdir=self.logs / "proxies",
            serving_ca=self._serving_ca,
            operator_env=env,
        )
        self.proxies.append(proxy)
        proxy.start()
        self.accounting.add(proxy, self.impl.user, instance or "")
        return proxy

    def namespaces(self) -> list[str]:
        """The pool's namespace, then every other namespace an operator it started watched
        (a check may point one elsewhere: ``rbac-least-privilege[stops-while-refused]``)."""
        others = sorted({op.namespace for op in self.started} - {self.namespace})
        return [self.namespace, *others]

    def proxy_of(self, op: OperatorProcess) -> ApiProxy:
        """The API proxy ``op`` runs behind."""
        return self._proxy_of[id(op)]

    def new(self, api_proxy: ApiProxy | None = None, **options: Any) -> OperatorProcess:
        """An ``OperatorProcess`` for this namespace, not started (options as its fields),
        behind a new API proxy, or behind ``api_proxy`` (``api_proxy()``) if given; then a
        ``kubeconfig`` given is used as is (the caller routed it to that proxy, e.g. through a
        TCP fault). Without ``api_proxy``, ``kubeconfig`` is the identity the new proxy
        forwards with; with ``instance="<name>"`` and no ``kubeconfig``, that instance's own
        (``instance_kubeconfig``)."""
        if api_proxy is None:
            api_proxy = self.api_proxy(
                options.get("instance"), options.pop("kubeconfig", None), options.get("env")
            )
        options.setdefault("kubeconfig", api_proxy.kubeconfig)
        options.setdefault("request_log", api_proxy.request_log)
        options.setdefault("namespace", self.namespace)
        options.setdefault("impl", self.impl)
        op = OperatorProcess(log_path=self.logs / f"operator-{len(self.started)}.log", **options)
        self.started.append(op)
        self._proxy_of[id(op)] = api_proxy
        return op

    def start(
        self, crash_at: str | None = None, wait_ready: bool = True, **options: Any
    ) -> OperatorProcess:
        """Start an instance and (by default) wait until it is ready."""
        return self.new(**options).start(crash_at=crash_at, wait_ready=wait_ready)

    def stop_operators(self) -> None:
        """Stop every operator process (SIGTERM, SIGKILL after 10 s); the proxies stay up, so
        their request logs see every connection end."""
        for op in self.started:
            op.terminate(timeout=10)

    def stop_all(self) -> None:
        """Stop the operators, then their proxies."""
        self.stop_operators()
        for proxy in self.proxies:
            proxy.stop()


class Isolated:
    """Factory of private labs: each ``new()`` starts its own control plane, for checks that
    restart the API server, compact etcd or turn the watch cache off, so that other checks
    (and pytest-xdist workers) on the shared control plane are not disturbed. ``namespaces``
    makes each lab's namespace (the run's operator role; default: ``config/rbac/role.yaml``)."""

    def __init__(
        self,
        impl: Implementation,
        check: str,
        tmp_path: Path,
        namespaces: Namespaces | None = None,
    ) -> None:
        self.impl = impl
        self.check = check
        self.tmp_path = tmp_path
        self.namespaces = namespaces or Namespaces()
        self.labs: list[IsolatedLab] = []
        self._planes: list[ControlPlane] = []

    def new(self, *, watch_cache: bool = True, crds: bool = True) -> IsolatedLab:
        """Start a private control plane (``watch_cache=False``: kube-apiserver
        ``--watch-cache=false``; ``crds=False``: without the ModelService CRD), make a
        namespace there and return the Lab."""
        cp = ControlPlane(watch_cache=watch_cache, crds=crds).start()
        self._planes.append(cp)
        admin = Kube(cp.admin_kubeconfig)
        ns = self.namespaces.create(admin, self.check, self.impl.user)
        logs = self.tmp_path / f"lab-{len(self.labs)}"
        logs.mkdir()
        audit = AuditLog(cp.audit_log)
        user = self.impl.user
        pool = OperatorPool(
            self.impl,
            cp.kubeconfig_for(user),
            ns,
            logs,
            audit,
            issue=lambda groups: cp.kubeconfig_for(user, groups),
            serving_ca=cp.ca,
        )
        lab = IsolatedLab(cp, admin, audit, ns, pool)
        self.labs.append(lab)
        return lab

    def close(self) -> None:
        """Stop every lab's operators and proxies, then the private control planes."""
        for lab in self.labs:
            lab.operators.stop_all()
            lab.admin.close()
        for cp in self._planes:
            cp.stop()
