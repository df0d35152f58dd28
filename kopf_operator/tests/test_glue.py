"""The contract glue around kopf: configuration, JSON log lines, metrics around handlers,
health endpoints, and the status patch. No cluster, no kopf event loop."""

from __future__ import annotations

import json
import logging
import os
import threading
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from kopf_operator import glue, handlers


def test_config_defaults_and_errors() -> None:
    cfg = glue.config_from_env({"KUBECONFIG": "/k"})
    assert (
        cfg.watch_namespace,
        cfg.leader_election,
        cfg.metrics_bind_address,
        cfg.health_probe_bind_address,
        cfg.max_concurrent_reconciles,
    ) == ("modeldock-lab", False, ":8080", ":8081", 4)
    with pytest.raises(glue.ConfigError, match="KUBECONFIG"):
        glue.config_from_env({})
    with pytest.raises(glue.ConfigError, match="MAX_CONCURRENT_RECONCILES"):
        glue.config_from_env({"KUBECONFIG": "/k", "MAX_CONCURRENT_RECONCILES": "0"})


def test_bind_addresses() -> None:
    assert glue.split_address(":8080") == ("0.0.0.0", 8080)
    assert glue.split_address("127.0.0.1:9") == ("127.0.0.1", 9)
    assert glue.split_address("0") is None
    with pytest.raises(glue.ConfigError):
        glue.split_address("nope")


def test_json_log_line_names_the_modelservice() -> None:
    record = logging.LogRecord(
        "kopf.objects", logging.INFO, __file__, 1, "Created Deployment", None, None
    )
    record.k8s_ref = {"namespace": "ns", "name": "web"}
    record.fields = {"child": "Deployment/web"}
    line = json.loads(glue.JsonFormatter().format(record))
    assert line["msg"] == "Created Deployment"
    assert line["modelservice"] == "ns/web"
    assert line["child"] == "Deployment/web"


def _samples(metrics: glue.Metrics) -> dict[str, float]:
    from prometheus_client import generate_latest

    out = {}
    for fam in text_string_to_metric_families(generate_latest(metrics.registry).decode()):
        for s in fam.samples:
            out[s.name + json.dumps(s.labels, sort_keys=True)] = s.value
    return out


def test_handlers_are_counted_by_result() -> None:
    metrics = glue.Metrics()
    errors: list[str] = []
    counted = glue.counted(
        metrics,
        lambda e: "requeue_after" if isinstance(e, KeyError) else "error",
        lambda logger, e: errors.append(str(e)),
    )

    @counted
    def ok(**_: object) -> int:
        return 1

    @counted
    def later(**_: object) -> None:
        raise KeyError("later")

    @counted
    def broken(**_: object) -> None:
        raise RuntimeError("boom")

    assert ok() == 1
    with pytest.raises(KeyError):
        later()
    with pytest.raises(RuntimeError):
        broken()
    s = _samples(metrics)
    total = "controller_runtime_reconcile_total"
    assert s[total + '{"controller": "modelservice", "result": "success"}'] == 1
    assert s[total + '{"controller": "modelservice", "result": "requeue_after"}'] == 1
    assert s[total + '{"controller": "modelservice", "result": "error"}'] == 1
    assert s['controller_runtime_reconcile_errors_total{"controller": "modelservice"}'] == 1
    assert s['workqueue_adds_total{"name": "modelservice"}'] == 3
    assert s['workqueue_depth{"name": "modelservice"}'] == 0
    assert errors == ["boom"]


def test_readyz_waits_for_kopf_healthz_does_not() -> None:
    ready = threading.Event()
    server = glue.serve(("127.0.0.1", 0), glue.health_routes(ready))
    port = server.server_address[1]

    def get(path: str) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as r:
                return int(r.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)

    try:
        assert (get("/healthz"), get("/readyz"), get("/other")) == (200, 503, 404)
        ready.set()
        assert get("/readyz") == 200
    finally:
        server.shutdown()


def test_status_patch_holds_only_what_changed() -> None:
    stored = {"replicas": 0, "url": "http://a", "conditions": [{"type": "Ready"}]}
    computed = {
        "replicas": 0,
        "url": "http://b",
        "conditions": [{"type": "Ready"}],
        "observedGeneration": 2,
    }
    assert handlers.status_changes(stored, computed) == {"url": "http://b", "observedGeneration": 2}
    assert handlers.status_changes(None, {"replicas": 0}) == {"replicas": 0}


def test_crash_point_only_when_named(monkeypatch: pytest.MonkeyPatch) -> None:
    exits: list[int] = []
    monkeypatch.setattr(os, "_exit", exits.append)
    glue.crash_point("after-service", {})
    glue.crash_point("after-service", {"MODELDOCK_CRASH_AT": "after-deployment"})
    assert exits == []
    glue.crash_point("after-service", {"MODELDOCK_CRASH_AT": "after-service"})
    assert exits == [86]


def test_kopf_names_itself() -> None:
    """Both of kopf's clients send the implementation's own User-Agent product (CONTRACT.md,
    "It names itself"), never kopf's or the Python client's default."""
    from kopf_operator import handlers

    assert handlers.USER_AGENT.split("/")[0] == "modeldock-kopf"
    assert handlers.api_client().user_agent == handlers.USER_AGENT
