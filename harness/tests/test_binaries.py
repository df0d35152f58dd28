"""Binary lookup order (TEST_ASSET_*, KUBEBUILDER_ASSETS, the cache) and pinned versions."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from harness.envtest import binaries


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_versions_come_from_the_wrapper_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in binaries.VERSION_VARS:
        monkeypatch.delenv(var, raising=False)
    assert binaries.kubernetes_version().startswith("1.34.")
    assert binaries.etcd_version().startswith("v3.6.")


def test_every_minor_has_its_wrapper_modules() -> None:
    assert binaries.supported_minors() == ["1.34", "1.35", "1.36", "1.37"]
    for minor in binaries.supported_minors():
        assert (binaries.module_dir("kube", minor) / "go.mod").is_file()
        assert (binaries.module_dir("etcd", minor) / "go.mod").is_file()


@pytest.mark.parametrize("var", ["K8S_VERSION", "ENVTEST_K8S_VERSION"])
def test_a_variable_chooses_the_minor(monkeypatch: pytest.MonkeyPatch, var: str) -> None:
    for v in binaries.VERSION_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv(var, "1.37")
    assert binaries.kubernetes_version() == "1.37.2"
    assert binaries.etcd_version().startswith("v3.7.")
    assert binaries.store_dir().name.startswith("1.37.2-linux-")
    monkeypatch.setenv(var, "1.37.2")
    assert binaries.selected_minor() == "1.37"


@pytest.mark.parametrize("value", ["1.33", "1.37.9", "latest"])
def test_an_unknown_version_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.delenv("ENVTEST_K8S_VERSION", raising=False)
    monkeypatch.setenv("K8S_VERSION", value)
    with pytest.raises(binaries.BinaryError, match="K8S_VERSION"):
        binaries.selected_minor()


def test_store_is_laid_out_like_setup_envtest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MODELDOCK_CACHE", str(tmp_path))
    store = binaries.store_dir()
    assert store.parent == tmp_path / "envtest" / "k8s"
    assert store.name.startswith(binaries.kubernetes_version() + "-linux-")


def test_lookup_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MODELDOCK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("KUBEBUILDER_ASSETS", raising=False)
    monkeypatch.delenv("TEST_ASSET_ETCD", raising=False)
    assert binaries.find("etcd") is None
    cached = _exe(binaries.store_dir() / "etcd")
    assert binaries.find("etcd") == cached
    assets = _exe(tmp_path / "assets" / "etcd")
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(assets.parent))
    assert binaries.find("etcd") == assets
    explicit = _exe(tmp_path / "explicit" / "my-etcd")
    monkeypatch.setenv("TEST_ASSET_ETCD", str(explicit))
    assert binaries.find("etcd") == explicit


def test_bad_test_asset_names_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEST_ASSET_KUBE_APISERVER", str(tmp_path / "nope"))
    with pytest.raises(binaries.BinaryError, match="TEST_ASSET_KUBE_APISERVER"):
        binaries.find("kube-apiserver")
