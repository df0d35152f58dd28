"""``--keep-on-failure`` for real: a mutant that fails ``noop-stable`` is run with it; the
control plane stays up, the failed check's namespace and its objects stay in it, the terminal
says how to look at them, and ``python -m harness down`` stops it all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness.envtest import background
from harness.kube import Kube
from harness.paths import REPO_ROOT
from harness.plugin.console import kept_entries


def test_keep_on_failure_leaves_the_plane_and_the_namespace_and_down_stops_it(
    tmp_path: Path,
) -> None:
    state_dir, reports = tmp_path / "up", tmp_path / "reports"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "conformance",
            "--impl",
            "always-update",
            "--impl-file",
            "harness/mutants/mutants.toml",
            "--check",
            "noop-stable",
            "--keep-on-failure",
            "--state-dir",
            str(state_dir),
            "--reports",
            str(reports),
            # the plain case only: one kept namespace
            "--",
            "-k",
            "not rewritten_values and not exponent_spelling and not respelled",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        assert proc.returncode == 1, proc.stdout + proc.stderr
        state = background.read_state(state_dir)
        assert state is not None, "the control plane was not kept"
        [entry] = kept_entries(reports / "artifacts")
        assert entry["check"] == "noop-stable"
        kube = Kube(Path(str(state["admin_kubeconfig"])))
        try:
            assert kube.get("namespaces", None, entry["namespace"]) is not None
            assert kube.list("modelservices", entry["namespace"]), "the check's objects are gone"
        finally:
            kube.close()
        assert f"export KUBECONFIG={state['admin_kubeconfig']}" in proc.stdout
        assert f"-n {entry['namespace']}" in proc.stdout
        assert f"python -m harness down --state-dir {state_dir}" in proc.stdout
        assert proc.stdout.rstrip().splitlines()[-2].startswith("FAILED:")
    finally:
        assert background.down(state_dir) == 0
    assert not state_dir.exists()
