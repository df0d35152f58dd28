"""The ``kind`` tier: a kind cluster made with the kind CLI, then the ``existing`` tier on it.

``make conformance CLUSTER=kind`` takes the kind CLI from PATH or builds it (``go install
sigs.k8s.io/kind@<KIND_VERSION>``, into the binary cache like the other binaries), creates a
cluster with it (``cluster()``), runs the suite as on any ``existing`` cluster, and deletes the
cluster (``--keep-cluster`` keeps it and prints its kubeconfig).

kind runs its nodes as containers, so it needs a container engine: a docker or podman whose
engine answers (a client alone is not enough). Without one the run stops before building
anything, with one line and exit code ``NO_ENGINE_EXIT`` (2). The machines this project is
developed and tested on have only a docker client and no engine: that path is the one tested
here (``harness/tests/test_kind.py``); creating a cluster has not been run on them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import yaml

from harness import runs, say
from harness.envtest import binaries
from harness.paths import cache_root
from harness.process import run as run_process

KIND_VERSION = "v0.33.0"

#: Exit code when no container engine answers.
NO_ENGINE_EXIT = 2

#: The one line printed when no container engine answers.
NO_ENGINE_MESSAGE = (
    "--cluster kind needs a running container engine (docker or podman) for "
    "kind's node containers, and none answers on this machine; use "
    "--cluster envtest or sim, or --cluster existing with a KUBECONFIG"
)


def engine(candidates: tuple[str, ...] = ("docker", "podman"), timeout: float = 15) -> str | None:
    """The first container engine whose ``<cli> info`` succeeds (the engine answers, not only
    its client is installed), or None."""
    for cli in candidates:
        path = shutil.which(cli)
        if path is None:
            continue
        try:
            proc = subprocess.run(
                [path, "info"], stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if proc.returncode == 0:
            return cli
    return None


def no_engine_exit() -> int:
    """Print ``NO_ENGINE_MESSAGE`` (one line, stderr) and return ``NO_ENGINE_EXIT``."""
    say.line(NO_ENGINE_MESSAGE)
    return NO_ENGINE_EXIT


def up_not_supported() -> int:
    """``up --cluster kind`` with an engine: kind itself keeps a cluster up; say how."""
    print(
        "[modeldock] `up` does not start kind clusters: `kind create cluster` makes one and "
        "`make conformance CLUSTER=existing` runs the suite on it",
        file=sys.stderr,
        flush=True,
    )
    return 2


def kind_cli() -> Path:
    """The kind CLI: ``kind`` on PATH, else built once with ``go install
    sigs.k8s.io/kind@KIND_VERSION`` into ``<binary cache>/tools/kind-<version>/``. Raises
    binaries.BinaryError if the build fails."""
    found = shutil.which("kind")
    if found:
        return Path(found)
    gobin = cache_root() / "tools" / f"kind-{KIND_VERSION}"
    cli = gobin / "kind"
    if not cli.exists():
        print(f"[modeldock] building kind {KIND_VERSION} (go install)", file=sys.stderr)
        proc = run_process(
            ["go", "install", f"sigs.k8s.io/kind@{KIND_VERSION}"],
            env={**os.environ, "GOBIN": str(gobin)},
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if proc.returncode != 0 or not cli.exists():
            raise binaries.BinaryError(f"go install sigs.k8s.io/kind failed: {proc.stderr[-2000:]}")
    return cli


#: kindest/node images by minor version, pinned by digest (the images kind's release notes
#: list for each release). Only 1.34 is pinned: v1.34.0 of kind v0.30.0, the default version's
#: minor; kind publishes its own patch per minor, not 1.34.4.
NODE_IMAGES = {
    "1.34": "kindest/node:v1.34.0@sha256:7416a61b42b1662ca6ca89f02028ac133a309a2a30ba309614e8ec94d976dc5a",
}

#: Where, inside the control-plane node, the audit policy and log live (host folders mounted).
NODE_AUDIT_DIR = "/etc/kubernetes/modeldock-audit"
NODE_AUDIT_LOG_DIR = "/var/log/kubernetes/modeldock-audit"

#: The audit policy given to the kind API server: every request at the Metadata level, the
#: level the harness's audit reader needs (user, verb, resource, userAgent, response code).
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
"""


def node_image(minor: str) -> str:
    """The pinned ``kindest/node`` image (``name:tag@sha256:...``) for a minor version such as
    ``1.34``. Raises ValueError naming the minor and the ones pinned."""
    try:
        return NODE_IMAGES[minor]
    except KeyError:
        raise ValueError(
            f"no kindest/node image is pinned for Kubernetes {minor}; pinned: "
            f"{', '.join(sorted(NODE_IMAGES))} (harness/existing/kind.py NODE_IMAGES)"
        ) from None


def cluster_config(minor: str, host_audit_dir: Path, host_log_dir: Path, workers: int = 2) -> str:
    """The kind Cluster config (kind.x-k8s.io/v1alpha4, YAML text) for ``minor``: one
    control-plane node and ``workers`` worker nodes, all on the pinned node image; the API
    server writes its audit log (policy AUDIT_POLICY, read from ``host_audit_dir``/policy.yaml)
    to ``host_log_dir``/audit.log on the host, through extraMounts and a kubeadm patch.
    Raises ValueError for an unpinned minor or fewer than 1 worker."""
    if workers < 1:
        raise ValueError(f"workers={workers}: the kind tier needs at least 1 worker node")
    image = node_image(minor)
    control_plane = {
        "role": "control-plane",
        "image": image,
        "extraMounts": [
            {"hostPath": str(host_audit_dir), "containerPath": NODE_AUDIT_DIR, "readOnly": True},
            {"hostPath": str(host_log_dir), "containerPath": NODE_AUDIT_LOG_DIR},
        ],
        "kubeadmConfigPatches": [
            yaml.safe_dump(
                {
                    "kind": "ClusterConfiguration",
                    "apiServer": {
                        "extraArgs": {
                            "audit-policy-file": f"{NODE_AUDIT_DIR}/policy.yaml",
                            "audit-log-path": f"{NODE_AUDIT_LOG_DIR}/audit.log",
                            "audit-log-format": "json",
                        },
                        "extraVolumes": [
                            {
                                "name": "modeldock-audit-policy",
                                "hostPath": NODE_AUDIT_DIR,
                                "mountPath": NODE_AUDIT_DIR,
                                "readOnly": True,
                                "pathType": "Directory",
                            },
                            {
                                "name": "modeldock-audit-log",
                                "hostPath": NODE_AUDIT_LOG_DIR,
                                "mountPath": NODE_AUDIT_LOG_DIR,
                                "pathType": "DirectoryOrCreate",
                            },
                        ],
                    },
                },
                sort_keys=False,
            )
        ],
    }
    config = {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        "nodes": [control_plane] + [{"role": "worker", "image": image}] * workers,
    }
    return str(yaml.safe_dump(config, sort_keys=False))


@contextlib.contextmanager
def cluster(keep: bool = False, engine_cli: str | None = None) -> Iterator[Path]:
    """Create a kind cluster ``modeldock-<6 hex>`` (``kind create cluster --wait 180s``, the
    container engine ``engine_cli`` or the first that answers) and yield its admin kubeconfig
    (in a run temp dir); afterwards delete it, unless ``keep`` (then say how to use and delete
    it). Raises harness.existing.cluster.ClusterError when it cannot be created."""
    from harness.existing.cluster import ClusterError

    engine_cli = engine_cli or engine()
    if engine_cli is None:
        raise ClusterError(NO_ENGINE_MESSAGE)
    cli = kind_cli()
    name = f"modeldock-{uuid.uuid4().hex[:6]}"
    workdir = runs.temp_dir("kind")
    kubeconfig = workdir / "kubeconfig"
    audit_dir, log_dir = workdir / "audit-policy", workdir / "audit-log"
    audit_dir.mkdir()
    log_dir.mkdir()
    (audit_dir / "policy.yaml").write_text(AUDIT_POLICY)
    config = workdir / "kind.yaml"
    try:
        config.write_text(cluster_config(binaries.selected_minor(), audit_dir, log_dir))
    except ValueError as exc:
        raise ClusterError(str(exc)) from None
    env = {**os.environ, "KIND_EXPERIMENTAL_PROVIDER": engine_cli}
    print(f"[modeldock] creating kind cluster {name} ({engine_cli})", file=sys.stderr, flush=True)
    try:
        created = run_process(
            [
                str(cli),
                "create",
                "cluster",
                "--name",
                name,
                "--kubeconfig",
                str(kubeconfig),
                "--config",
                str(config),
                "--wait",
                "180s",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if created.returncode != 0:
            raise ClusterError(f"kind create cluster {name} failed: {created.stderr[-2000:]}")
        yield kubeconfig
    finally:
        if keep and kubeconfig.exists():
            kept = runs.write_text_atomic(Path.cwd() / f"{name}.kubeconfig", kubeconfig.read_text())
            print(
                f"[modeldock] kept kind cluster {name} (--keep-cluster): export "
                f"KUBECONFIG={kept}; delete it with `{cli} delete cluster --name {name}`",
                file=sys.stderr,
                flush=True,
            )
        else:
            run_process(
                [str(cli), "delete", "cluster", "--name", name], env=env, capture_output=True
            )
        shutil.rmtree(workdir, ignore_errors=True)
