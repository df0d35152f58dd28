"""Where things are in the repository: the one definition of its root and of the folders the
harness reads (CRDs, RBAC, conformance checks) and writes (build outputs, reports).

Every path is absolute and derived from this file's location, so the harness works from any
current directory. Nothing here touches the file system.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The repository root: the folder holding ``harness/``, ``conformance/`` and ``Makefile``.
REPO_ROOT = Path(__file__).resolve().parent.parent

#: The ModelService CRD(s) the control plane installs.
CRDS_DIR = REPO_ROOT / "crds"

#: The operator's ClusterRole (``role.yaml``), the one source of its rights.
RBAC_DIR = REPO_ROOT / "config" / "rbac"

#: The shared conformance suite (``test_*.py``, ``CONTRACT.md``).
CONFORMANCE_DIR = REPO_ROOT / "conformance"

#: Build outputs (operator binaries, the API proxy); ``{build}`` in an implementation file.
BUILD_DIR = REPO_ROOT / "build"

#: Where runs write JUnit files, JSON results and the comparison report by default.
REPORTS_DIR = REPO_ROOT / "reports"


def cache_root() -> Path:
    """The project's cache folder, outside the repository and kept across clones (built
    Kubernetes binaries, tools, the port reservations): ``$MODELDOCK_CACHE``, else
    ``$XDG_CACHE_HOME/modeldock``, else ``~/.cache/modeldock``."""
    if os.environ.get("MODELDOCK_CACHE"):
        return Path(os.environ["MODELDOCK_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "modeldock"
