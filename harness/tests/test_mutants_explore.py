"""The mutants only exploration finds, each shown doing its one wrong thing against a
fake cache and client (``harness/tests/test_mutants.py`` has the fakes): the situation a
write boundary creates, which no check of the suite creates."""

from __future__ import annotations

from datetime import timedelta

import pytest

from harness.tests.test_mutants import (
    T0,
    WEB,
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
    monkeypatch: pytest.MonkeyPatch,
) -> None:
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
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = install(monkeypatch, "remembers-status")
    monkeypatch.setattr(module, "SENT", {})
    ms, dep, svc = crashed_before_status()
    client = FakeClient()
    client.fail["update_status"] = [client_.ApiError(409, "Conflict", "injected")]
    with pytest.raises(client_.ApiError):
        reconcile(cache_of(ms, dep, svc), client)
    reconcile(cache_of(ms, dep, svc), client)  # the requeue: the status is still not stored
    # The requeue a second later: the new conditions' lastTransitionTime differs from the
    # failed attempt's, and the memory still says "written" (it ignores timestamps; compared
    # whole, the mutant's kill would depend on the clock).
    controller.ModelServiceReconciler(
        reader=cache_of(ms, dep, svc),
        writer=client,
        live=cache_of(ms, dep, svc),
        now=lambda: T0 + timedelta(seconds=1),
    ).reconcile(WEB)
    assert client.verbs() == ["update_status ModelService"]  # one attempt, never again


def test_remembers_status_remembers_per_object_not_per_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A successor of the same name (another UID) gets its first status written: the one wrong
    thing is trusting a failed write, not mistaking one object for another (keyed by name, the
    mutant was killed by finalizer-ordered-delete[lagging-cache], a check of the suite)."""
    module = install(monkeypatch, "remembers-status")
    monkeypatch.setattr(module, "SENT", {})
    client = FakeClient()
    client.fail["update_status"] = [client_.ApiError(409, "Conflict", "injected")]
    with pytest.raises(client_.ApiError):
        reconcile(cache_of(*crashed_before_status()), client)
    successor = model_service()
    successor["metadata"]["uid"] = "successor-uid"
    parsed = controller.read_spec(successor)
    dep = controller.desired_deployment(successor, parsed)
    svc = controller.desired_service(successor, parsed)
    client = FakeClient()
    reconcile(cache_of(successor, dep, svc), client)
    assert client.verbs() == ["update_status ModelService"]


def test_step_annotation_skips_the_recorded_step_on_resume(monkeypatch: pytest.MonkeyPatch) -> None:
    module = install(monkeypatch, "step-annotation")
    ms, dep, svc = converged()
    ms["metadata"]["generation"] = 2
    ms["spec"]["replicas"] = 3  # scaled; status still says generation 1
    client = FakeClient()
    reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs() == [
        "update ModelService",
        "update Deployment",
        "update_status ModelService",
    ]
    assert client.calls[0][2]["metadata"]["annotations"] == {module.MARK: "2:deployment"}
    # Killed right after the annotation (scale@write-1): the restarted operator skips the
    # Deployment and reports generation 2 done.
    ms["metadata"]["annotations"] = {module.MARK: "2:deployment"}
    client = FakeClient()
    reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs() == ["update_status ModelService"]
    assert client.calls[0][2]["status"]["observedGeneration"] == 2
    # Drift at an unchanged generation is repaired as usual.
    ms2, dep2, svc2 = converged()
    dep2["spec"]["replicas"] = 5
    client = FakeClient()
    reconcile(cache_of(ms2, dep2, svc2), client)
    assert client.verbs() == ["update Deployment"]


def test_blind_create_creates_each_child_once_per_process_and_swallows_already_exists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A converged world, as a process started after a crash finds it (scale@write-1): the
    real operator writes nothing there (test above); blind-create's first pass POSTs both
    children, takes each 409 as "it is there", and writes nothing else; its next pass reads the
    cache as the real operator does."""
    module = install(monkeypatch, "blind-create")
    monkeypatch.setattr(module, "_SEEN", set())
    exists = client_.ApiError(409, "AlreadyExists", "already exists")
    client = FakeClient()
    client.fail["create"] = [exists, exists]
    reconcile(cache_of(*converged()), client)
    assert client.verbs() == ["create Deployment", "create Service"]
    client = FakeClient()
    reconcile(cache_of(*converged()), client)
    assert client.verbs() == []
