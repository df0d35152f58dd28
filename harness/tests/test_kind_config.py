"""The kind tier's generated cluster config (harness.existing.kind.cluster_config): no container engine
is needed to check it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.existing import kind


def test_config_pins_the_image_by_digest_with_workers_and_an_audit_log(tmp_path: Path) -> None:
    config = yaml.safe_load(kind.cluster_config("1.34", tmp_path / "policy", tmp_path / "log"))
    assert (config["kind"], config["apiVersion"]) == ("Cluster", "kind.x-k8s.io/v1alpha4")
    roles = [n["role"] for n in config["nodes"]]
    assert roles == ["control-plane", "worker", "worker"]
    for node in config["nodes"]:
        assert node["image"].startswith("kindest/node:v1.34.")
        assert "@sha256:" in node["image"] and len(node["image"].split("@sha256:")[1]) == 64
    cp = config["nodes"][0]
    mounts = {m["containerPath"]: m["hostPath"] for m in cp["extraMounts"]}
    assert mounts[kind.NODE_AUDIT_LOG_DIR] == str(tmp_path / "log")
    (patch,) = [yaml.safe_load(p) for p in cp["kubeadmConfigPatches"]]
    args = patch["apiServer"]["extraArgs"]
    assert args["audit-policy-file"] == f"{kind.NODE_AUDIT_DIR}/policy.yaml"
    assert args["audit-log-path"] == f"{kind.NODE_AUDIT_LOG_DIR}/audit.log"
    assert yaml.safe_load(kind.AUDIT_POLICY)["rules"] == [{"level": "Metadata"}]


def test_an_unpinned_version_or_no_worker_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no kindest/node image is pinned for Kubernetes 1\.37"):
        kind.cluster_config("1.37", tmp_path, tmp_path)
    with pytest.raises(ValueError, match="workers=0"):
        kind.cluster_config("1.34", tmp_path, tmp_path, workers=0)
