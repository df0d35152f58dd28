"""A run on a cluster the harness does not own: set-up before the suites, cleanup after.

``Run(context)`` is a context manager around the suites of ``conformance --cluster existing``
(``harness.suite``). On entry it:

1. writes the admin kubeconfig of KUBECONFIG's context (``kubectl config view --minify
   --flatten``, so one file with every certificate inlined) into the run's temp dir;
2. asks the cluster its version and its Nodes (``harness.tiers.existing_offers``);
3. cleans up what dead runs of this machine left (namespaces labelled ``RUN_LABEL`` whose
   ``OWNER_ANNOTATION`` names a dead process here);
4. installs the CRD of crds/ if absent; leaves it as found if the same
   (``harness.existing.pure.crd_difference``); a CRD that differs is ``CRDMismatch``, never
   an upgrade;
5. creates the run namespace ``md-run-<run id>`` (labelled, annotated), where the
   ServiceAccounts of the implementations are made on first use (``harness.existing.cluster``);
6. writes the run's state file, which pytest gets as ``--modeldock-control-plane-state``.

On exit, however the run ends (also Ctrl-C and SIGTERM, which the CLI turns into
KeyboardInterrupt), ``cleanup()`` deletes every namespace labelled with the run (first
removing the finalizers of ModelServices, Deployments and Services in them: no operator runs
any more to remove its own), waits for them to go, deletes the ClusterRoles and the CRD the
run created, puts back the rules of a ``modeldock*`` ClusterRole the run changed (an
implementation that declares its own role), and removes the temp dir. What an interrupted cleanup leaves,
``python -m harness existing-cleanup`` removes by label (``clean_leftovers``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import yaml
from kubernetes.client.exceptions import ApiException

from harness import runs, say, tiers
from harness.envtest import binaries
from harness.existing.cluster import ClusterError
from harness.existing.pure import (
    CREATED_BY_ANNOTATION,
    RUN_LABEL,
    crd_difference,
    crd_mismatch_message,
    leftovers,
    new_run_id,
    run_metadata,
)
from harness.kube import Kube
from harness.paths import CRDS_DIR
from harness.process import identity_alive, process_identity
from harness.process import run as run_process

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
CLUSTERROLE_PATH = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
#: Seconds a cleanup waits for the run's namespaces (and an installed CRD) to go.
CLEANUP_TIMEOUT = 120.0
#: Resources whose finalizers a cleanup removes in a run's namespaces (nobody is left to): the
#: operators' objects, and what checks hold with a finalizer of their own (namespace-deleted
#: holds RoleBindings; a SIGKILLed run never releases them).
_HELD = ("modelservices", "deployments", "services", "rolebindings", "leases")


class CRDMismatch(ClusterError):
    """The cluster has a ModelService CRD that is not the one in crds/ (message: which, the fix)."""


_say = say.to("modeldock")


def admin_kubeconfig(dest: Path, context: str | None, kubeconfig: str | None = None) -> Path:
    """Write the minified, flattened kubeconfig of ``context`` (default: the current one) of
    ``kubeconfig`` (default: KUBECONFIG or ~/.kube/config, as kubectl reads them) to ``dest``
    (mode 0600). Raises ClusterError with kubectl's message."""
    kubectl = binaries.ensure(["kubectl"])["kubectl"]
    cmd = [str(kubectl), "config", "view", "--minify", "--flatten", "--raw"]
    if kubeconfig:
        cmd.append(f"--kubeconfig={kubeconfig}")
    if context:
        cmd.append(f"--context={context}")
    named = kubeconfig or os.environ.get("KUBECONFIG")
    absent = [f for f in (named or "").split(os.pathsep) if f and not Path(f).expanduser().exists()]
    if named and len(absent) == len(named.split(os.pathsep)):
        raise ClusterError(
            f"kubeconfig {named} does not exist: set KUBECONFIG to the cluster's kubeconfig "
            f"(and CONTEXT=/--context to choose one of its contexts)"
        )
    proc = run_process(cmd, capture_output=True, text=True, timeout=60)
    config = yaml.safe_load(proc.stdout or "null") if proc.returncode == 0 else None
    if not isinstance(config, dict) or not config.get("clusters"):
        where = kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
        raise ClusterError(
            f"no cluster in kubeconfig {where}"
            f"{f' (context {context})' if context else ''}: {proc.stderr.strip() or 'empty'}; "
            f"point KUBECONFIG at the cluster's kubeconfig, choose a context with "
            f"CONTEXT=/--context"
        )
    dest.write_text(yaml.safe_dump(config, sort_keys=False))
    dest.chmod(0o600)
    return dest


def wanted_crd() -> dict[str, Any]:
    """The ModelService CRD of crds/ (the one document in it)."""
    docs = [
        d
        for f in sorted(CRDS_DIR.glob("*.yaml"))
        for d in yaml.safe_load_all(f.read_text())
        if d and d.get("kind") == "CustomResourceDefinition"
    ]
    assert len(docs) == 1, f"expected one CRD in {CRDS_DIR}, found {len(docs)}"
    return dict(docs[0])


def _get(admin: Kube, path: str) -> dict[str, Any] | None:
    try:
        return dict(admin.request("GET", path))
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def _wait(what: str, done: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def clean_namespaces(admin: Kube, names: list[str], timeout: float = CLEANUP_TIMEOUT) -> list[str]:
    """Delete ``names``: remove the finalizers of the objects of ``_HELD`` in them (again
    while they terminate: an object may be mid-delete), delete each, wait up
    to ``timeout`` seconds for them to go. Returns those still there."""

    def release(ns: str) -> None:
        for resource in _HELD:
            try:
                items = admin.list(resource, ns)
            except ApiException:
                continue
            for obj in items:
                name = obj["metadata"]["name"]
                if obj["metadata"].get("finalizers"):
                    try:
                        admin.patch(resource, ns, name, {"metadata": {"finalizers": None}})
                    except ApiException:
                        pass  # gone meanwhile

    for ns in names:
        release(ns)
        try:
            admin.delete("namespaces", None, ns)
        except ApiException as exc:
            if exc.status != 409:  # 409: already terminating
                raise

    def left() -> list[str]:
        return [n for n in names if admin.get("namespaces", None, n) is not None]

    deadline = time.monotonic() + timeout
    remaining = left()
    while remaining and time.monotonic() < deadline:
        time.sleep(1)
        for ns in remaining:
            release(ns)
        remaining = left()
    return remaining


def other_runs(admin: Kube, run_id: str) -> list[str]:
    """The ids of the other runs whose labelled namespaces are on the cluster now (live or
    not yet cleaned up): they may be using the CRD and the operator ClusterRoles, which a
    cleanup then leaves in place."""
    ids = {
        str((ns["metadata"].get("labels") or {}).get(RUN_LABEL, ""))
        for ns in admin.list("namespaces", None, label_selector=RUN_LABEL)
    }
    return sorted(i for i in ids if i and i != run_id)


def restore_roles(admin: Kube, before: dict[str, Any]) -> list[str]:
    """Put back the rules of each ``modeldock*`` ClusterRole that existed before the run
    (``before``: name -> rules) and that a role file of the run changed (an implementation's
    own role, the user's role of the same name). Returns what it did, for the log."""
    done = []
    for role in admin.request("GET", CLUSTERROLE_PATH)["items"]:
        name = role["metadata"]["name"]
        if name.startswith("modeldock") and name in before and role.get("rules") != before[name]:
            admin.request("PUT", f"{CLUSTERROLE_PATH}/{name}", {**role, "rules": before[name]})
            done.append(f"ClusterRole {name}'s rules restored")
    return done


def remove_shared(admin: Kube) -> list[str]:
    """Remove what runs made and share, once no run has namespaces left: every ClusterRole a
    run created (labelled ``RUN_LABEL``, ``harness.lab.namespaces.Namespaces.ensure_cluster_role``) and the
    ModelService CRD if a run installed it (annotated ``CREATED_BY_ANNOTATION``; one the user
    installed has no such annotation and stays). Returns what it removed, for the log.
    Raises ClusterError if the CRD is still there 60 s after its delete."""
    done = []
    for role in admin.request("GET", f"{CLUSTERROLE_PATH}?labelSelector={RUN_LABEL}")["items"]:
        name = role["metadata"]["name"]
        admin.request("DELETE", f"{CLUSTERROLE_PATH}/{name}")
        done.append(f"ClusterRole {name}")
    name = wanted_crd()["metadata"]["name"]
    crd = _get(admin, f"{CRD_PATH}/{name}")
    if crd is not None and CREATED_BY_ANNOTATION in (crd["metadata"].get("annotations") or {}):
        admin.request("DELETE", f"{CRD_PATH}/{name}")
        if not _wait("CRD gone", lambda: _get(admin, f"{CRD_PATH}/{name}") is None, 60):
            raise ClusterError(f"CRD {name} still there 60s after its delete")
        done.append(f"CRD {name}")
    return done


def clean_leftovers(
    admin: Kube, *, run_id: str | None = None, all_runs: bool = False, timeout: float = 120
) -> list[str]:
    """Delete the namespaces ``harness.existing.pure.leftovers`` selects (default: those of
    dead runs of this machine); return their names. Raises ClusterError if some stay."""
    names = leftovers(
        admin.list("namespaces", None, label_selector=RUN_LABEL),
        host=socket.gethostname(),
        alive=identity_alive,
        run_id=run_id,
        all_runs=all_runs,
    )
    stuck = clean_namespaces(admin, names, timeout) if names else []
    if stuck:
        raise ClusterError(f"namespaces still terminating after {timeout:.0f}s: {stuck}")
    return names


class Run:
    """One run on an existing cluster (see the module docstring). ``state_path`` is the file
    pytest attaches to; ``kubernetes_version`` and ``capabilities`` what the cluster offers."""

    def __init__(self, context: str | None = None, kubeconfig: str | None = None) -> None:
        self.context = context
        self.kubeconfig = kubeconfig
        self.run_id = new_run_id()
        self.run_namespace = f"md-run-{self.run_id}"
        self.workdir: Path | None = None
        self.admin: Kube | None = None
        self.kubernetes_version = "unknown"
        self.capabilities: frozenset[str] = frozenset()
        #: the rules of every ClusterRole at the start, by name (None: not read yet)
        self._roles_before: dict[str, Any] | None = None

    @property
    def state_path(self) -> Path:
        assert self.workdir is not None, "Run not entered"
        return self.workdir / "state.json"

    def __enter__(self) -> Run:
        try:
            self._setup()
        except ApiException as exc:
            self.cleanup()
            if exc.status in (401, 403):
                raise ClusterError(
                    f"the kubeconfig's user may not set up a run ({exc.status} {exc.reason}): it "
                    f"needs to create namespaces, ServiceAccounts, RoleBindings, ClusterRoles "
                    f"and CRDs, as cluster-admin can"
                ) from exc
            raise ClusterError(f"setting up the run failed: {exc.status} {exc.reason}") from exc
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def _setup(self) -> None:
        self.workdir = runs.temp_dir("existing")
        path = admin_kubeconfig(self.workdir / "admin.kubeconfig", self.context, self.kubeconfig)
        admin = Kube(path)
        try:
            self.kubernetes_version = str(admin.request("GET", "/version")["gitVersion"])
            self.capabilities = tiers.existing_offers(admin.list("nodes"))
        except ApiException as exc:  # it answers, but not to this user
            server = str(admin.api.configuration.host)
            admin.close()
            raise ClusterError(
                f"the cluster at {server} refused the kubeconfig's user "
                f"({exc.status} {exc.reason}): a run needs cluster-admin rights (namespaces, "
                f"ServiceAccounts, RoleBindings, ClusterRoles, CRDs)"
            ) from exc
        except Exception as exc:  # unreachable, TLS: say so in one line
            server = str(admin.api.configuration.host)
            admin.close()
            where = self.kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else repr(exc)
            raise ClusterError(
                f"the cluster at {server} (kubeconfig {where}"
                f"{f', context {self.context}' if self.context else ''}) does not answer: {first}"
            ) from exc
        # From here on the cluster answers: cleanup() has something to do there.
        self.admin = admin
        _say(
            f"existing cluster {self._server()} (Kubernetes {self.kubernetes_version}); run "
            f"{self.run_id}, namespaces labelled {RUN_LABEL}={self.run_id}"
        )
        try:
            reaped = clean_leftovers(admin)
        except ClusterError as exc:  # not this run's: say so, go on
            _say(f"namespaces left by dead runs: {exc}")
            reaped = []
        if reaped:
            _say(f"removed {len(reaped)} namespaces left by dead runs: {', '.join(reaped)}")
        self._ensure_crd(admin)
        self._roles_before = {
            r["metadata"]["name"]: r.get("rules")
            for r in admin.request("GET", CLUSTERROLE_PATH)["items"]
        }
        identity = process_identity() or ""
        labels, annotations = run_metadata(self.run_id, socket.gethostname(), identity)
        admin.create(
            "namespaces",
            None,
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {
                    "name": self.run_namespace,
                    "labels": labels,
                    "annotations": annotations,
                },
            },
        )
        state = {
            "tier": "existing",
            "admin_kubeconfig": str(path),
            "context": self.context,
            "run_id": self.run_id,
            "run_namespace": self.run_namespace,
            "labels": labels,
            "annotations": annotations,
            "kubernetes_version": self.kubernetes_version,
            "capabilities": sorted(self.capabilities),
            "workdir": str(self.workdir),
            "processes": {"owner": identity},
        }
        runs.write_text_atomic(self.state_path, json.dumps(state, indent=2))

    def _server(self) -> str:
        assert self.admin is not None
        return str(self.admin.api.configuration.host)

    def _ensure_crd(self, admin: Kube) -> None:
        wanted = wanted_crd()
        name = wanted["metadata"]["name"]
        live = _get(admin, f"{CRD_PATH}/{name}")
        if live is not None:
            difference = crd_difference(live, wanted)
            if difference:
                raise CRDMismatch(crd_mismatch_message(name, difference, self.context))
            _say(f"CRD {name} is there, the same as crds/: left as found")
            return
        body = {**wanted, "metadata": {**wanted["metadata"]}}
        body["metadata"]["annotations"] = {
            **(body["metadata"].get("annotations") or {}),
            CREATED_BY_ANNOTATION: self.run_id,
        }
        # No flag of our own to set: the annotation says a run made it, so whatever cleanup runs
        # last (ours, another run's, existing-cleanup) removes it, even after an interrupt here.
        try:
            admin.request("POST", CRD_PATH, body)
        except ApiException as exc:
            if exc.status != 409:
                raise
            # Another run installed it a moment ago: check it as found.
            self._ensure_crd(admin)
            return

        def established() -> bool:
            crd = _get(admin, f"{CRD_PATH}/{name}") or {}
            conditions = (crd.get("status") or {}).get("conditions") or []
            return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)

        if not _wait(f"CRD {name} Established", established, 60):
            raise ClusterError(f"CRD {name} was created but not Established within 60s")
        _say(f"CRD {name} installed (the last run on the cluster to finish removes it)")

    def cleanup(self) -> None:
        """Delete what the run made (see the module docstring); report, never raise an API
        error. Safe to call twice."""
        admin, self.admin = self.admin, None
        try:
            if admin is not None:
                self._cleanup(admin)
        finally:
            if admin is not None:
                admin.close()
            if self.workdir is not None:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def _cleanup(self, admin: Kube) -> None:
        started = time.monotonic()
        _say(
            f"cleaning up run {self.run_id} (if interrupted: python -m harness "
            f"existing-cleanup --run {self.run_id})"
        )
        try:
            names = clean_leftovers(admin, run_id=self.run_id)
            done = [f"{len(names)} namespaces ({RUN_LABEL}={self.run_id})"]
            others = other_runs(admin, self.run_id)
            if others:
                # Shared with the runs still there: the last one to finish removes them.
                _say(
                    f"the CRD and the operator ClusterRoles stay: run(s) {', '.join(others)} "
                    f"still have namespaces here"
                )
            else:
                if self._roles_before is not None:
                    done += restore_roles(admin, self._roles_before)
                done += remove_shared(admin)
            _say(f"removed {', '.join(done)} in {time.monotonic() - started:.0f}s")
        except Exception as exc:  # the cluster went away, refused, timed out: say, never raise
            _say(
                f"cleanup of run {self.run_id} incomplete: {exc}; retry with python -m harness "
                f"existing-cleanup --run {self.run_id}"
            )
