"""The Event recorder keeps client-go's tools/record contract (v0.34): the Event it builds,
counting repeats into one Event, aggregating similar ones, the spam filter, and writing in
the background without ever failing or blocking the caller. Time moves only through a
FakeClock (seconds since the epoch); the sink is a dict standing in for the API server."""

from __future__ import annotations

import threading
from typing import Any
from unittest import mock

import pytest

from python_operator.runtime import client as client_
from python_operator.runtime import clock, events

Obj = dict[str, Any]
T0 = 1767322800.25  # 2026-01-02T03:00:00.25Z
COMPONENT = "modelservice-controller"


def model_service(name: str = "web", uid: str = "ms-uid") -> Obj:
    return {
        "apiVersion": "modeldock.io/v1alpha1",
        "kind": "ModelService",
        "metadata": {"name": name, "namespace": "lab", "uid": uid, "resourceVersion": "7"},
        "spec": {"model": "m", "image": "srv:1"},
    }


def new_event(
    message: str = 'Deployment "web" exists and is not controlled by this ModelService',
    *,
    reason: str = "ChildConflict",
    event_type: str = events.WARNING,
    now: float = T0,
    obj: Obj | None = None,
) -> Obj:
    ref = events.object_reference(obj or model_service())
    return events.make_event(ref, event_type, reason, message, COMPONENT, "", now)


class FakeSink:
    """The API server's events store: create refuses a taken name (AlreadyExists), patch a
    missing one (NotFound); every call is recorded, and ``fail`` queues exceptions."""

    def __init__(self) -> None:
        self.stored: dict[str, Obj] = {}
        self.calls: list[tuple[str, str, Obj | None]] = []
        self.fail: list[Exception] = []
        self.rv = 100

    def _next(self) -> None:
        if self.fail:
            raise self.fail.pop(0)

    def create(self, event: Obj) -> Obj:
        name = event["metadata"]["name"]
        self.calls.append(("create", name, None))
        self._next()
        if name in self.stored:
            raise client_.ApiError(409, "AlreadyExists", f'events "{name}" already exists')
        self.rv += 1
        stored = events._copy(event)
        stored["metadata"]["resourceVersion"] = str(self.rv)
        self.stored[name] = stored
        return events._copy(stored)

    def patch(self, event: Obj, patch: Obj) -> Obj:
        name = event["metadata"]["name"]
        self.calls.append(("patch", name, dict(patch)))
        self._next()
        if name not in self.stored:
            raise client_.ApiError(404, "NotFound", f'events "{name}" not found')
        self.rv += 1
        stored = self.stored[name] | patch
        stored["metadata"] = dict(stored["metadata"], resourceVersion=str(self.rv))
        self.stored[name] = stored
        return events._copy(stored)

    def verbs(self) -> list[str]:
        return [verb for verb, _, _ in self.calls]


def broadcaster(sink: FakeSink, fake: clock.FakeClock) -> events.Broadcaster:
    return events.Broadcaster(sink, clock=fake, sleep_duration=0)


# ---------------------------------------------------------------------- the Event
def test_make_event_is_the_event_client_go_builds() -> None:
    event = new_event(
        'Created Deployment "web"', reason="CreatedDeployment", event_type=events.NORMAL
    )
    assert event == {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"web.{int(T0 * 1e9):x}", "namespace": "lab"},
        "involvedObject": {
            "kind": "ModelService",
            "namespace": "lab",
            "name": "web",
            "uid": "ms-uid",
            "apiVersion": "modeldock.io/v1alpha1",
            "resourceVersion": "7",
        },
        "reason": "CreatedDeployment",
        "message": 'Created Deployment "web"',
        "source": {"component": COMPONENT},
        "firstTimestamp": "2026-01-02T03:00:00Z",
        "lastTimestamp": "2026-01-02T03:00:00Z",
        "count": 1,
        "type": "Normal",
        "eventTime": None,
        "reportingComponent": COMPONENT,
        "reportingInstance": "",
    }


def test_event_name_falls_back_to_a_uuid_when_the_name_would_be_invalid() -> None:
    assert events.event_name("web", T0) == f"web.{int(T0 * 1e9):x}"
    long = events.event_name("x" * 250, T0)
    assert len(long) == 36 and long.count("-") == 4


def test_an_object_without_kind_cannot_be_referenced() -> None:
    with pytest.raises(ValueError):
        events.object_reference({"metadata": {"name": "web"}})


# ---------------------------------------------------------------------- correlation
def test_a_repeat_is_a_patch_of_the_first_event_with_count_and_last_timestamp() -> None:
    fake = clock.FakeClock(T0)
    c = events.EventCorrelator(fake)
    first = c.correlate(new_event())
    assert first.patch is None and first.event is not None and first.event["count"] == 1

    fake.step(65)
    second = c.correlate(new_event(now=fake.now()))
    assert second.event is not None
    assert second.event["metadata"]["name"] == first.event["metadata"]["name"]
    assert second.event["count"] == 2
    assert second.event["firstTimestamp"] == "2026-01-02T03:00:00Z"
    assert second.patch == {
        "count": 2,
        "lastTimestamp": "2026-01-02T03:01:05Z",
        "message": 'Deployment "web" exists and is not controlled by this ModelService',
    }


def test_the_stored_name_and_resource_version_are_what_the_next_repeat_patches() -> None:
    c = events.EventCorrelator(clock.FakeClock(T0))
    first = c.correlate(new_event())
    assert first.event is not None
    stored = events._copy(first.event)
    stored["metadata"].update(name="as-stored", resourceVersion="42")
    c.update_state(stored)
    again = c.correlate(new_event())
    assert again.event is not None
    assert (again.event["metadata"]["name"], again.event["metadata"]["resourceVersion"]) == (
        "as-stored",
        "42",
    )


def test_another_message_reason_type_or_object_is_another_event() -> None:
    c = events.EventCorrelator(clock.FakeClock(T0))
    c.correlate(new_event())
    for other in (
        new_event("other message"),
        new_event(reason="FailedCreate"),
        new_event(event_type=events.NORMAL),
        new_event(obj=model_service(uid="another-uid")),
    ):
        result = c.correlate(other)
        assert result.event is not None and result.patch is None and result.event["count"] == 1


def test_ten_messages_of_one_reason_within_ten_minutes_are_combined() -> None:
    fake = clock.FakeClock(T0)
    c = events.EventCorrelator(fake)
    for i in range(9):
        result = c.correlate(new_event(f"attempt {i}", reason="FailedCreate"))
        assert result.event is not None and result.event["message"] == f"attempt {i}"
        fake.step(1)
    combined = c.correlate(new_event("attempt 9", reason="FailedCreate"))
    assert combined.event is not None and combined.patch is None
    assert combined.event["message"] == "(combined from similar events): attempt 9"
    assert combined.event["reason"] == "FailedCreate" and combined.event["count"] == 1
    fake.step(1)
    more = c.correlate(new_event("attempt 10", reason="FailedCreate"))
    assert more.event is not None
    assert more.event["metadata"]["name"] == combined.event["metadata"]["name"]
    assert more.event["count"] == 2
    assert more.patch is not None
    assert more.patch["message"] == "(combined from similar events): attempt 10"


def test_the_aggregation_window_starts_again_after_ten_quiet_minutes() -> None:
    fake = clock.FakeClock(T0)
    c = events.EventCorrelator(fake)
    for i in range(9):
        c.correlate(new_event(f"attempt {i}", reason="FailedCreate"))
    fake.step(601)
    result = c.correlate(new_event("attempt 9", reason="FailedCreate"))
    assert result.event is not None and result.event["message"] == "attempt 9"


def test_spam_filter_allows_a_burst_of_25_per_object_and_type_then_one_per_5_minutes() -> None:
    fake = clock.FakeClock(T0)
    c = events.EventCorrelator(fake)
    accepted = [not c.correlate(new_event(f"m{i}", reason=f"R{i}")).skip for i in range(30)]
    assert accepted == [True] * 25 + [False] * 5
    # Another type of the same object has its own bucket.
    assert not c.correlate(new_event(event_type=events.NORMAL)).skip
    fake.step(299)
    assert c.correlate(new_event("m99", reason="R99")).skip
    fake.step(1)
    assert not c.correlate(new_event("m100", reason="R100")).skip
    assert c.correlate(new_event("m101", reason="R101")).skip


def test_lru_forgets_the_least_recently_used_entry() -> None:
    lru: events.LRU[str, int] = events.LRU(2)
    lru.add("a", 1)
    lru.add("b", 2)
    assert lru.get("a") == 1
    lru.add("c", 3)
    assert (lru.get("a"), lru.get("b"), lru.get("c"), len(lru)) == (1, None, 3, 2)


# ---------------------------------------------------------------------- writing
def test_a_repeated_warning_is_one_event_whose_count_grows() -> None:
    fake = clock.FakeClock(T0)
    sink = FakeSink()
    b = broadcaster(sink, fake)
    for _ in range(5):
        b.record_to_sink(new_event(now=fake.now()))
        fake.step(5)
    assert sink.verbs() == ["create", "patch", "patch", "patch", "patch"]
    assert len(sink.stored) == 1
    (stored,) = sink.stored.values()
    assert stored["count"] == 5
    assert stored["firstTimestamp"] == "2026-01-02T03:00:00Z"
    assert stored["lastTimestamp"] == "2026-01-02T03:00:20Z"


def test_a_repeat_of_an_event_that_is_gone_creates_it_again() -> None:
    fake = clock.FakeClock(T0)
    sink = FakeSink()
    b = broadcaster(sink, fake)
    b.record_to_sink(new_event())
    sink.stored.clear()  # the API server's event TTL expired it
    b.record_to_sink(new_event())
    assert sink.verbs() == ["create", "patch", "create"]
    (stored,) = sink.stored.values()
    assert stored["count"] == 2 and "resourceVersion" in stored["metadata"]


def test_an_event_the_api_server_refuses_is_dropped_not_retried() -> None:
    sink = FakeSink()
    sink.fail = [client_.ApiError(403, "Forbidden", "events is forbidden")]
    broadcaster(sink, clock.FakeClock(T0)).record_to_sink(new_event())
    assert sink.verbs() == ["create"] and sink.stored == {}


def test_an_event_that_did_not_reach_the_api_server_is_retried() -> None:
    sink = FakeSink()
    sink.fail = [ConnectionRefusedError("refused"), TimeoutError("timed out")]
    broadcaster(sink, clock.FakeClock(T0)).record_to_sink(new_event())
    assert sink.verbs() == ["create"] * 3 and len(sink.stored) == 1


def test_retries_stop_after_twelve_tries() -> None:
    sink = FakeSink()
    sink.fail = [ConnectionRefusedError("refused")] * 20
    broadcaster(sink, clock.FakeClock(T0)).record_to_sink(new_event())
    assert sink.verbs() == ["create"] * events.MAX_TRIES_PER_EVENT


def test_spam_beyond_the_burst_is_not_written() -> None:
    sink = FakeSink()
    b = broadcaster(sink, clock.FakeClock(T0))
    for _ in range(40):
        b.record_to_sink(new_event())
    assert len(sink.calls) == events.SPAM_BURST
    (stored,) = sink.stored.values()
    assert stored["count"] == events.SPAM_BURST


class BlockingSink(FakeSink):
    """A sink whose writes wait until ``release`` is set (an API server that hangs)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Event()

    def create(self, event: Obj) -> Obj:
        self.entered.set()
        self.release.wait(10)
        return super().create(event)


def test_the_recorder_never_blocks_and_drops_what_does_not_fit_in_the_queue() -> None:
    sink = BlockingSink()
    fake = clock.FakeClock(T0)
    b = events.Broadcaster(sink, clock=fake, sleep_duration=0, max_queued=2)
    recorder = b.new_recorder(COMPONENT)
    recorder.event(model_service(), events.WARNING, "FailedCreate", "first")
    assert sink.entered.wait(5)  # the writer thread holds the first one, in the sink
    for i in range(10):  # return at once although nothing is being written
        fake.step(0.001)  # a name of its own: <name>.<nanoseconds>
        recorder.event(model_service(), events.WARNING, "FailedCreate", f"queued {i}")
    sink.release.set()
    b.shutdown(timeout=5)
    assert sorted(e["message"] for e in sink.stored.values()) == ["first", "queued 0", "queued 1"]


def test_a_burst_keeps_the_queue_and_drops_the_rest() -> None:
    """A burst of Events about 3000 objects while the API server hangs: the one being written
    and the 1000 behind it are written, the rest dropped (not the spam filter: one Event per
    object; not the correlator: every message differs). The Go twin is
    go_reference/events_burst_unit_test.go, with client-go's recorder: the same 1001."""
    sink = BlockingSink()
    b = events.Broadcaster(sink, clock=clock.FakeClock(T0), sleep_duration=0)
    recorder = b.new_recorder(COMPONENT)

    def about(i: int) -> Obj:
        return model_service(f"p{i:04d}", f"uid-{i}")

    recorder.event(about(0), events.NORMAL, "CreatedService", "Created p0000")
    assert sink.entered.wait(5)  # the writer holds the first one: the queue behind it is empty
    burst = 3 * events.MAX_QUEUED_EVENTS
    for i in range(1, burst):
        recorder.event(about(i), events.NORMAL, "CreatedService", f"Created p{i:04d}")
    sink.release.set()
    b.shutdown(timeout=30)
    assert len(sink.stored) == 1 + events.MAX_QUEUED_EVENTS


def test_the_recorder_never_raises_when_writes_fail() -> None:
    sink = FakeSink()
    # "a": not sent (retried), then refused (dropped); "b" and "c" written.
    sink.fail = [RuntimeError("unexpected"), client_.ApiError(500, "InternalError", "boom")]
    fake = clock.FakeClock(T0)
    b = events.Broadcaster(sink, clock=fake, sleep_duration=0)
    recorder = b.new_recorder(COMPONENT)
    for message in ("a", "b", "c"):
        recorder.event(model_service(), events.WARNING, "FailedCreate", message)
        fake.step(0.001)
    for _ in range(500):
        if len(sink.calls) == 4:
            break
        threading.Event().wait(0.01)
    b.shutdown(timeout=5)
    assert [e["message"] for e in sink.stored.values()] == ["b", "c"]


def test_after_shutdown_events_are_dropped_silently() -> None:
    sink = FakeSink()
    b = broadcaster(sink, clock.FakeClock(T0))
    recorder = b.new_recorder(COMPONENT)
    recorder.event(model_service(), events.NORMAL, "CreatedDeployment", "before")
    b.shutdown(timeout=5)
    recorder.event(model_service(), events.NORMAL, "CreatedService", "after")
    assert [e["message"] for e in sink.stored.values()] == ["before"]


def test_an_unknown_type_or_an_object_without_kind_records_nothing() -> None:
    sink = FakeSink()
    b = broadcaster(sink, clock.FakeClock(T0))
    recorder = b.new_recorder(COMPONENT)
    recorder.event(model_service(), "Info", "Whatever", "not a type")
    recorder.event({"metadata": {"name": "web"}}, events.NORMAL, "Whatever", "no kind")
    b.shutdown(timeout=5)
    assert sink.calls == []


def test_client_sink_creates_and_patches_through_the_client() -> None:
    calls: list[tuple[Any, ...]] = []

    class Client:
        def create(self, resource: client_.Resource, obj: Obj) -> Obj:
            calls.append(("create", resource.plural, obj["metadata"]["name"]))
            return obj

        def patch(
            self,
            resource: client_.Resource,
            namespace: str,
            name: str,
            patch: Obj,
            *,
            content_type: str,
        ) -> Obj:
            calls.append(("patch", resource.plural, namespace, name, patch, content_type))
            return patch

    sink = events.ClientSink(Client())  # type: ignore[arg-type]
    event = new_event()
    sink.create(event)
    sink.patch(event, {"count": 2})
    name = event["metadata"]["name"]
    assert calls == [
        ("create", "events", name),
        ("patch", "events", "lab", name, {"count": 2}, "application/strategic-merge-patch+json"),
    ]


def test_fake_and_null_recorders() -> None:
    fake = events.FakeRecorder()
    fake.event(model_service(), events.NORMAL, "CreatedService", 'Created Service "web"')
    assert fake.events == ['Normal CreatedService Created Service "web"']
    events.NullRecorder().event(model_service(), events.NORMAL, "X", "y")


def test_the_manager_hands_out_recorders_of_one_broadcaster_and_stops_it_last() -> None:
    from python_operator.runtime import manager

    mgr = manager.Manager(
        client=mock.Mock(spec=client_.Client),
        namespace="lab",
        metrics_bind_address="0",
        health_probe_bind_address="0",
    )
    a, b = mgr.get_event_recorder_for(COMPONENT), mgr.get_event_recorder_for("other")
    assert (a.component, b.component) == (COMPONENT, "other")
    assert a._broadcaster is b._broadcaster
    assert mgr._shutdown(elector=None) == 0
    a.event(model_service(), events.NORMAL, "CreatedService", "after stop: dropped")
