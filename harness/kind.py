"""The ``kind`` tier: a kind cluster made with the kind CLI, then the ``existing`` tier on it.

``make conformance CLUSTER=kind`` builds the kind CLI (``go install sigs.k8s.io/kind@<KIND_VERSION>``,
into the binary cache like the other binaries), creates a cluster with it, runs the suite as
on any ``existing`` cluster, and deletes the cluster (``--keep-cluster`` keeps it).

kind runs its nodes as containers, so it needs a container engine: a docker or podman whose
engine answers (a client alone is not enough). Without one the run stops before building
anything, with one line and exit code ``NO_ENGINE_EXIT`` (2). The machines this project is
developed and tested on have only a docker client and no engine: that path is the one tested
here (``harness/tests/test_kind.py``); creating a cluster has not been run on them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

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
    print(f"[modeldock] {NO_ENGINE_MESSAGE}", file=sys.stderr, flush=True)
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
