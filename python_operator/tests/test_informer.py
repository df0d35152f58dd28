"""The informer lists, watches, relists on 410 and repairs what it missed, on plain data from a
scripted ListerWatcher. The informer's loop runs in the test's thread: the script sets the
stop event when it has nothing more to say, so no test waits on a clock."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from python_operator.runtime import client as client_
from python_operator.runtime import informer

Obj = dict[str, Any]


def obj(name: str, rv: str, **extra: Any) -> Obj:
    return {
        "kind": "Deployment",
        "metadata": {"namespace": "lab", "name": name, "resourceVersion": rv},
        **extra,
    }


def event(kind: str, o: Obj) -> Obj:
    return {"type": kind, "object": o}


class Stream:
    def __init__(self, events: list[Obj | Exception]) -> None:
        self._events = events
        self.closed = False

    def __iter__(self) -> Iterator[Obj]:
        for e in self._events:
            if isinstance(e, Exception):
                raise e
            yield e

    def close(self) -> None:
        self.closed = True


class Script:
    """A ListerWatcher that answers from lists of responses and records the calls."""

    def __init__(
        self,
        lists: list[tuple[list[Obj], str] | Exception],
        watches: list[list[Obj | Exception] | Exception],
    ) -> None:
        self.stop: Callable[[], None] = lambda: None
        self.lists = lists
        self.watches = watches
        self.calls: list[tuple[str, str]] = []

    def list(self) -> tuple[list[Obj], str]:
        self.calls.append(("list", ""))
        answer = self.lists.pop(0)
        if isinstance(answer, Exception):
            self._maybe_stop()
            raise answer
        return answer

    def watch(self, resource_version: str, timeout_seconds: int, read_timeout: float) -> Stream:
        assert 30 <= timeout_seconds <= 60 and read_timeout > timeout_seconds
        self.calls.append(("watch", resource_version))
        if not self.watches:
            self.stop()
            return Stream([])
        answer = self.watches.pop(0)
        if isinstance(answer, Exception):
            self._maybe_stop()
            raise answer
        return Stream(answer)

    def _maybe_stop(self) -> None:
        if not self.lists and not self.watches:
            self.stop()


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def on_add(self, o: Obj) -> None:
        self.events.append(("add", o["metadata"]["name"]))

    def on_update(self, old: Obj, new: Obj) -> None:
        self.events.append(
            (
                "update",
                f"{old['metadata']['resourceVersion']}->{new['metadata']['resourceVersion']}",
            )
        )

    def on_delete(self, o: Obj) -> None:
        self.events.append(("delete", o["metadata"]["name"]))


def run(lists: list[Any], watches: list[Any]) -> tuple[informer.Informer, Script, Recorder]:
    script = Script(lists, watches)
    inf = informer.Informer(script, name="deployments.apps", backoff=(0.0, 0.0))
    script.stop = inf.stop  # the script ends the loop when it has said everything
    recorder = Recorder()
    inf.add_event_handler(recorder)
    inf.run()
    return inf, script, recorder


def test_list_then_watch_keeps_store_and_fires_handlers() -> None:
    inf, script, rec = run(
        lists=[([obj("a", "1"), obj("b", "2")], "10")],
        watches=[
            [
                event("MODIFIED", obj("a", "11")),
                event("ADDED", obj("c", "12")),
                event("DELETED", obj("b", "13")),
            ]
        ],
    )
    assert inf.has_synced()
    assert rec.events == [
        ("add", "a"),
        ("add", "b"),
        ("update", "1->11"),
        ("add", "c"),
        ("delete", "b"),
    ]
    assert sorted(o["metadata"]["name"] for o in inf.list()) == ["a", "c"]
    # The second watch resumes from the last resourceVersion seen.
    assert script.calls == [("list", ""), ("watch", "10"), ("watch", "13")]


def test_bookmark_moves_resource_version_only() -> None:
    bookmark = {
        "type": "BOOKMARK",
        "object": {"kind": "Deployment", "metadata": {"resourceVersion": "50"}},
    }
    _inf, script, rec = run(lists=[([], "10")], watches=[[bookmark]])
    assert rec.events == []
    assert script.calls[-1] == ("watch", "50")


def test_gone_error_event_relists_and_repairs_missed_changes() -> None:
    gone = {
        "type": "ERROR",
        "object": {
            "kind": "Status",
            "code": 410,
            "reason": "Expired",
            "message": "too old resource version",
        },
    }
    _inf, script, rec = run(
        lists=[
            ([obj("a", "1"), obj("b", "2")], "10"),
            # Meanwhile: b was deleted, a changed, c created.
            ([obj("a", "20"), obj("c", "21")], "22"),
        ],
        watches=[[gone], []],
    )
    assert script.calls[:4] == [("list", ""), ("watch", "10"), ("list", ""), ("watch", "22")]
    assert rec.events[2:] == [("delete", "b"), ("update", "1->20"), ("add", "c")]


def test_gone_http_status_relists() -> None:
    _inf, script, _rec = run(
        lists=[([obj("a", "1")], "10"), ([obj("a", "1")], "30")],
        watches=[client_.ApiError(410, "Gone", "too old"), []],
    )
    assert script.calls[:4] == [("list", ""), ("watch", "10"), ("list", ""), ("watch", "30")]


def test_broken_watch_resumes_from_last_resource_version_without_relist() -> None:
    _inf, script, rec = run(
        lists=[([obj("a", "1")], "10")],
        watches=[
            [event("MODIFIED", obj("a", "11")), TimeoutError("read timed out")],
            ConnectionRefusedError("API server down"),
            [event("MODIFIED", obj("a", "12"))],
        ],
    )
    assert script.calls == [
        ("list", ""),
        ("watch", "10"),
        ("watch", "11"),
        ("watch", "11"),
        ("watch", "12"),
    ]
    assert rec.events == [("add", "a"), ("update", "1->11"), ("update", "11->12")]


def test_failed_list_is_retried() -> None:
    inf, script, _rec = run(
        lists=[ConnectionRefusedError("down"), ([obj("a", "1")], "5")], watches=[]
    )
    assert script.calls == [("list", ""), ("list", ""), ("watch", "5")]
    assert inf.has_synced()


def test_other_error_event_rewatches_from_same_version() -> None:
    error = {"type": "ERROR", "object": {"kind": "Status", "code": 500, "message": "boom"}}
    _inf, script, _rec = run(lists=[([], "10")], watches=[[error]])
    assert script.calls == [("list", ""), ("watch", "10"), ("watch", "10")]


def test_handler_failure_does_not_stop_the_informer() -> None:
    class Broken:
        def on_add(self, o: Obj) -> None:
            raise RuntimeError("bug")

        def on_update(self, old: Obj, new: Obj) -> None:
            raise RuntimeError("bug")

        def on_delete(self, o: Obj) -> None:
            raise RuntimeError("bug")

    script = Script([([obj("a", "1")], "10")], [[event("ADDED", obj("b", "11"))]])
    inf = informer.Informer(script, name="x", backoff=(0.0, 0.0))
    script.stop = inf.stop
    inf.add_event_handler(Broken())
    inf.run()
    assert sorted(o["metadata"]["name"] for o in inf.list()) == ["a", "b"]


def test_cache_hands_out_deep_copies() -> None:
    inf, _, _ = run(
        lists=[([obj("a", "1", spec={"replicas": 1, "labels": ["x"]})], "10")], watches=[]
    )
    got = inf.get("lab", "a")
    assert got is not None
    got["spec"]["replicas"] = 99
    got["spec"]["labels"].append("y")
    again = inf.get("lab", "a")
    assert again is not None and again["spec"] == {"replicas": 1, "labels": ["x"]}
    assert inf.get("lab", "missing") is None


def test_store_replace_reports_difference() -> None:
    store = informer.Store()
    store.put(obj("a", "1"))
    store.put(obj("b", "1"))
    added, updated, deleted = store.replace([obj("b", "2"), obj("c", "1")])
    assert [o["metadata"]["name"] for o in added] == ["c"]
    assert [
        (o["metadata"]["resourceVersion"], n["metadata"]["resourceVersion"]) for o, n in updated
    ] == [("1", "2")]
    assert [o["metadata"]["name"] for o in deleted] == ["a"]


def test_handler_added_late_is_replayed_the_store() -> None:
    inf, _, _ = run(lists=[([obj("a", "1"), obj("b", "2")], "10")], watches=[])
    late = Recorder()
    inf.add_event_handler(late)
    assert late.events == [("add", "a"), ("add", "b")]


def test_backoff_doubles_from_0_8_s_to_30_s_times_a_factor_below_1_2() -> None:
    """The numbers the module docstring gives: 0.8 s doubling per failure, capped at 30 s,
    times a random factor in [1, 1.2) (client-go's reflector: the same 0.8 s, 2 and 30 s, but a
    factor in [1, 2))."""

    class Fixed(random.Random):
        def __init__(self, value: float) -> None:
            super().__init__()
            self.value = value

        def random(self) -> float:
            return self.value

    low = informer.Informer(Script([], []), name="x", rng=Fixed(0.0))
    assert [round(low._delay(n), 3) for n in range(8)] == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30]
    high = informer.Informer(Script([], []), name="x", rng=Fixed(0.999999))
    assert 35.99 < high._delay(40) < 36.0


def test_deep_copy_is_equal_independent_and_keeps_key_order() -> None:
    obj: dict[str, Any] = {
        "metadata": {"name": "a", "labels": {"z": "1", "a": "2"}, "generation": 3},
        "spec": {"replicas": 2, "ratio": 0.5, "on": True, "none": None, "args": ["x", {"k": []}]},
    }
    copied = informer.copy_obj(obj)
    assert copied == obj and copied is not obj
    assert informer.deep_copy(obj) == obj
    assert list(copied["metadata"]["labels"]) == ["z", "a"]
    copied["spec"]["args"][1]["k"].append(1)
    copied["metadata"]["labels"]["b"] = "3"
    assert obj["spec"]["args"][1]["k"] == [] and "b" not in obj["metadata"]["labels"]
    assert [type(v) for v in copied["spec"].values()] == [int, float, bool, type(None), list]


def test_deep_copy_shares_nothing_even_where_the_original_did() -> None:
    """An object the operator built itself may hold one dict in two places; the copy must not
    (a pickle round trip would, and an edit of one place then shows in the other)."""
    shared: dict[str, Any] = {"type": "Ready", "status": "True"}
    obj: dict[str, Any] = {"status": {"conditions": [shared, shared]}}
    copied = informer.deep_copy(obj)
    assert isinstance(copied, dict)
    first, second = copied["status"]["conditions"]
    first["status"] = "False"
    assert second["status"] == "True" and shared["status"] == "True"
