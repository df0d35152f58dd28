"""The mutants of issue 23 §2 (conformance/test_owners.py) differ from the real operator in
the way they declare, shown on plain data with test_mutants' fake cache and client: each
writes nothing where the real operator writes nothing, and breaks its promise only in the
situation its check stages."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.tests.test_mutants import (
    FakeClient,
    cache_of,
    converged,
    install,
    model_service,
    reconcile,
)
from python_operator import controller
from python_operator.runtime import controllerutil

Obj = dict[str, Any]


def with_foreign_fields(dep: Obj, svc: Obj) -> tuple[Obj, Obj]:
    """dep and svc as another writer leaves them: a sidecar, an env var, a restartedAt
    annotation, ClientIP session affinity."""
    dep, svc = copy.deepcopy(dep), copy.deepcopy(svc)
    template = dep["spec"]["template"]
    template["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "t"}
    template["spec"]["containers"][0]["env"] = [{"name": "X", "value": "1"}]
    template["spec"]["containers"].append({"name": "mesh-proxy", "image": "p:1"})
    svc["spec"]["sessionAffinity"] = "ClientIP"
    return dep, svc


def test_the_real_operator_keeps_foreign_fields_without_a_write() -> None:
    ms, dep, svc = converged()
    client = FakeClient()
    reconcile(cache_of(ms, *with_foreign_fields(dep, svc)), client)
    assert client.calls == []


def test_clobbers_foreign_writes_nothing_on_clean_children_and_removes_foreign_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "clobbers-foreign")
    client = FakeClient()
    reconcile(cache_of(*converged()), client)
    assert client.calls == [], "on children only it wrote, the mutant is a no-op"
    ms, dep, svc = converged()
    reconcile(cache_of(ms, *with_foreign_fields(dep, svc)), client)
    assert client.verbs() == ["update Deployment", "update Service"]
    sent_dep, sent_svc = client.calls[0][2], client.calls[1][2]
    assert [c["name"] for c in sent_dep["spec"]["template"]["spec"]["containers"]] == ["server"]
    assert "env" not in sent_dep["spec"]["template"]["spec"]["containers"][0]
    assert "annotations" not in sent_dep["spec"]["template"]["metadata"]
    assert sent_svc["spec"]["sessionAffinity"] == "None"


def test_annotates_owner_labels_the_modelservice_with_its_finalizer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "annotates-owner")
    ms = model_service()
    ms["metadata"]["finalizers"] = []
    assert controllerutil.add_finalizer(ms, controller.FINALIZER_NAME)
    assert ms["metadata"]["finalizers"] == [controller.FINALIZER_NAME]
    assert ms["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "modeldock"}
    assert ms["spec"] == model_service()["spec"], "the spec is left alone: generation stays 1"


def test_status_from_memory_restores_an_overwritten_status_but_misses_a_deployment_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "status-from-memory")
    ms, dep, svc = converged()
    client = FakeClient()
    reconcile(cache_of(ms, dep, svc), client)  # remembers the converged status
    assert client.calls == []
    overwritten = copy.deepcopy(ms)
    overwritten["metadata"]["uid"] = ms["metadata"]["uid"]
    overwritten["status"]["observedGeneration"] = 7
    reconcile(cache_of(overwritten, dep, svc), client)
    assert client.verbs() == ["update_status ModelService"], "an overwritten status is restored"
    assert client.calls[0][2]["status"] == ms["status"]
    rolled = copy.deepcopy(dep)
    rolled["status"] = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1}
    rolled["status"] |= {"readyReplicas": 1, "availableReplicas": 1}
    client = FakeClient()
    reconcile(cache_of(ms, rolled, svc), client)
    assert client.calls == [], "the mutant: a Deployment's status alone changes nothing"
    monkeypatch.undo()
    reconcile(cache_of(ms, rolled, svc), client)
    assert client.verbs() == ["update_status ModelService"], "the real operator follows it"


def test_reconciles_deleting_recreates_a_child_for_a_spec_changed_while_deleting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "reconciles-deleting")
    ms, dep, _svc = converged()
    ms["metadata"]["deletionTimestamp"] = "2026-01-02T03:04:05Z"
    dep["metadata"]["deletionTimestamp"] = "2026-01-02T03:04:05Z"  # held by a finalizer
    client = FakeClient()
    reconcile(cache_of(ms, dep, None), client)
    assert client.verbs() == [], "an unchanged spec: cleanup as usual, the Deployment waited for"
    changed = copy.deepcopy(ms)
    changed["spec"]["replicas"] = 3
    reconcile(cache_of(changed, dep, None), client)
    assert "create Service" in client.verbs(), "the mutant rolls the new spec out first"
