"""The ``sim`` tier: envtest plus the controllers a cluster runs, and fake nodes.

On top of etcd and kube-apiserver (``ControlPlane``), ``start_sim`` starts:

- kube-controller-manager with the controllers the checks lean on (``CONTROLLERS``): the
  Deployment and ReplicaSet controllers (a Deployment gets a ReplicaSet and Pods, and its
  status counts them), the garbage collector (dependents of a vanished owner are deleted,
  ``orphan`` and ``foreground`` deletions complete) and the namespace controller (a deleted
  namespace is emptied and goes away). ``--use-service-account-credentials=false``: every
  controller uses kube-controller-manager's own client certificate, user
  ``system:kube-controller-manager`` (group ``system:masters``), whose requests the audit
  policy leaves out;
- kube-scheduler (user ``system:kube-scheduler``), which binds Pods to nodes (kwok never
  schedules);
- kwok (user ``system:kwok``) managing the nodes annotated ``kwok.x-k8s.io/node=fake``: its
  built-in stages keep those nodes Ready and make a bound Pod Running and Ready, as a kubelet
  would, without running anything; a deleted Pod is removed at once (the node lifecycle
  controller lifts the ``not-ready`` taint a new Node is created with, once kwok reports it
  Ready);
- ``NODES`` fake Node objects, big enough for every Pod a run makes.

All of them go through ``harness.process`` (they die with the harness) and are named in
the control plane's state, so a watchdog notices when one dies. Their logs are in the control
plane's workdir. ``start_sim`` returns once a fake node is Ready and both controllers answer
``/healthz``; the start-up time is printed.
"""

from __future__ import annotations

import ssl
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from harness.envtest.kubeconfig import write_kubeconfig
from harness.process import ManagedProcess, free_port, wait_until

#: A ``harness.envtest.controlplane.ControlPlane`` (not imported: it imports this module).
ControlPlane = Any

#: kube-controller-manager's controllers in this tier (``--controllers``).
CONTROLLERS = (
    "deployment-controller",
    "replicaset-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "node-lifecycle-controller",
)

#: The annotation kwok selects its nodes by, and its value.
NODE_ANNOTATION = ("kwok.x-k8s.io/node", "fake")

#: How many fake nodes, and what each offers: a real node's kinds, ephemeral-storage among them
#: (a Pod whose container limits it, as noop-stable[exponent-spelling]'s does, is otherwise
#: unschedulable: its request defaults to the limit and no node has any).
NODES = 2
NODE_CAPACITY = {"cpu": "64", "memory": "512Gi", "ephemeral-storage": "1Ti", "pods": "2000"}

#: Identities (CN, groups) of the tier's components; the audit policy skips their requests.
IDENTITIES = {
    "kube-controller-manager": ("system:kube-controller-manager", ("system:masters",)),
    "kube-scheduler": ("system:kube-scheduler", ("system:masters",)),
    "kwok": ("system:kwok", ("system:masters",)),
}

#: The processes of this tier, in start order (names in ``State.processes``).
PROCESSES = ("kube-controller-manager", "kube-scheduler", "kwok")


def _kubeconfig(cp: ControlPlane, name: str) -> Path:
    assert cp.ca is not None and cp.state is not None
    user, groups = IDENTITIES[name]
    crt, key = cp.ca.issue_client(user, groups).write(cp.pki_dir, name)
    return write_kubeconfig(
        cp.workdir / f"{name}.kubeconfig", cp.server, Path(cp.state.ca_cert), user, crt, key
    )


def _healthz(port: int) -> bool:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(
            f"https://127.0.0.1:{port}/healthz", context=ctx, timeout=3
        ) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def node_manifest(index: int) -> dict[str, Any]:
    """A fake Node for kwok: annotated so kwok manages it, no taints, ``NODE_CAPACITY``."""
    name = f"kwok-node-{index}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                NODE_ANNOTATION[0]: NODE_ANNOTATION[1],
            },
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
            },
        },
        "status": {
            "allocatable": dict(NODE_CAPACITY),
            "capacity": dict(NODE_CAPACITY),
            "nodeInfo": {
                "kubeletVersion": "fake",
                "kubeProxyVersion": "fake",
                "architecture": "amd64",
                "operatingSystem": "linux",
            },
        },
    }


def _nodes_ready(cp: ControlPlane) -> bool:
    import json

    out = cp.kubectl("get", "nodes", "-o", "json", check=False)
    try:
        items = json.loads(out).get("items", [])
    except ValueError:
        return False
    ready = [
        n
        for n in items
        if any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in (n.get("status") or {}).get("conditions") or []
        )
        and not (n.get("spec") or {}).get("taints")
    ]
    return len(ready) >= NODES


def start_sim(cp: ControlPlane) -> dict[str, ManagedProcess]:
    """Start the sim tier's processes against the running ``cp`` and create its fake nodes;
    each process is put in ``cp.extras`` as soon as it is started (so ``cp.stop()`` stops it
    whatever happens next), which is also returned. Raises ProcessError or TimeoutError (with
    the log tail) when one does not come up; the caller stops what was started."""
    import yaml

    bins = cp._binaries
    assert bins is not None and cp.state is not None
    started = time.monotonic()
    procs: dict[str, ManagedProcess] = cp.extras
    kcm_cfg = _kubeconfig(cp, "kube-controller-manager")
    kcm_port = free_port()
    procs["kube-controller-manager"] = ManagedProcess(
        "kube-controller-manager",
        [
            str(bins["kube-controller-manager"]),
            f"--kubeconfig={kcm_cfg}",
            f"--authentication-kubeconfig={kcm_cfg}",
            f"--authorization-kubeconfig={kcm_cfg}",
            "--bind-address=127.0.0.1",
            f"--secure-port={kcm_port}",
            f"--cert-dir={cp.workdir / 'kcm-certs'}",
            "--leader-elect=false",
            "--use-service-account-credentials=false",
            f"--controllers={','.join(CONTROLLERS)}",
            # The garbage collector and the namespace controller find the CRD by discovery.
            "--concurrent-gc-syncs=10",
            "--concurrent-namespace-syncs=5",
            "--v=1",
        ],
        cp.workdir / "kube-controller-manager.log",
        own_session=True,
    ).start()
    sched_cfg = _kubeconfig(cp, "kube-scheduler")
    sched_port = free_port()
    procs["kube-scheduler"] = ManagedProcess(
        "kube-scheduler",
        [
            str(bins["kube-scheduler"]),
            f"--kubeconfig={sched_cfg}",
            f"--authentication-kubeconfig={sched_cfg}",
            f"--authorization-kubeconfig={sched_cfg}",
            "--bind-address=127.0.0.1",
            f"--secure-port={sched_port}",
            f"--cert-dir={cp.workdir / 'scheduler-certs'}",
            "--leader-elect=false",
            "--v=1",
        ],
        cp.workdir / "kube-scheduler.log",
        own_session=True,
    ).start()
    kwok_cfg = _kubeconfig(cp, "kwok")
    procs["kwok"] = ManagedProcess(
        "kwok",
        [
            str(bins["kwok"]),
            f"--kubeconfig={kwok_cfg}",
            "--manage-all-nodes=false",
            f"--manage-nodes-with-annotation-selector={NODE_ANNOTATION[0]}={NODE_ANNOTATION[1]}",
            "--manage-nodes-with-label-selector=",
            "--manage-single-node=",
            # Only written into fake objects' status; nothing ever connects to these addresses.
            "--cidr=10.244.0.0/16",
            "--node-ip=10.0.0.1",
            "--node-lease-duration-seconds=40",
            f"--server-address=127.0.0.1:{free_port()}",
        ],
        cp.workdir / "kwok.log",
        own_session=True,
    ).start()
    for name, proc in procs.items():
        cp._record(name, proc)
    for i in range(NODES):
        cp.kubectl("apply", "--server-side", "-f", "-", input=yaml.safe_dump(node_manifest(i)))
    alive = list(procs.values())
    wait_until(
        lambda: _healthz(kcm_port), timeout=90, what="kube-controller-manager /healthz", alive=alive
    )
    wait_until(
        lambda: _healthz(sched_port), timeout=90, what="kube-scheduler /healthz", alive=alive
    )
    wait_until(
        lambda: _nodes_ready(cp),
        timeout=90,
        interval=0.5,
        what=f"{NODES} kwok nodes Ready and untainted",
        alive=alive,
    )
    cp.progress(
        f"sim tier up in {time.monotonic() - started:.1f}s: kube-controller-manager "
        f"({', '.join(CONTROLLERS)}), kube-scheduler, kwok, {NODES} fake nodes"
    )
    return procs
