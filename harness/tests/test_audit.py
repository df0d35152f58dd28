"""Audit log reading: events to requests, windows by byte offset, filters and summaries."""

from __future__ import annotations

import json
from pathlib import Path

from harness.audit import AuditLog, Request, select, summarize


def _event(
    user: str, verb: str, resource: str, code: int, ns: str = "n1", name: str = "web", sub: str = ""
) -> str:
    ref = {"resource": resource, "namespace": ns, "name": name}
    if sub:
        ref["subresource"] = sub
    return (
        json.dumps(
            {
                "kind": "Event",
                "auditID": "a",
                "verb": verb,
                "user": {"username": user},
                "objectRef": ref,
                "responseStatus": {"code": code},
                "requestReceivedTimestamp": "2026-01-01T00:00:00.000000Z",
            }
        )
        + "\n"
    )


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
    assert [r.describe() for r in later] == [
        "update modelservices/status web -> 200",
        "get modelservices web -> 200",
    ]
    assert len(list(log_reader.requests(0, mark))) == 1


def test_select_writes_of_one_user_in_one_namespace() -> None:
    reqs = [
        Request.from_event(json.loads(_event(u, v, r, c, ns)))
        for u, v, r, c, ns in [
            ("modeldock:go", "update", "deployments", 409, "n1"),
            ("modeldock:go", "update", "deployments", 200, "n1"),
            ("modeldock:go", "list", "deployments", 200, "n1"),
            ("modeldock:python", "update", "deployments", 200, "n1"),
            ("modeldock:go", "delete", "services", 200, "n2"),
        ]
    ]
    writes = select(reqs, user="modeldock:go", namespace="n1", writes_only=True)
    assert [r.code for r in writes] == [409, 200]
    assert [r.code for r in select(writes, ok_only=True)] == [200]
    assert summarize(writes) == {"update deployments 200": 1, "update deployments 409": 1}


def test_missing_log_reads_as_empty(tmp_path: Path) -> None:
    reader = AuditLog(tmp_path / "none.log")
    assert reader.offset() == 0
    assert list(reader.requests()) == []


def test_refusals_say_which_right_was_missing() -> None:
    """A 403 RBAC gave names the request's own right; one admission gave (RBAC allowed it)
    carries admission's reason; the harness's own requests are told apart by User-Agent."""
    line = _real_403(
        "list",
        "secrets",
        "",
        "forbid",
        'secrets is forbidden: User "modeldock:go" cannot list resource "secrets"',
        "modeldock-go/v0.0.0 (linux/amd64) kubernetes/$Format",
    )
    rbac_refused = Request.from_event(json.loads(line))
    assert rbac_refused.right == "core/secrets:list"
    assert rbac_refused.refusal == "core/secrets:list"
    assert not rbac_refused.by_harness
    admission = Request.from_event(
        json.loads(
            _real_403(
                "create",
                "deployments",
                "apps",
                "allow",
                'deployments.apps "web" is forbidden: cannot set blockOwnerDeletion if an ownerReference '
                "refers to a resource you can't set finalizers on: , <nil>",
                "modeldock-harness",
            )
        )
    )
    assert admission.refusal == (
        "apps/deployments:create [admission: cannot set "
        "blockOwnerDeletion if an ownerReference refers to a resource "
        "you can't set finalizers on]"
    )
    assert admission.by_harness
    ok = Request.from_event(json.loads(_event("modeldock:go", "create", "deployments", 201)))
    assert ok.refusal is None
    quota = Request.from_event(
        json.loads(
            _real_403(
                "create",
                "deployments",
                "apps",
                "allow",
                'deployments.apps "web" is forbidden: exceeded quota: no-deployments, requested: '
                "count/deployments.apps=1, used: count/deployments.apps=0, limited: "
                "count/deployments.apps=0",
                "modeldock-go/v0.0.0 (linux/amd64) kubernetes/$Format",
            )
        )
    )
    assert quota.refusal is None, "a ResourceQuota's refusal is a budget, not a missing right"


def _real_403(verb: str, resource: str, group: str, decision: str, message: str, agent: str) -> str:
    """An audit line shaped like kube-apiserver v1.34 writes it for a refused request."""
    return json.dumps(
        {
            "kind": "Event",
            "auditID": "b",
            "verb": verb,
            "userAgent": agent,
            "user": {"username": "modeldock:go", "groups": ["system:authenticated"]},
            "objectRef": {
                "resource": resource,
                "namespace": "n1",
                "name": "web",
                "apiGroup": group,
                "apiVersion": "v1",
            },
            "responseStatus": {
                "metadata": {},
                "status": "Failure",
                "message": message,
                "reason": "Forbidden",
                "code": 403,
            },
            "requestReceivedTimestamp": "2026-01-01T00:00:00.000000Z",
            "annotations": {
                "authorization.k8s.io/decision": decision,
                "authorization.k8s.io/reason": "",
            },
        }
    )
