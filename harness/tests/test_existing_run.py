"""The existing tier for real, on a sim control plane of its own (``python -m harness up
--cluster sim`` in a temp folder), given only its admin kubeconfig:

- Ctrl-C (SIGINT to the harness's process group, as a terminal sends it) and SIGTERM in the
  middle of a check: exit code 130, no namespace labelled ``modeldock.dev/run`` left, the CRD
  the run installed removed again, the ClusterRole that was there kept;
- a ModelService CRD that differs from crds/ is an error naming it and the fix (exit 2), and
  the run creates nothing;
- the operator's identity: a ServiceAccount token, the role bound in the check's namespace only;
- ``existing-cleanup`` removes a dead run's namespace (finalizers included), not a live one's.
"""

from __future__ import annotations

import copy
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from harness.envtest import background
from harness.existing.cluster import ExistingCluster, read_state, run_scope
from harness.existing.pure import RUN_LABEL, run_metadata
from harness.existing.run import CRD_PATH, Run, wanted_crd
from harness.kube import Kube
from harness.lab.namespaces import Namespaces
from harness.paths import REPO_ROOT
from harness.process import process_identity
from harness.tests.signals import as_from_a_terminal

CRD = wanted_crd()["metadata"]["name"]


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Kube]]:
    """(admin kubeconfig, admin client) of a sim control plane started for this module."""
    state_dir = tmp_path_factory.mktemp("existing-sim") / "up"
    assert background.up(state_dir, "sim") == 0
    try:
        state = background.read_state(state_dir)
        assert state is not None
        kubeconfig = Path(str(state["admin_kubeconfig"]))
        admin = Kube(kubeconfig)
        yield kubeconfig, admin
        admin.close()
    finally:
        background.down(state_dir)


def _crd(admin: Kube) -> dict[str, Any] | None:
    try:
        return dict(admin.request("GET", f"{CRD_PATH}/{CRD}"))
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def _labelled(admin: Kube) -> list[dict[str, Any]]:
    return admin.list("namespaces", None, label_selector=RUN_LABEL)


def _wait(what: str, done: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f}s waiting for {what}"
        time.sleep(0.5)


def _harness(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "MODELDOCK_WORKERS": "1"}
    log = open(tmp_path / "harness.log", "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            "conformance",
            "--cluster",
            "existing",
            *args,
            "--reports",
            str(tmp_path / "reports"),
        ],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the signal goes there, as from a tty
        preexec_fn=as_from_a_terminal,  # Ctrl-C reaches it even from a background job
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupted_run_leaves_no_labelled_namespace(
    sim: tuple[Path, Kube], tmp_path: Path, signum: int
) -> None:
    kubeconfig, admin = sim
    crd_before = _crd(admin)
    assert crd_before is not None, "the sim plane comes with the CRD"
    admin.request("DELETE", f"{CRD_PATH}/{CRD}")  # so that this run installs it
    _wait("the CRD to go", lambda: _crd(admin) is None, 60)
    proc = _harness(kubeconfig, tmp_path, "--impl", "go", "--check", "garbage-collected")
    try:
        _wait(
            "a check's namespace of the run",
            lambda: (
                any(
                    "modeldock.io/check" in (ns["metadata"].get("labels") or {})
                    for ns in _labelled(admin)
                )
                or proc.poll() is not None
            ),
            300,
        )
        assert proc.poll() is None, (tmp_path / "harness.log").read_text()[-3000:]
        assert _crd(admin) is not None, "the run installed the CRD"
        os.killpg(proc.pid, signum)
        code = proc.wait(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if _crd(admin) is None:  # leave the plane as the fixture made it
            body = copy.deepcopy(wanted_crd())
            admin.request("POST", CRD_PATH, body)
    log = (tmp_path / "harness.log").read_text()
    # 130 for Ctrl-C, 143 for SIGTERM (harness/exitcodes.py)
    assert code == 128 + signum, log[-3000:]
    assert _labelled(admin) == [], log[-3000:]
    assert "removed" in log and "CRD" in log, log[-3000:]
    # the CRD the run installed went with it (re-created above for the next test)
    assert admin.get("clusterroles", None, "modeldock-operator") is not None, "it was there"


def test_crd_of_another_schema_is_an_error(sim: tuple[Path, Kube], tmp_path: Path) -> None:
    _kubeconfig, admin = sim
    _wait("the CRD", lambda: _crd(admin) is not None, 60)
    original: list[dict[str, Any]] = []

    def change_schema() -> bool:
        """Read, change, write; False on a 409 (a CRD created a moment ago, by the test before
        this one, still gets its status conditions written)."""
        live = _crd(admin)
        assert live is not None
        original[:] = [live]
        changed = copy.deepcopy(live)
        schema = changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        schema["properties"]["spec"]["properties"]["extra"] = {"type": "string"}
        try:
            admin.request("PUT", f"{CRD_PATH}/{CRD}", changed)
        except ApiException as exc:
            if exc.status != 409:
                raise
            return False
        return True

    _wait("the CRD's schema changed", change_schema, 30)
    try:
        proc = _harness(sim[0], tmp_path, "--impl", "go", "--check", "child-conflict")
        code = proc.wait(timeout=300)
    finally:
        now = _crd(admin)
        assert now is not None
        restored = {**copy.deepcopy(original[0]), "metadata": now["metadata"]}
        admin.request("PUT", f"{CRD_PATH}/{CRD}", restored)
    log = (tmp_path / "harness.log").read_text()
    assert code == 2, log[-3000:]
    line = next((ln for ln in log.splitlines() if f"CRD {CRD}" in ln), "")
    assert "schema differs" in line and f"delete crd {CRD}" in line, log[-3000:]
    assert _labelled(admin) == [], "a refused run creates nothing"
    assert "extra" not in str(_crd(admin)), "restored"


def test_operator_identity_is_a_service_account_bound_per_namespace(
    sim: tuple[Path, Kube],
) -> None:
    """The kubeconfig ``kubeconfig_for`` issues authenticates as the ServiceAccount, holds the
    operator role in a namespace ``create_namespace`` made, and nothing in another; the run's
    namespaces are labelled with it and gone afterwards."""
    kubeconfig, admin = sim
    with Run(kubeconfig=str(kubeconfig)) as run:
        cluster = ExistingCluster.attach(run.state_path)
        assert cluster.audit_log is None and cluster.tier == "existing"
        namespaces = Namespaces(scope=run_scope(read_state(run.state_path)))
        ns = namespaces.create(admin, "identity", "modeldock:go")
        other = namespaces.create(admin, "identity-other", "modeldock:python")
        operator = Kube(cluster.kubeconfig_for("modeldock:go", ("modeldock:instance:a",)))
        try:
            review = operator.request(
                "POST",
                "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
            )
            assert review["status"]["userInfo"]["username"] == (
                f"system:serviceaccount:{run.run_namespace}:modeldock-go"
            )
            assert operator.can_i("update", "deployments", ns, "apps")
            assert not operator.can_i("update", "deployments", other, "apps")
        finally:
            operator.close()
            cluster.stop()
        labelled = {n["metadata"]["name"] for n in _labelled(admin)}
        assert {ns, other, run.run_namespace} <= labelled
    assert _labelled(admin) == []


def test_existing_cleanup_removes_a_dead_runs_namespace(sim: tuple[Path, Kube]) -> None:
    """A namespace a SIGKILLed run left, holding a ModelService with the operator's finalizer:
    ``python -m harness existing-cleanup`` removes the finalizer and the namespace; a live
    run's namespace is left alone."""
    kubeconfig, admin = sim
    _wait("the CRD", lambda: _crd(admin) is not None, 60)
    dead = f"md-dead-{os.getpid()}"
    live = f"md-live-{os.getpid()}"
    for name, owner in ((dead, "999999999:1"), (live, process_identity() or "")):
        labels, annotations = run_metadata(f"r-{name}", socket.gethostname(), owner)
        admin.create(
            "namespaces",
            None,
            {"metadata": {"name": name, "labels": labels, "annotations": annotations}},
        )
    ms = {
        "apiVersion": "modeldock.io/v1alpha1",
        "kind": "ModelService",
        "metadata": {"name": "held", "finalizers": ["modeldock.io/cleanup"]},
        "spec": {"model": "m", "image": "srv:1"},
    }
    admin.create("modelservices", dead, ms)
    env = {**os.environ, "KUBECONFIG": str(kubeconfig)}
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "existing-cleanup"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        assert proc.returncode == 0, proc.stderr
        assert dead in proc.stdout and live not in proc.stdout, proc.stdout
        assert admin.get("namespaces", None, dead) is None
        assert admin.get("namespaces", None, live) is not None
    finally:
        admin.delete("namespaces", None, live)
