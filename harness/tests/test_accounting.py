"""Request accounting from the API proxies (``harness.accounting``): windows by marker on a
written log, and a ServiceAccount token forwarded through the proxy to a real API server,
the credential an ``existing`` cluster gives its operators (no client certificate anywhere).
The second test needs the Kubernetes binaries and Go.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from kubernetes.client.exceptions import ApiException

from harness.accounting import ProxyAccounting
from harness.audit import AuditLog, instance_group, select
from harness.envtest.controlplane import ControlPlane
from harness.envtest.kubeconfig import write_kubeconfig
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, compare
from harness.kube import Kube
from harness.lab.namespaces import bind_operator_role


def _line(**fields: Any) -> str:
    return json.dumps(fields) + "\n"


def _record(**fields: Any) -> ProxyRequest:
    """A proxy's record of a request in namespace ns, ``fields`` over empty defaults."""
    base: dict[str, Any] = dict(
        id=1,
        start="",
        time="",
        verb="get",
        group="",
        resource="services",
        subresource="",
        namespace="ns",
        name="",
        code=200,
        audit_id="",
    )
    return ProxyRequest(**{**base, **fields})


def test_windows_follow_completion(tmp_path: Path) -> None:
    """A request counts when its answer was known, a watch when it ended; injected answers
    never count; each request carries the source's user and instance group."""
    log = tmp_path / "requests.jsonl"
    base = {"group": "", "subresource": "", "namespace": "ns", "audit_id": "a", "code": 200}
    log.write_text(
        _line(t="req", id=1, verb="watch", resource="services", name="", at="2026-01-01T10:00:01Z", **base)
        + _line(t="req", id=2, verb="update", resource="services", name="web", at="2026-01-01T10:00:02.5Z", **base)
        + _line(t="req", id=3, verb="update", resource="services", name="web", injected=True, at="2026-01-01T10:00:03Z", **{**base, "code": 409})
        + _line(t="done", id=2, at="2026-01-01T10:00:02.6Z")
        + _line(t="done", id=1, at="2026-01-01T10:00:09Z")
        + _line(t="req", id=4, verb="watch", resource="deployments", name="", at="2026-01-01T10:00:04Z", **base)
    )  # fmt: skip
    acc = ProxyAccounting()
    acc.add(cast(ApiProxy, SimpleNamespace(request_log=log)), "modeldock:go", "leader")
    t = [1767261600_000000 + s * 1_000_000 for s in range(11)]  # 10:00:00 .. 10:00:10
    assert [r.describe() for r in acc.requests(t[2], t[3])] == ["update services web -> 200"]
    assert [r.describe() for r in acc.requests(t[3], t[10])] == ["watch services -> 200"]
    every = acc.requests()
    assert len(every) == 2  # the open watch of deployments is not complete, id 3 was injected
    assert {r.user for r in every} == {"modeldock:go"}
    assert {r.instance for r in every} == {"leader"}
    assert select(every, instance="leader", user="modeldock:go") == every
    assert [r.code for r in acc.unreached(["ns"])] == [409]
    assert instance_group("leader") in every[0].groups


def test_token_forwarded_through_proxy(cp: ControlPlane, tmp_path: Path) -> None:
    """A ServiceAccount's TokenRequest token in the client's kubeconfig: the proxy (started
    without a client certificate, with a serving CA of its own, as on a cluster the harness
    does not own) passes the Authorization header on; the API server sees the ServiceAccount,
    whose RoleBinding allows one list and refuses another; both accountings agree."""
    admin = Kube(cp.admin_kubeconfig)
    try:
        ns = f"md-token-{tmp_path.name[-6:].lower().replace('_', '-')}"
        admin.create("namespaces", None, {"metadata": {"name": ns}})
        admin.request(
            "POST", f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "op"}}
        )
        user = f"system:serviceaccount:{ns}:op"
        bind_operator_role(admin, ns, user)
        token = admin.request(
            "POST",
            f"/api/v1/namespaces/{ns}/serviceaccounts/op/token",
            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
        )["status"]["token"]
    finally:
        admin.close()
    assert cp.state is not None
    upstream = write_kubeconfig(
        tmp_path / "sa.kubeconfig", cp.server, Path(cp.state.ca_cert), user, None, None, token=token
    )
    audit = AuditLog(cp.audit_log)
    start = audit.offset()
    acc = ProxyAccounting()
    with ApiProxy.for_kubeconfig(upstream, user=user, workdir=tmp_path) as proxy:
        assert proxy.client_cert is None and proxy.token == token
        acc.add(proxy, user)
        mark = acc.sync()
        client = Kube(proxy.kubeconfig)
        try:
            assert client.list("modelservices", ns) == []
            with pytest.raises(ApiException) as refused:
                client.list("secrets", ns)
            assert refused.value.status == 403
            assert user in str(refused.value.body)  # the API server names the ServiceAccount
        finally:
            client.close()
        proxied = acc.requests(mark, acc.sync())
    # (a just-started API server may first answer 429 while it settles; the client retries)
    assert [r.describe() for r in proxied if r.code != 429] == [
        "list modelservices -> 200",
        "list secrets -> 403",
    ]
    admin = Kube(cp.admin_kubeconfig)
    try:
        audited = select(audit.requests(start, audit.sync(admin)), user=user)
    finally:
        admin.close()
    result = compare(audited, proxied)
    assert result.equal and result.matched == len(proxied), result.differences


def _junit(path: Path, cases: dict[str, dict[str, Any] | None]) -> None:
    rows = []
    for name, accounting in cases.items():
        props = (
            f'<properties><property name="accounting" value="{json.dumps(accounting).replace(chr(34), "&quot;")}"/></properties>'
            if accounting is not None
            else ""
        )
        rows.append(f'<testcase classname="go.conformance.t" name="{name}">{props}</testcase>')
    path.write_text(
        f'<testsuites><testsuite name="modeldock-go">{"".join(rows)}</testsuite></testsuites>'
    )


def test_accounting_check_sums_and_fails_on_a_difference(tmp_path: Path) -> None:
    """``python -m harness accounting-check`` counts compared requests per implementation and
    fails on any request one accounting has and the other lacks."""
    from harness.accounting_check import check

    same = {"compared": 5, "audit_only": [], "proxy_only": [], "differing": [], "unreached": 1}
    _junit(tmp_path / "junit-go.xml", {"noop-stable": same, "parity": same, "skipped": None})
    code, lines = check(tmp_path)
    assert code == 0 and lines[0].startswith("compared 10 requests in 2 checks (go: 10), 0 diff")
    _junit(
        tmp_path / "junit-python.xml",
        {"noop-stable": {**same, "audit_only": ["only in the audit log: update services web"]}},
    )
    code, lines = check(tmp_path)
    assert code == 1 and "(go: 10, python: 5), 1 differences" in lines[0]
    assert lines[1] == "python noop-stable: only in the audit log: update services web"
    assert check(tmp_path / "none")[0] == 2


def test_accounting_check_cannot_pass_by_seeing_nothing(tmp_path: Path) -> None:
    """On a tier with an audit log every check that ran must have compared requests: a check
    without a comparison, or with one of zero requests, fails the command; a skipped check and
    a tier without an audit log ask for none."""
    from harness.accounting_check import check

    def suite(capabilities: str, cases: list[tuple[str, str, dict[str, Any] | None]]) -> str:
        rows = []
        for name, outcome, accounting in cases:
            props = f'<property name="check" value="{name}"/>'
            if accounting is not None:
                value = json.dumps(accounting).replace(chr(34), "&quot;")
                props += f'<property name="accounting" value="{value}"/>'
            body = '<skipped message="needs x"/>' if outcome == "skipped" else ""
            rows.append(
                f'<testcase classname="go.conformance.t" name="{name}">'
                f"<properties>{props}</properties>{body}</testcase>"
            )
        return (
            f'<testsuites><testsuite name="modeldock-go"><properties><property '
            f'name="capabilities" value="{capabilities}"/></properties>{"".join(rows)}'
            f"</testsuite></testsuites>"
        )

    same = {"compared": 5, "audit_only": [], "proxy_only": [], "differing": []}
    path = tmp_path / "junit-go.xml"
    path.write_text(
        suite("audit-log,request-accounting", [("a", "passed", same), ("b", "skipped", None)])
    )
    assert check(tmp_path)[0] == 0
    path.write_text(
        suite("audit-log,request-accounting", [("a", "passed", same), ("c", "passed", None)])
    )
    code, lines = check(tmp_path)
    assert code == 1 and "go c: ran on a tier with an audit log, no comparison" in lines
    path.write_text(
        suite("audit-log", [("a", "passed", same), ("d", "passed", {**same, "compared": 0})])
    )
    code, lines = check(tmp_path)
    assert code == 1 and "go d: compared 0 requests" in lines
    # ...unless the check said its operator makes no request in scope, by design
    scoped = suite("audit-log", [("a", "passed", same), ("d", "passed", {**same, "compared": 0})])
    scope = '<property name="accounting_scope" value="cluster-scoped discovery only"/>'
    path.write_text(
        scoped.replace(
            '<property name="check" value="d"/>', f'<property name="check" value="d"/>{scope}'
        )
    )
    assert check(tmp_path)[0] == 0
    path.write_text(suite("request-accounting", [("a", "passed", same), ("e", "passed", None)]))
    assert check(tmp_path)[0] == 0


def test_a_stopping_api_server_s_unlogged_watches_are_not_differences() -> None:
    """A watch the API server ended at its stop, or refused with 503 while its open watches
    drained, may be missing from its audit log: counted as unlogged. Anything else the audit
    log lacks stays a difference."""
    from harness.accounting import unlogged_by_a_stopping_server

    def rec(verb: str, code: int, ended: bool = False, audit_id: str = "a1") -> ProxyRequest:
        return _record(verb=verb, code=code, audit_id=audit_id, upstream_ended=ended)

    assert unlogged_by_a_stopping_server(rec("watch", 503), set())
    assert unlogged_by_a_stopping_server(rec("watch", 200, ended=True), set())
    assert not unlogged_by_a_stopping_server(rec("watch", 503), {"a1"})  # logged: compared
    assert not unlogged_by_a_stopping_server(rec("watch", 200), set())
    assert not unlogged_by_a_stopping_server(rec("list", 503), set())
    assert not unlogged_by_a_stopping_server(rec("watch", 500), set())


def test_requests_the_proxy_never_forwarded_are_not_compared() -> None:
    """A scripted answer, a 502 without an upstream and a write whose client went away before
    its body was complete never reached the API server: left out of the comparison. A
    forwarded request the API server failed stays in it."""

    def rec(code: int, reason: str = "", injected: bool = False) -> ProxyRequest:
        return _record(
            verb="create", resource="events", code=code, reason=reason, injected=injected
        )

    assert not rec(0, "ClientBodyIncomplete").forwarded
    assert not rec(502, "ProxyUpstreamError").forwarded
    assert not rec(409, "Conflict", injected=True).forwarded
    assert rec(500, "InternalError").forwarded
    assert rec(201).forwarded
