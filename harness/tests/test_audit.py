"""Audit log reading: events to requests, windows by byte offset, filters and summaries."""

from __future__ import annotations

import json
from pathlib import Path

from harness.audit import AuditLog, Request, select, summarize


def _event(user: str, verb: str, resource: str, code: int, ns: str = "n1", name: str = "web",
           sub: str = "") -> str:
    ref = {"resource": resource, "namespace": ns, "name": name}
    if sub:
        ref["subresource"] = sub
    return json.dumps({"kind": "Event", "auditID": "a", "verb": verb, "user": {"username": user},
                       "objectRef": ref, "responseStatus": {"code": code},
                       "requestReceivedTimestamp": "2026-01-01T00:00:00.000000Z"}) + "\n"


def test_requests_between_offsets(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    log.write_text(_event("modeldock:go", "create", "deployments", 201))
    log_reader = AuditLog(log)
    mark = log_reader.offset()
    with open(log, "a") as f:
        f.write(_event("modeldock:go", "update", "modelservices", 200, sub="status"))
        f.write(_event("admin", "get", "modelservices", 200))
        f.write('{"partial": ')  # a line being written is skipped, not an error
    later = list(log_reader.requests(mark))
    assert [r.describe() for r in later] == ["update modelservices/status web -> 200",
                                              "get modelservices web -> 200"]
    assert len(list(log_reader.requests(0, mark))) == 1


def test_select_writes_of_one_user_in_one_namespace() -> None:
    reqs = [Request.from_event(json.loads(_event(u, v, r, c, ns)))
            for u, v, r, c, ns in [("modeldock:go", "update", "deployments", 409, "n1"),
                                   ("modeldock:go", "update", "deployments", 200, "n1"),
                                   ("modeldock:go", "list", "deployments", 200, "n1"),
                                   ("modeldock:python", "update", "deployments", 200, "n1"),
                                   ("modeldock:go", "delete", "services", 200, "n2")]]
    writes = select(reqs, user="modeldock:go", namespace="n1", writes_only=True)
    assert [r.code for r in writes] == [409, 200]
    assert [r.code for r in select(writes, ok_only=True)] == [200]
    assert summarize(writes) == {"update deployments 200": 1, "update deployments 409": 1}


def test_missing_log_reads_as_empty(tmp_path: Path) -> None:
    reader = AuditLog(tmp_path / "none.log")
    assert reader.offset() == 0
    assert list(reader.requests()) == []
