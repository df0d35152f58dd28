"""The controller's event routing (For / Owns by controller ownerReference) and what a worker
does with each reconcile outcome, on a queue driven by a FakeClock."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest

from python_operator.runtime import client as client_
from python_operator.runtime import clock, controller, informer, metrics, workqueue
from python_operator.runtime.reconcile import Request, Result

Obj = dict[str, Any]
OPT = Request(namespace="lab", name="opt")


def child(*refs: Obj) -> Obj:
    return {"metadata": {"namespace": "lab", "name": "opt", "ownerReferences": list(refs)}}


def ref(
    name: str,
    *,
    controller_: bool = True,
    api_version: str = "modeldock.io/v1alpha1",
    kind: str = "ModelService",
) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": f"{name}-uid",
        "controller": controller_,
    }


def drain(q: workqueue.Queue[Request]) -> list[str]:
    """The requests queued now, in order, as ``namespace/name``."""
    items = []
    while q.len():
        item, _ = q.get()
        assert item is not None
        items.append(str(item))
        q.done(item)
    return items


def new_queue(fake: clock.FakeClock | None = None) -> workqueue.RateLimitingQueue[Request]:
    return workqueue.RateLimitingQueue(clock=fake or clock.FakeClock())


def test_for_enqueues_a_request_for_the_object() -> None:
    q = new_queue()
    handler = controller.EnqueueRequestForObject(q)
    ms = {"metadata": {"namespace": "lab", "name": "opt"}}
    handler.on_add(ms)
    handler.on_update(ms, ms)
    handler.on_delete(ms)
    assert drain(q) == ["lab/opt"]


def test_owns_enqueues_the_controller_owner_only() -> None:
    q = new_queue()
    handler = controller.EnqueueRequestForOwner(q, group="modeldock.io", kind="ModelService")
    handler.on_add(child(ref("not-controller", controller_=False), ref("parent")))
    handler.on_add(child(ref("other-kind", kind="Other")))
    handler.on_add(child(ref("other-group", api_version="example.com/v1")))
    handler.on_add(child(ref("other-version", api_version="modeldock.io/v2")))
    handler.on_add(child())
    assert drain(q) == ["lab/parent", "lab/other-version"]


def test_owns_update_enqueues_old_and_new_owner() -> None:
    q = new_queue()
    handler = controller.EnqueueRequestForOwner(q, group="modeldock.io", kind="ModelService")
    handler.on_update(child(ref("before")), child(ref("after")))
    handler.on_delete(child(ref("gone")))
    assert drain(q) == ["lab/before", "lab/after", "lab/gone"]


class Scripted:
    def __init__(self, *outcomes: Result | Exception) -> None:
        self.outcomes = list(outcomes)
        self.keys: list[str] = []

    def reconcile(self, req: Request) -> Result:
        self.keys.append(str(req))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def counts(name: str) -> dict[str, float]:
    return {
        r: metrics.RECONCILE_TOTAL.labels(controller=name, result=r)._value.get()
        for r in metrics.RESULTS
    }


def test_error_is_requeued_with_backoff_then_forgotten_on_success() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    reconciler = Scripted(KeyError("unexpected object"), RuntimeError("again"), Result())
    ctrl = controller.Controller(name="t-error", reconciler=reconciler, queue=q)
    q.add(OPT)
    assert ctrl.process_next_work_item()
    assert q.len() == 0 and q.num_requeues(OPT) == 1
    fake.step(0.005)
    assert ctrl.process_next_work_item()
    assert q.len() == 0
    fake.step(0.009)
    assert q.len() == 0  # second failure waits 10 ms
    fake.step(0.001)
    assert ctrl.process_next_work_item()
    assert q.num_requeues(OPT) == 0
    assert counts("t-error") == {"success": 1, "error": 2, "requeue": 0, "requeue_after": 0}
    assert metrics.RECONCILE_ERRORS.labels(controller="t-error")._value.get() == 2


def test_requeue_after_waits_exactly_without_backoff() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    reconciler = Scripted(Result(requeue_after=timedelta(seconds=1)), Result())
    ctrl = controller.Controller(name="t-after", reconciler=reconciler, queue=q)
    q.add(OPT)
    ctrl.process_next_work_item()
    fake.step(0.999)
    assert q.len() == 0
    fake.step(0.001)
    assert q.len() == 1
    ctrl.process_next_work_item()
    assert counts("t-after")["requeue_after"] == 1
    assert reconciler.keys == ["lab/opt", "lab/opt"]


def test_requeue_uses_rate_limited_backoff() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    ctrl = controller.Controller(
        name="t-requeue", reconciler=Scripted(Result(requeue=True)), queue=q
    )
    q.add(OPT)
    ctrl.process_next_work_item()
    assert q.num_requeues(OPT) == 1
    assert counts("t-requeue")["requeue"] == 1


def test_stop_ends_workers_without_draining_the_queue() -> None:
    q = new_queue()
    reconciler = Scripted()
    ctrl = controller.Controller(
        name="t-stop", reconciler=reconciler, queue=q, max_concurrent_reconciles=2
    )
    ctrl.start()
    assert ctrl.stop(timeout=10)  # idle workers end at once
    q2 = new_queue()
    ctrl2 = controller.Controller(name="t-stop2", reconciler=reconciler, queue=q2)
    q2.add(Request(namespace="lab", name="a"))
    ctrl2.stop(timeout=0)
    # A request still queued is handed out after shutdown, but a stopping worker does not
    # reconcile it: whoever runs next recomputes it from the cache.
    assert not ctrl2.process_next_work_item()
    assert reconciler.keys == []


def test_standby_queue_stays_empty_until_start() -> None:
    """A controller hears of events only once started (on the leader); then it replays the
    cache, so nothing that happened before is lost."""

    class OneObject:
        def list(self) -> tuple[list[Obj], str]:
            return [{"metadata": {"namespace": "lab", "name": "opt"}}], "1"

        def watch(self, resource_version: str, timeout_seconds: int, read_timeout: float) -> Any:
            raise AssertionError("not watched in this test")

    inf = informer.Informer(OneObject(), name="modelservices")
    inf._list()
    q = new_queue()
    # No workers, so that the test can look at the queue after start().
    ctrl = controller.Controller(
        name="t-standby", reconciler=Scripted(), queue=q, max_concurrent_reconciles=0
    )
    ctrl.watch(inf, ctrl.for_handler())
    assert q.len() == 0
    ctrl.start()
    assert drain(q) == ["lab/opt"]


def test_request_is_hashable_and_prints_as_namespaced_name() -> None:
    """reconcile.Request as Go's: equal requests are one queue item, and str() is
    types.NamespacedName.String(), separator included even without a namespace."""
    assert Request("lab", "opt") == OPT and hash(Request("lab", "opt")) == hash(OPT)
    assert len({OPT, Request("lab", "opt"), Request("lab", "other")}) == 2
    assert str(OPT) == "lab/opt"
    assert str(Request(namespace="", name="cluster-scoped")) == "/cluster-scoped"
    q = new_queue()
    controller.EnqueueRequestForObject(q).on_add({"metadata": {"name": "no-namespace"}})
    assert drain(q) == ["/no-namespace"]


def test_unexpected_exception_is_a_recovered_panic(caplog: pytest.LogCaptureFixture) -> None:
    """An exception that is neither an API request's error nor one the reconciler declares is
    a panic: counted, logged as ``Observed a panic`` with the request's namespace and name,
    then requeued as an error whose text says ``panic: ... [recovered]`` (controller-runtime
    v0.22's Controller.Reconcile). An API error or a declared one is a plain error."""

    class Declared(Exception):
        pass

    q = new_queue()
    reconciler = Scripted(
        AttributeError("'NoneType' object has no attribute 'causes'"),
        client_.ApiError(500, "InternalError", "boom"),
        Declared("spec unreadable"),
        OSError("connection reset"),
    )
    ctrl = controller.Controller(name="t-panic", reconciler=reconciler, queue=q, errors=(Declared,))
    caplog.set_level(logging.INFO)
    for _ in range(4):
        q.add(OPT)
        assert ctrl.process_next_work_item()
        q.forget(OPT)
    panics = [r for r in caplog.records if r.getMessage() == "Observed a panic"]
    assert len(panics) == 1
    fields = panics[0].__dict__["fields"]
    assert fields["controller"] == "t-panic"
    assert (fields["namespace"], fields["name"], fields["modelservice"]) == (
        "lab",
        "opt",
        "lab/opt",
    )
    assert fields["panic"] == "AttributeError: 'NoneType' object has no attribute 'causes'"
    assert "AttributeError" in fields["stacktrace"]
    errors = [
        r.__dict__["fields"]["error"]
        for r in caplog.records
        if r.getMessage() == "Reconciler error"
    ]
    assert errors == [
        "panic: AttributeError: 'NoneType' object has no attribute 'causes' [recovered]",
        "boom",
        "Declared: spec unreadable",
        "OSError: connection reset",
    ]
    assert metrics.RECONCILE_PANICS.labels(controller="t-panic")._value.get() == 1
    assert metrics.RECONCILE_ERRORS.labels(controller="t-panic")._value.get() == 4
