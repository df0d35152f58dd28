"""The existing tier's pure parts: the CRD comparison, the token kubeconfig, the namespaces' run
labels and which of them a cleanup takes, the RoleBinding subjects, and the plugin's view of
an existing run (its tier and capabilities from the run's state file)."""

from __future__ import annotations

import copy
import datetime
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.envtest.controlplane import state_lost
from harness.existing import pure
from harness.existing.cluster import ClusterError, read_state
from harness.existing.run import wanted_crd
from harness.lab.namespaces import Namespaces


def _served(crd: dict[str, Any]) -> dict[str, Any]:
    """``crd`` as an API server returns it: status, metadata and defaults added."""
    live = copy.deepcopy(crd)
    live["metadata"].update(uid="u-1", resourceVersion="42", generation=1)
    live["spec"]["conversion"] = {"strategy": "None"}
    live["status"] = {"conditions": [{"type": "Established", "status": "True"}]}
    return live


def test_crd_same_as_crds_dir_despite_server_fields() -> None:
    wanted = wanted_crd()
    assert pure.crd_difference(_served(wanted), wanted) is None


def test_crd_of_another_version_is_named() -> None:
    wanted = wanted_crd()
    other = _served(wanted)
    other["spec"]["versions"][0]["name"] = "v1beta1"
    diff = pure.crd_difference(other, wanted)
    assert diff and "v1beta1" in diff and "v1alpha1" in diff


def test_crd_with_another_schema_is_named() -> None:
    wanted = wanted_crd()
    other = _served(wanted)
    props = other["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
    props["spec"]["properties"]["extra"] = {"type": "string"}
    diff = pure.crd_difference(other, wanted)
    assert diff == "version v1alpha1: its schema differs from crds/"
    message = pure.crd_mismatch_message("modelservices.modeldock.io", diff, "prod")
    assert "modelservices.modeldock.io" in message and "--context prod" in message
    assert "kubectl --context prod delete crd modelservices.modeldock.io" in message


def test_token_kubeconfig_keeps_cluster_replaces_user() -> None:
    admin = {
        "apiVersion": "v1",
        "clusters": [
            {
                "name": "c",
                "cluster": {"server": "https://x:6443", "certificate-authority-data": "Q0E="},
            }
        ],
        "users": [{"name": "admin", "user": {"client-key-data": "secret"}}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "admin"}}],
        "current-context": "ctx",
    }
    config = pure.token_kubeconfig(admin, "tok", "modeldock-go")
    assert config["clusters"] == admin["clusters"]
    assert config["users"] == [{"name": "modeldock-go", "user": {"token": "tok"}}]
    assert "secret" not in yaml.safe_dump(config), "the admin's credentials must not be copied"
    ctx = config["contexts"][0]
    assert config["current-context"] == ctx["name"]
    assert ctx["context"] == {"cluster": "c", "user": "modeldock-go"}
    with pytest.raises(ValueError):
        pure.token_kubeconfig({**admin, "current-context": "nope"}, "tok", "u")


def test_service_account_names() -> None:
    assert pure.service_account_name("modeldock:go") == "modeldock-go"
    assert pure.service_account_name("modeldock:My_Impl") == "modeldock-my-impl"
    assert len(pure.service_account_name("modeldock:" + "x" * 100)) == 63
    assert pure.service_account_username("md-run-1", "modeldock:go") == (
        "system:serviceaccount:md-run-1:modeldock-go"
    )
    with pytest.raises(ValueError):
        pure.service_account_name("::")


def test_run_id_is_a_label_value() -> None:
    run_id = pure.new_run_id(datetime.datetime(2026, 12, 1, 10, 5, 0, tzinfo=datetime.UTC))
    assert run_id.startswith("20261201-100500-") and len(run_id) <= 63
    labels, annotations = pure.run_metadata(run_id, "host-a", "123:456")
    assert labels == {pure.RUN_LABEL: run_id}
    assert annotations == {pure.OWNER_ANNOTATION: "host-a/123:456"}


def _ns(name: str, run: str | None, owner: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {"other": "x"}}
    if run:
        meta["labels"][pure.RUN_LABEL] = run
    if owner:
        meta["annotations"] = {pure.OWNER_ANNOTATION: owner}
    return {"metadata": meta}


def test_cleanup_selection() -> None:
    namespaces = [
        _ns("dead-here", "r1", "host-a/1:1"),
        _ns("live-here", "r2", "host-a/2:2"),
        _ns("dead-elsewhere", "r3", "host-b/1:1"),
        _ns("no-owner", "r4", None),
        _ns("not-ours", None, "host-a/1:1"),
    ]

    def alive(identity: str) -> bool:
        return identity == "2:2"

    def pick(**kw: Any) -> list[str]:
        return pure.leftovers(namespaces, host="host-a", alive=alive, **kw)

    assert pick() == ["dead-here"]
    assert pick(run_id="r2") == ["live-here"]
    assert pick(all_runs=True) == ["dead-elsewhere", "dead-here", "live-here", "no-owner"]
    assert pick(run_id="nope") == []


def test_run_scope_labels_and_subjects() -> None:
    assert Namespaces().subject_for("modeldock:go")["kind"] == "User"
    scope = pure.RunScope("md-run-1", {pure.RUN_LABEL: "1"}, {pure.OWNER_ANNOTATION: "h/1:1"})
    assert Namespaces(scope=scope).subject_for("modeldock:go") == {
        "kind": "ServiceAccount",
        "name": "modeldock-go",
        "namespace": "md-run-1",
    }


def test_existing_state_read_and_watched_by_owner(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    data = {"tier": "existing", "processes": {"owner": "999999999:1"}}
    state.write_text(json.dumps(data))
    assert read_state(state)["tier"] == "existing"
    lost = state_lost(state)
    assert lost and "owner" in lost, "a dead owner means the run is gone"
    state.write_text(json.dumps({**data, "processes": {}}))
    assert state_lost(state) is None
    state.write_text(json.dumps({"tier": "sim"}))
    with pytest.raises(ClusterError):
        read_state(state)
