"""The envtest control plane: etcd and kube-apiserver on loopback, owned by the harness.

``ControlPlane`` starts a real etcd and a real kube-apiserver (v1.34, built by
``harness.envtest.binaries``) on 127.0.0.1 with free ports in a temp dir, with:

- its own CA; a serving certificate; client certificates for ``admin`` (group
  ``system:masters``) and, on demand, one user per implementation (``modeldock:<impl>``);
- ``--authorization-mode=RBAC``, so an operator can do only what ``config/`` grants it;
- the ``OwnerReferencesPermissionEnforcement`` admission plugin (as OpenShift and Cluster
  API's CI run it): setting ``blockOwnerDeletion`` on an ownerReference needs ``update`` on
  the owner's ``finalizers`` subresource, and changing ownerReferences needs ``delete`` on
  the object, so the rights in ``config/rbac`` that only this plugin asks for are checked too;
- an audit log (JSON, Metadata level, stage ResponseComplete) that the checks read to count
  and order each user's requests (``harness.audit``);
- fault tools: stop and restart the API server on the same port, etcd compaction at the
  current revision, and an optional ``--watch-cache=false`` so a resumed watch gets 410 Gone.

There is no kubelet and no kube-controller-manager in the ``envtest`` tier: no pods, no garbage
collection, and namespaces never finish terminating. ``ControlPlane(tier="sim")`` adds
kube-controller-manager, kube-scheduler, kwok and fake nodes (``harness.envtest.sim``).

A running control plane is described by a JSON state file (``ControlPlane.state_path``) that
another process re-opens with ``ControlPlane.attach(path)``: the CLI's ``up``/``down``, the
per-implementation pytest runs of ``make conformance`` and pytest-xdist workers all share one
control plane that way. The state names its processes (owner, etcd, kube-apiserver) by
identity, so that a user can tell at once that it is gone (``lost()``, ``state_lost()``).

Its temp dir is ``<tmp>/modeldock-cp-XXXXXXXX`` with an owner file (``harness.runs``): removed
by ``stop()``, or by the next ModelDock start if the owner died without stopping it. Flags mirror controller-runtime's envtest (pkg/internal/testing) where
they overlap.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness import runs, tiers
from harness.envtest import binaries as binaries_mod
from harness.envtest.kubeconfig import write_kubeconfig
from harness.envtest.pki import CertificateAuthority, service_account_key
from harness.paths import CRDS_DIR, RBAC_DIR
from harness.process import (
    ManagedProcess,
    ProcessError,
    free_port,
    identity_alive,
    log_tail,
    process_identity,
    wait_until,
)

CRD_DIR = CRDS_DIR

#: The audit policy: every request but the API server's own and health probes, at Metadata
#: level (who, verb, resource, name, namespace, status code; no bodies), once complete.
#: Deletes are logged at Request level, so their DeleteOptions (the UID precondition a
#: careful controller sends) can be checked.
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived", "ResponseStarted"],
    "rules": [
        {
            "level": "None",
            "users": [
                "system:apiserver",
                "system:kube-controller-manager",
                "system:kube-scheduler",
                "system:kwok",
            ],
        },
        {
            "level": "None",
            "nonResourceURLs": [
                "/healthz*",
                "/readyz*",
                "/livez*",
                "/version",
                "/openapi*",
                "/metrics",
            ],
        },
        {"level": "Request", "verbs": ["delete"]},
        {"level": "Metadata"},
    ],
}

Progress = Callable[[str], None]

#: Admission plugins enabled on top of kube-apiserver's defaults.
ADMISSION_PLUGINS = ("OwnerReferencesPermissionEnforcement",)

#: kube-apiserver's Service range; 10.0.0.1 (the `kubernetes` Service) is in the serving cert.
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/16"
#: kube-apiserver's --shutdown-watch-termination-grace-period: how long a stopping API server
#: lets its open watches drain (they are ended, rate limited) before it shuts down.
WATCH_DRAIN_GRACE = "1s"


def _progress(line: str) -> None:
    print(f"[control-plane] {line}", file=sys.stderr, flush=True)


@dataclass
class State:
    """What another process needs to use a running control plane (the JSON state file).

    ``processes``: ``{"owner" | "etcd" | "kube-apiserver": identity}`` (``pid:start time``,
    ``harness.process.process_identity``); kube-apiserver's is empty while its owner has
    stopped it on purpose (``stop_apiserver``).
    """

    tier: str
    server: str
    workdir: str
    admin_kubeconfig: str
    ca_cert: str
    ca_key: str
    audit_log: str
    etcd_url: str
    apiserver_port: int
    supervisor_pid: int = 0
    watch_cache: bool = True
    users: dict[str, str] = field(default_factory=dict)
    processes: dict[str, str] = field(default_factory=dict)


#: The names in ``State.processes``, in the order ``lost()`` reports them (then the sim tier's).
_WATCHED = ("owner", "etcd", "kube-apiserver")

#: The tiers a ``ControlPlane`` can start (``harness.tiers``: those the harness starts).
TIERS = tiers.names(started=True)


def _lost(state: State) -> str | None:
    for name in (*_WATCHED, *(n for n in state.processes if n not in _WATCHED)):
        identity = state.processes.get(name, "")
        if identity and not identity_alive(identity):
            what = "its owner" if name == "owner" else name
            return f"{what} (pid {identity.split(':')[0]}) is gone"
    return None


def state_lost(state_path: Path | str) -> str | None:
    """Why the control plane described by ``state_path`` is gone, or None while it runs: its
    state file is missing, or its owner, etcd or kube-apiserver process has exited (checked
    by process identity, on this machine; a state without identities is taken as running).
    Cheap (a file read and a few ``/proc`` reads): meant to be polled."""
    path = Path(state_path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return f"its state file {path} was removed"
    except (OSError, ValueError):
        return None  # being replaced right now (save_state renames); ask again
    if not tiers.spec(data.get("tier", tiers.DEFAULT)).harness_starts:
        # not the harness's cluster: only the run's owner counts
        owner = str((data.get("processes") or {}).get("owner", ""))
        alive = not owner or identity_alive(owner)
        return None if alive else f"its owner (pid {owner.split(':')[0]}) is gone"
    return _lost(State(**data))


class ControlPlaneError(RuntimeError):
    """The control plane could not start or answer; the message carries the relevant log tail."""


class ControlPlane:
    """etcd + kube-apiserver on loopback. Use as a context manager, or ``start()``/``stop()``.

    Keyword options:
    ``watch_cache``: False starts the API server with ``--watch-cache=false``, so watches are
    served from etcd and a resumed watch after compaction gets 410 Gone.
    ``workdir``: a folder to use (kept on stop) instead of a fresh temp dir (removed on stop).
    ``progress``: a callable receiving progress lines.
    ``crds``: False starts the plane without the ModelService CRD (the operator's role is
    still applied): waits-for-crd's private plane, where the CRD comes later.
    """

    def __init__(
        self,
        *,
        watch_cache: bool = True,
        crds: bool = True,
        workdir: Path | None = None,
        progress: Progress = _progress,
        binaries: binaries_mod.Binaries | None = None,
        tier: str = tiers.DEFAULT,
    ) -> None:
        self.watch_cache = watch_cache
        self.crds = crds
        self.tier = tier
        self._own_workdir = workdir is None
        self.workdir = Path(workdir) if workdir else runs.temp_dir("cp")
        self.progress = progress
        self._binaries = binaries
        if tier not in TIERS:
            raise ControlPlaneError(f"a ControlPlane is one of {TIERS}, not {tier!r}")
        self.etcd: ManagedProcess | None = None
        self.apiserver: ManagedProcess | None = None
        #: the sim tier's processes (kube-controller-manager, kube-scheduler, kwok) by name
        self.extras: dict[str, ManagedProcess] = {}
        self.ca: CertificateAuthority | None = None
        self.state: State | None = None
        self._attached = False

    # ------------------------------------------------------------------ paths
    @property
    def state_path(self) -> Path:
        return self.workdir / "state.json"

    @property
    def pki_dir(self) -> Path:
        return self.workdir / "pki"

    @property
    def server(self) -> str:
        return self._state().server

    @property
    def apiserver_port(self) -> int:
        """kube-apiserver's port on 127.0.0.1 (``server``'s)."""
        return self._state().apiserver_port

    @property
    def admin_kubeconfig(self) -> Path:
        return Path(self._state().admin_kubeconfig)

    @property
    def audit_log(self) -> Path:
        return Path(self._state().audit_log)

    def _state(self) -> State:
        """The running control plane's state; ControlPlaneError before ``start()``/``attach()``
        (a harness error, never a verdict on an operator)."""
        if self.state is None:
            raise ControlPlaneError("control plane not started: call start() or attach() first")
        return self.state

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> ControlPlane:
        """Start etcd and kube-apiserver, wait until the API server is ready, install the CRDs
        and the operator ClusterRole. Raises ControlPlaneError (with log tails) on failure;
        whatever was started is stopped again before raising. A port taken between choosing
        and binding it (another process won the race) is retried with new ports, twice."""
        for attempt in range(3):
            try:
                return self._start_once()
            except (ControlPlaneError, ProcessError) as exc:
                if "address already in use" not in str(exc) or attempt == 2:
                    self.stop()
                    raise
                self.progress(f"a port was taken meanwhile; retrying with new ports ({exc})")
        raise AssertionError("unreachable")

    def _start_once(self) -> ControlPlane:
        started = time.monotonic()
        self.etcd = self.apiserver = None
        self.extras = {}
        try:
            wanted = tiers.spec(self.tier).binaries
            bins = self._binaries or binaries_mod.ensure(wanted)
            self._binaries = bins
            self.pki_dir.mkdir(parents=True, exist_ok=True)
            self.ca = CertificateAuthority.new()
            (self.pki_dir / "ca.crt").write_bytes(self.ca.cert_pem)
            (self.pki_dir / "ca.key").write_bytes(self.ca.key_pem)
            (self.pki_dir / "ca.key").chmod(0o600)
            self.ca.issue_serving(
                [
                    "127.0.0.1",
                    "localhost",
                    "10.0.0.1",
                    "kubernetes",
                    "kubernetes.default",
                    "kubernetes.default.svc",
                ]
            ).write(self.pki_dir, "apiserver")
            service_account_key().write(self.pki_dir, "sa")
            (self.workdir / "audit-policy.yaml").write_text(yaml.safe_dump(AUDIT_POLICY))
            etcd_port, peer_port, api_port = free_port(), free_port(), free_port()
            self.state = State(
                tier=self.tier,
                server=f"https://127.0.0.1:{api_port}",
                workdir=str(self.workdir),
                admin_kubeconfig=str(self.workdir / "admin.kubeconfig"),
                ca_cert=str(self.pki_dir / "ca.crt"),
                ca_key=str(self.pki_dir / "ca.key"),
                audit_log=str(self.workdir / "audit.log"),
                etcd_url=f"http://127.0.0.1:{etcd_port}",
                apiserver_port=api_port,
                supervisor_pid=os.getpid(),
                watch_cache=self.watch_cache,
                processes={"owner": process_identity() or ""},
            )
            self._start_etcd(bins["etcd"], etcd_port, peer_port)
            admin = self.ca.issue_client("admin", ("system:masters",))
            crt, key = admin.write(self.pki_dir, "admin")
            write_kubeconfig(
                self.admin_kubeconfig, self.server, self.pki_dir / "ca.crt", "admin", crt, key
            )
            self.start_apiserver()
            if self.crds:
                self.apply_paths([CRD_DIR, RBAC_DIR / "role.yaml"])
                self.wait_crds_established()
            else:
                self.apply_paths([RBAC_DIR / "role.yaml"])
            if tiers.spec(self.tier).starts_controllers:
                from harness.envtest import sim

                try:
                    sim.start_sim(self)  # fills self.extras as it starts each one
                except TimeoutError as exc:
                    raise ControlPlaneError(f"the sim tier did not come up: {exc}") from exc
            self.save_state()  # last: `up` takes the state file as "ready"
            self.progress(f"ready in {time.monotonic() - started:.1f}s at {self.server}")
            return self
        except (ControlPlaneError, ProcessError):
            for proc in (*self.extras.values(), self.apiserver, self.etcd):
                if proc is not None:
                    proc.stop(timeout=15)
            shutil.rmtree(self.workdir / "etcd", ignore_errors=True)
            raise
        except BaseException:
            self.stop()
            raise

    def _start_etcd(self, etcd: Path, port: int, peer_port: int) -> None:
        url, peer = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{peer_port}"
        self.etcd = ManagedProcess(
            "etcd",
            [
                str(etcd),
                "--name=modeldock",
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={url}",
                f"--advertise-client-urls={url}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=modeldock={peer}",
                "--unsafe-no-fsync=true",
                "--log-level=warn",
                "--quota-backend-bytes=8589934592",
            ],
            self.workdir / "etcd.log",
            own_session=True,
        ).start()
        self._record("etcd", self.etcd)
        self.progress(f"etcd starting on {url}")
        wait_until(
            lambda: self._etcd_post("/health", None, method="GET").get("health") == "true",
            timeout=30,
            what="etcd /health",
            alive=[self.etcd],
        )

    def _apiserver_args(self) -> list[str]:
        assert self.state is not None and self._binaries is not None
        pki = self.pki_dir
        args = [
            str(self._binaries["kube-apiserver"]),
            f"--etcd-servers={self.state.etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            # From 1.37 the lease endpoint reconciler refuses a loopback advertise address
            # ("may not be in the loopback range"); the harness's clients never use the
            # `kubernetes` Service's endpoints, so that reconciler is turned off there.
            *(
                ["--endpoint-reconciler-type=none"]
                if int(binaries_mod.selected_minor().split(".")[1]) >= 37
                else []
            ),
            f"--secure-port={self.state.apiserver_port}",
            f"--cert-dir={pki}",
            f"--tls-cert-file={pki / 'apiserver.crt'}",
            f"--tls-private-key-file={pki / 'apiserver.key'}",
            f"--client-ca-file={pki / 'ca.crt'}",
            "--authorization-mode=RBAC",
            # A /16: envtest never frees a ClusterIP (no namespace controller), and a /24 is
            # full after ~250 Services, fewer than a mutant matrix or a benchmark creates.
            f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
            f"--service-account-issuer={self.state.server}",
            f"--service-account-key-file={pki / 'sa.crt'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--disable-admission-plugins=ServiceAccount",
            # Off by default in kube-apiserver; without it nothing ever needs the operator's
            # modelservices/finalizers right, and an RBAC check cannot see that rule.
            f"--enable-admission-plugins={','.join(ADMISSION_PLUGINS)}",
            "--allow-privileged=true",
            f"--audit-policy-file={self.workdir / 'audit-policy.yaml'}",
            f"--audit-log-path={self.state.audit_log}",
            "--audit-log-format=json",
            "--audit-log-mode=blocking",
            "--audit-log-maxsize=0",
            "--enable-priority-and-fairness=false",
            # On SIGTERM, end open watches within a second (each client sees its watch end, as
            # at a watch timeout) instead of waiting for them until the HTTP server's shutdown
            # timeout: without it a stop with an operator connected took 20 s, the whole
            # allowance, and every restart and every teardown of a lab waited it out.
            f"--shutdown-watch-termination-grace-period={WATCH_DRAIN_GRACE}",
            "--v=1",
        ]
        if not self.watch_cache:
            args.append("--watch-cache=false")
        return args

    def start_apiserver(self) -> None:
        """Start kube-apiserver (again, after ``stop_apiserver``) on the same address and port,
        and wait for ``/readyz``. Raises ControlPlaneError with the log tail if it does not come up."""
        if self.apiserver is None:
            self.apiserver = ManagedProcess(
                "kube-apiserver",
                self._apiserver_args(),
                self.workdir / "kube-apiserver.log",
                own_session=True,
            )
        self.apiserver.start()
        self._record("kube-apiserver", self.apiserver)
        self.progress(f"kube-apiserver starting on {self.server}")
        try:
            wait_until(
                self._apiserver_ready,
                timeout=90,
                what="kube-apiserver /readyz",
                alive=[self.apiserver] + ([self.etcd] if self.etcd else []),
            )
        except (TimeoutError, ProcessError) as exc:
            raise ControlPlaneError(
                f"kube-apiserver did not become ready: {exc}\n--- last lines of "
                f"{self.apiserver.log_path}:\n{log_tail(self.apiserver.log_path)}"
            ) from exc

    def stop_apiserver(self) -> None:
        """Stop kube-apiserver (SIGTERM), keeping etcd and every file: ``start_apiserver()``
        brings it back on the same port."""
        if self.apiserver is not None:
            self._record("kube-apiserver", None)
            self.apiserver.stop(timeout=20)

    def restart_apiserver(self) -> None:
        """Stop and start kube-apiserver on the same port; clients see their connections cut."""
        self.stop_apiserver()
        self.start_apiserver()

    def stop(self) -> None:
        """Stop every process this object started and remove its temp dir (an attached control
        plane is left running: stop it with ``harness down`` or by its owner)."""
        if self._attached:
            return
        if self.etcd is not None and not self.etcd.running() and self.apiserver is not None:
            self.apiserver.kill()  # without etcd it would not shut down in time anyway
        for proc in (*self.extras.values(), self.apiserver, self.etcd):
            if proc is not None:
                proc.stop(timeout=15)
        if self._own_workdir and self.workdir.exists():
            shutil.rmtree(self.workdir, ignore_errors=True)

    def lost(self) -> str | None:
        """Why this control plane is gone, or None while it runs (see ``state_lost``; an
        attached one re-reads the owner's state file)."""
        if self._attached:
            return state_lost(self.state_path)
        return _lost(self.state) if self.state is not None else None

    # ------------------------------------------------------------------ state
    def _record(self, name: str, proc: ManagedProcess | None) -> None:
        """Note ``proc``'s identity as ``name`` in the state (empty: stopped on purpose), and
        in the state file once there is one."""
        assert self.state is not None
        pid = proc.pid if proc is not None else None
        self.state.processes[name] = (process_identity(pid) or "") if pid else ""
        if self.state_path.exists():
            self.save_state()

    def save_state(self) -> None:
        assert self.state is not None
        runs.write_text_atomic(self.state_path, json.dumps(asdict(self.state), indent=2))

    @classmethod
    def attach(cls, state_path: Path | str) -> ControlPlane:
        """Open a control plane that another process started, from its state file.

        The returned object can issue users, apply manifests, read the audit log and compact
        etcd; it cannot restart the API server (only the owner can) and ``stop()`` leaves it
        running. Raises ControlPlaneError if the state file is missing or the server is down.
        """
        path = Path(state_path).resolve()
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ControlPlaneError(
                f"cannot read control-plane state {path}: {exc}; start one "
                "with `python -m harness up`"
            ) from exc
        cp = cls(
            workdir=path.parent,
            watch_cache=data.get("watch_cache", True),
            tier=data.get("tier", tiers.DEFAULT),
        )
        cp._attached = True
        cp._own_workdir = False
        cp.state = State(**data)
        cp.ca = CertificateAuthority.load(
            Path(cp.state.ca_cert).read_bytes(), Path(cp.state.ca_key).read_bytes()
        )
        if not cp._apiserver_ready():
            raise ControlPlaneError(
                f"the control plane in {path.parent} does not answer at "
                f"{cp.server}; start one with `python -m harness up`"
            )
        return cp

    # ------------------------------------------------------------------ users
    def kubeconfig_for(self, user: str, groups: tuple[str, ...] = ()) -> Path:
        """A kubeconfig for client-certificate user ``user`` (CN) in ``groups`` (O entries),
        issued once per user and groups, then reused. The API server's audit log records both
        (``user.username``, ``user.groups``), so a group can tell apart instances of one
        operator that share its user (and its RBAC binding).

        File name: ``<workdir>/users/<user>[+<group>...].kubeconfig``, ':' written as '-'.
        """
        assert self.ca is not None and self.state is not None
        stem = "+".join((user, *groups)).replace(":", "-")
        users_dir = self.workdir / "users"
        users_dir.mkdir(exist_ok=True)
        path = users_dir / f"{stem}.kubeconfig"
        if not path.exists():
            # Per process and thread: the generator's slots (threads of one process) ask for
            # the same user at once, and one's os.replace took the other's temporary file
            # away before its chmod (FileNotFoundError, --parallel 2, seed 777).
            mine = f"{stem}.{os.getpid()}.{threading.get_ident()}"
            crt, key = self.ca.issue_client(user, groups).write(users_dir, mine)
            tmp = users_dir / f".{mine}.kubeconfig"
            write_kubeconfig(tmp, self.server, Path(self.state.ca_cert), user, crt, key)
            os.replace(tmp, path)  # atomic: concurrent writers each write a valid file
        return path

    # ------------------------------------------------------------------ API helpers
    def _ssl_context(self) -> ssl.SSLContext:
        assert self.state is not None
        ctx = ssl.create_default_context(cafile=self.state.ca_cert)
        ctx.load_cert_chain(self.pki_dir / "admin.crt", self.pki_dir / "admin.key")
        return ctx

    def _apiserver_ready(self) -> bool:
        try:
            with urllib.request.urlopen(
                f"{self.server}/readyz", context=self._ssl_context(), timeout=5
            ) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def kubectl(
        self,
        *args: str,
        kubeconfig: Path | None = None,
        input: str | None = None,
        check: bool = True,
    ) -> str:
        """Run the cached kubectl against this control plane (admin unless ``kubeconfig``);
        return stdout. Raises ControlPlaneError with stderr when ``check`` and it fails."""
        from harness import process

        kubectl = (self._binaries or binaries_mod.ensure(["kubectl"]))["kubectl"]
        proc = process.run(
            [str(kubectl), f"--kubeconfig={kubeconfig or self.admin_kubeconfig}", *args],
            input=input,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check and proc.returncode != 0:
            raise ControlPlaneError(f"kubectl {' '.join(args)} failed: {proc.stderr.strip()}")
        return str(proc.stdout)

    def apply_paths(self, paths: list[Path]) -> None:
        """Server-side apply the YAML files (or folders of them) as admin."""
        for path in paths:
            self.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(path))

    def wait_crds_established(self, timeout: float = 60) -> None:
        self.kubectl(
            "wait",
            "--for=condition=Established",
            f"--timeout={int(timeout)}s",
            "crd/modelservices.modeldock.io",
        )

    # ------------------------------------------------------------------ etcd
    def _etcd_post(self, path: str, body: dict[str, Any] | None, method: str = "POST") -> Any:
        assert self.state is not None
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.state.etcd_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    def etcd_revision(self) -> int:
        """etcd's current revision (from a range request's response header)."""
        key = base64.b64encode(b"/registry/namespaces/default").decode()
        out = self._etcd_post("/v3/kv/range", {"key": key, "count_only": True})
        return int(out["header"]["revision"])

    def compact_etcd(self) -> int:
        """Compact etcd at its current revision (physical), so any watch resuming from an older
        resourceVersion is answered 410 Gone (served from etcd when the watch cache is off).
        Returns the revision compacted at."""
        rev = self.etcd_revision()
        self._etcd_post("/v3/kv/compaction", {"revision": str(rev), "physical": True})
        return rev
