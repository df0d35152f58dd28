"""The three mutants only exploration finds, each shown doing its one wrong thing against a
fake cache and client (``harness/tests/test_mutants.py`` has the fakes): the situation a
write boundary creates, which no check of the suite creates."""

from __future__ import annotations

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
from python_operator.runtime import client as client_


def crashed_before_status() -> tuple[controller.Obj, controller.Obj, controller.Obj]:
    """Children as the spec wants them, the status not written yet: a crash right after the
    Service's create (create@write-3)."""
    ms, dep, svc = converged()
    del ms["status"]
    return ms, dep, svc


def test_the_real_operator_writes_the_status_after_a_crash_before_it() -> None:
    client = FakeClient()
    reconcile(cache_of(*crashed_before_status()), client)
    assert client.verbs() == ["update_status ModelService"]


def test_status_after_writes_never_writes_the_status_when_nothing_else_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, "status-after-writes")
    client = FakeClient()
    reconcile(cache_of(*crashed_before_status()), client)
    assert client.verbs() == []
    # With a child to write, the status goes with it: what an uninterrupted run shows.
    ms, dep, _ = crashed_before_status()
    client = FakeClient()
    reconcile(cache_of(ms, dep, None), client)
    assert client.verbs() == ["create Service", "update_status ModelService"]


def test_remembers_status_skips_the_write_its_failed_attempt_remembers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = install(monkeypatch, "remembers-status")
    monkeypatch.setattr(module, "SENT", {})
    ms, dep, svc = crashed_before_status()
    client = FakeClient()
    client.fail["update_status"] = [client_.ApiError(409, "Conflict", "injected")]
    with pytest.raises(client_.ApiError):
        reconcile(cache_of(ms, dep, svc), client)
    reconcile(cache_of(ms, dep, svc), client)  # the requeue: the status is still not stored
    assert client.verbs() == ["update_status ModelService"]  # one attempt, never again


def test_created_annotation_marks_before_creating_and_then_skips_a_marked_child(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = install(monkeypatch, "created-annotation")
    monkeypatch.setattr(module, "DELETED", set())
    ms = model_service()
    client = FakeClient()
    reconcile(cache_of(ms, None, None), client)
    assert client.verbs() == ["update ModelService", "create Deployment", "update ModelService",
                              "create Service", "update_status ModelService"]
    # Killed after the first mark (create@write-2): the Deployment was never created, and the
    # restarted operator will not create it.
    marked = model_service()
    marked["metadata"]["annotations"] = {module.MARK: "Deployment"}
    client = FakeClient()
    reconcile(cache_of(marked, None, None), client)
    assert "create Deployment" not in client.verbs()
    # A DELETED event of the child seen by this process lets it be created again.
    module.DELETED.add(("lab/web", "Deployment"))
    client = FakeClient()
    reconcile(cache_of(marked, None, None), client)
    assert "create Deployment" in client.verbs()
