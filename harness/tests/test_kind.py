"""The kind tier without a container engine: one clear line and exit code 2, before anything
is built or started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness import suite
from harness.existing import kind
from harness.paths import REPO_ROOT


def _no_engine_path(tmp_path: Path) -> str:
    """A PATH whose docker answers ``info`` with an error, as a client without an engine does."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "docker"
    fake.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    fake.chmod(0o755)
    return f"{bindir}:/usr/bin:/bin"


def test_engine_none_when_docker_cannot_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _no_engine_path(tmp_path))
    assert kind.engine() is None


def test_conformance_kind_without_engine_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", _no_engine_path(tmp_path))
    code = suite.conformance(None, tmp_path / "reports", [], [], suite.Options(cluster="kind"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == kind.NO_ENGINE_EXIT == 2
    assert len(err) == 1 and "container engine" in err[0], err
    assert not (tmp_path / "reports").exists(), "nothing may be written before the engine check"


def test_cli_kind_without_engine(tmp_path: Path) -> None:
    env = {"PATH": _no_engine_path(tmp_path), "HOME": str(tmp_path)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "conformance",
            "--cluster",
            "kind",
            "--reports",
            str(tmp_path / "r"),
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # judges what it says, not how fast a loaded machine starts Python
    )
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("[modeldock] --cluster kind needs a running container engine")


def _fake_kind(tmp_path: Path) -> tuple[str, Path]:
    """A PATH with a docker whose engine answers and a kind CLI that logs its arguments and
    writes a kubeconfig on ``create cluster``; returns (PATH, the log)."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    log = tmp_path / "kind.log"
    (bindir / "docker").write_text("#!/bin/sh\nexit 0\n")
    (bindir / "kind").write_text(
        "#!/bin/sh\n"
        f'echo "$KIND_EXPERIMENTAL_PROVIDER $*" >> {log}\n'
        'if [ "$1" = create ]; then\n'
        '  while [ $# -gt 0 ]; do [ "$1" = --kubeconfig ] && echo "kind: Config" > "$2"; shift; done\n'
        "fi\n"
    )
    for f in bindir.iterdir():
        f.chmod(0o755)
    return f"{bindir}:/usr/bin:/bin", log


@pytest.mark.parametrize("keep", [False, True], ids=["deleted", "kept"])
def test_kind_cluster_created_then_deleted_unless_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: bool
) -> None:
    path, log = _fake_kind(tmp_path)
    monkeypatch.setenv("PATH", path)
    monkeypatch.chdir(tmp_path)
    with kind.cluster(keep=keep) as kubeconfig:
        assert kubeconfig.read_text().strip() == "kind: Config"
    calls = log.read_text().splitlines()
    assert calls[0].startswith("docker create cluster --name modeldock-"), calls
    assert "--wait" in calls[0]
    name = calls[0].split()[4]
    if keep:
        assert len(calls) == 1 and (tmp_path / f"{name}.kubeconfig").exists()
    else:
        assert calls[1] == f"docker delete cluster --name {name}"
    assert not kubeconfig.exists(), "the temp dir is removed"
