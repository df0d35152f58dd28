"""The reaction bound of child-repaired (conformance/reactions.py) and the backoff bound of
events-recorded (conformance/test_events.py), on plain data: a request log written here, no
API server."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from conformance.reactions import CHILD_REACT_BOUND, Edit, Edits, late
from conformance.test_events import backoff_bound
from harness.faults.apiproxy.records import seconds
from harness.operators import OperatorProcess

T0 = seconds("2026-01-01T10:00:00.000000Z")


def _req(rid: int, at_s: float, verb: str, resource: str, name: str) -> str:
    stamp = f"2026-01-01T10:00:{at_s:09.6f}Z"
    fields: dict[str, Any] = dict(
        t="req", id=rid, start=stamp, at=stamp, verb=verb, group="", resource=resource,
        subresource="", namespace="ns", name=name, code=200, audit_id="a",
    )  # fmt: skip
    return json.dumps(fields) + "\n"


def _op(log: Path) -> OperatorProcess:
    return cast(OperatorProcess, SimpleNamespace(request_log=log, impl=SimpleNamespace(id="go")))


def test_the_first_request_about_the_child_after_the_edit_is_its_reaction(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    log.write_text(
        _req(1, 0.5, "update", "services", "web")  # before the edit: not a reaction
        + _req(2, 1.2, "list", "services", "")  # a collection, not the child
        + _req(3, 1.4, "update", "deployments", "web")  # another child
        + _req(4, 1.6, "create", "services", "web")  # the reaction
        + _req(5, 30.0, "update", "deployments", "web")  # late: a poller's
    )
    edits = Edits()
    edits.edits = [
        Edit("delete Service web", "services", "ns", "web", T0 + 1.0, T0 + 1.1),
        Edit("Deployment replicas", "deployments", "ns", "web", T0 + 15.0, T0 + 15.1),
        Edit("Service port", "services", "ns", "other", T0 + 16.0, T0 + 16.1),
    ]
    got = edits.reactions(_op(log))
    assert [r.request.id if r.request else None for r in got] == [4, 5, None]
    assert got[0].after_s == 0.5
    assert late(got) == [got[1].describe(), got[2].describe()]
    assert got[1].after_s is not None and got[1].after_s > CHILD_REACT_BOUND
    assert got[0].describe()["first_request"] == "create services web -> 200"


def test_a_request_overtaking_the_edits_answer_counts_as_at_once(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    log.write_text(_req(1, 1.05, "update", "deployments", "web"))
    edits = Edits()
    edits.edits = [Edit("replicas", "deployments", "ns", "web", T0 + 1.0, T0 + 1.3)]
    assert [r.after_s for r in edits.reactions(_op(log))] == [0.0]


def test_backoff_bound_grows_with_the_log_of_the_span() -> None:
    assert backoff_bound(0.0) == 5  # the first attempt, the status event's, three spare
    assert backoff_bound(60.0) == 18
    assert backoff_bound(600.0) == 21
    # ten attempts a second for ten seconds is far beyond it
    assert backoff_bound(10.0) == 15  # where a retry every 100 ms makes 100
