"""Unit tests of the harness.bench package's pure parts: no API server, no operator."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from harness.audit import AuditLog, Request
from harness.bench import accounting, cli, figures, measure, phases, results, settings, tables
from harness.bench.accounting import RequestCounts
from harness.bench.figures import FIGURE_KEYS
from harness.bench.results import ImplResults, LatencyRun, LoadRun, QuietRun, RestartRun


# --------------------------------------------------------------------------- percentiles
def test_percentile_interpolates_like_numpy_linear() -> None:
    values = [0.1, 0.4, 0.2, 0.3]  # unsorted on purpose
    assert figures.percentile(values, 0) == pytest.approx(0.1)
    assert figures.percentile(values, 100) == pytest.approx(0.4)
    assert figures.percentile(values, 50) == pytest.approx(0.25)
    # numpy.percentile([1..100], 95) == 95.05
    assert figures.percentile(list(range(1, 101)), 95) == pytest.approx(95.05)
    assert figures.percentile([7.0], 95) == 7.0


def test_percentile_rejects_nothing_and_out_of_range() -> None:
    with pytest.raises(ValueError):
        figures.percentile([], 50)
    with pytest.raises(ValueError):
        figures.percentile([1.0], 101)


def test_median_or_none_skips_missing() -> None:
    assert figures.median_or_none([3.0, None, 1.0, 2.0]) == 2.0
    assert figures.median_or_none([None]) is None


# --------------------------------------------------------------------------- ratios
def test_ratio_is_none_without_a_denominator() -> None:
    assert figures.ratio(3.0, 1.5) == 2.0
    assert figures.ratio(0, 0) is None  # 0 quiet writes each: no ratio, not "infinitely better"
    assert figures.ratio(1.0, None) is None
    assert figures.ratio(None, 1.0) is None
    assert figures.ratio(1, 3) == 0.33


def test_ratio_figures_covers_every_key_and_each_n() -> None:
    go = figures.empty_figures() | {
        "latency_p50_s": 0.1,
        "quiet_writes": 0,
        "writes_per_object": 4.0,
        "throughput_s": {"100": 2.0, "1000": 20.0},
    }
    py = figures.empty_figures() | {
        "latency_p50_s": 0.25,
        "quiet_writes": 0,
        "writes_per_object": 4.0,
        "throughput_s": {"100": 3.0, "1000": 50.0},
    }
    r = figures.ratio_figures(py, go)
    assert list(r) == list(FIGURE_KEYS)
    assert r["latency_p50_s"] == 2.5
    assert r["writes_per_object"] == 1.0
    assert r["quiet_writes"] is None
    assert r["throughput_s"] == {"100": 1.5, "1000": 2.5}
    assert r["peak_rss_mib"] is None


# --------------------------------------------------------------------------- converged
def _ms(
    generation: int,
    observed: int | None,
    ready_reason: str | None = "ReplicasUnavailable",
    progressing: bool = True,
) -> dict[str, Any]:
    conditions = []
    if ready_reason:
        conditions.append({"type": "Ready", "status": "False", "reason": ready_reason})
    if progressing:
        conditions.append({"type": "Progressing", "status": "True", "reason": "RolloutInProgress"})
    status = {} if observed is None else {"observedGeneration": observed, "conditions": conditions}
    return {"metadata": {"name": "a", "generation": generation}, "status": status}


def test_watch_records_when_each_generation_was_first_seen_converged() -> None:
    """ConvergenceWatch reads "converged" with harness.modelservice.status_converged."""
    watch = measure.ConvergenceWatch(kube=None, namespace="ns1")  # not started: no API server
    not_yet = [
        _ms(2, 1),  # status of an older generation
        _ms(1, None),  # no status yet
        _ms(1, 1, ready_reason=None),
        _ms(1, 1, progressing=False),
        _ms(1, 1, ready_reason="ChildConflict"),
    ]
    for i, obj in enumerate(not_yet):
        watch._observe(obj, now=float(i))
    assert watch.converged == {} and watch.count_converged() == 0
    watch._observe(_ms(1, 1), now=10.0)
    watch._observe(_ms(1, 1), now=11.0)  # seen again: the first time stays
    watch._observe(_ms(2, 2), now=12.0)
    assert watch.converged == {"a": {1: 10.0, 2: 12.0}}
    assert watch.generation == {"a": 2}
    assert watch.wait(["a"], timeout=0) == 10.0
    assert watch.wait(["a"], timeout=0, generations={"a": 2}) == 12.0
    assert watch.count_converged(generations={"a": 3}) == 0


def test_bench_creates_the_shared_modelservice() -> None:
    """The bench's objects are harness.modelservice's, with the CRD's defaults for the rest:
    the same stored spec as the replicas 1, port 8000 it used to send."""
    import yaml

    from harness.modelservice import modelservice
    from harness.paths import CRDS_DIR

    assert modelservice("x")["spec"] == {"model": "m", "image": "srv:1"}
    crd = (CRDS_DIR / "modeldock.io_modelservices.yaml").read_text()
    props = yaml.safe_load(crd)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"][
        "spec"
    ]["properties"]
    assert (props["replicas"]["default"], props["port"]["default"]) == (1, 8000)


# --------------------------------------------------------------------------- audit accounting
def _event(
    user: str, verb: str, resource: str, code: int, ns: str = "ns1", sub: str = "", reason: str = ""
) -> bytes:
    ev: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "Metadata",
        "user": {"username": user},
        "verb": verb,
        "objectRef": {"resource": resource, "namespace": ns, "name": "x", "subresource": sub},
        "responseStatus": {"metadata": {}, "code": code} | ({"reason": reason} if reason else {}),
    }
    if not sub:
        del ev["objectRef"]["subresource"]
    return json.dumps(ev).encode() + b"\n"


def test_account_counts_writes_by_namespace_and_requests_by_user(tmp_path: Path) -> None:
    op = "modeldock:python"
    log = tmp_path / "audit.log"
    log.write_bytes(
        b"".join(
            [
                _event("admin", "create", "modelservices", 201),
                _event(op, "update", "modelservices", 200),
                _event(op, "create", "deployments", 201),
                _event(op, "create", "services", 201),
                _event(op, "update", "modelservices", 200, sub="status"),
                _event(op, "update", "modelservices", 409, sub="status", reason="Conflict"),
                _event(op, "create", "deployments", 409, reason="AlreadyExists"),
                _event(op, "watch", "deployments", 200),
                _event(op, "update", "modelservices", 200, ns="other"),  # another namespace
                b'{"half a line',
            ]
        )
    )
    events = list(AuditLog(log).requests())
    acc = accounting.account(events, op, "ns1")
    assert acc.requests == 8  # every request of the user, any namespace, any verb
    assert acc.writes_ok == 4
    assert acc.writes_failed == 2
    assert acc.writes_by_kind == {
        "create deployments": 1,
        "create services": 1,
        "update modelservices": 1,
        "update modelservices/status": 1,
    }
    assert acc.failed_by_kind == {
        "create deployments 409 AlreadyExists": 1,
        "update modelservices/status 409 Conflict": 1,
    }
    every = accounting.account(events, op, None)
    assert every.writes_ok == 5


def test_account_window_counts_only_the_window(tmp_path: Path) -> None:
    op = "modeldock:go"
    first = _event(op, "create", "deployments", 201)
    log = tmp_path / "audit.log"
    log.write_bytes(first + _event(op, "create", "services", 201) + _event(op, "get", "pods", 200))
    acc = accounting.account_window(AuditLog(log), len(first), log.stat().st_size, op, "ns1")
    assert (acc.requests, acc.writes_ok) == (2, 1)
    assert acc.writes_by_kind == {"create services": 1}
    assert acc.requests_by_kind == {"create services 201": 1, "get pods 200": 1}


def test_failed_writes_are_explained() -> None:
    out = accounting.explain_failed(
        {
            "update modelservices/status 409 Conflict": 3,
            "create services 409 AlreadyExists": 1,
            "delete pods 403": 2,
        }
    )
    assert list(out) == [
        "update modelservices/status 409 Conflict",
        "delete pods 403",
        "create services 409 AlreadyExists",
    ]
    assert "cache" in out["update modelservices/status 409 Conflict"]["cause"]
    assert out["delete pods 403"]["cause"] == "not classified"


def test_failed_kind_names_the_reason_when_there_is_one() -> None:
    conflict = Request.from_event(
        json.loads(_event("u", "create", "deployments", 409, reason="AlreadyExists"))
    )
    assert conflict.is_write and not conflict.ok
    assert accounting.failed_kind(conflict) == "create deployments 409 AlreadyExists"
    denied = Request.from_event(
        json.loads(_event("u", "update", "modelservices", 403, sub="status"))
    )
    assert accounting.failed_kind(denied) == "update modelservices/status 403"


# --------------------------------------------------------------------------- the report
def _acc(ok: int, failed: int, requests: int) -> RequestCounts:
    return RequestCounts(
        requests=requests,
        writes_ok=ok,
        writes_failed=failed,
        failed_by_kind={"update modelservices/status 409 Conflict": failed} if failed else {},
    )


def _results(scale: float, sizes: list[int]) -> ImplResults:
    res = ImplResults()
    for rep in range(3):
        res.latency.append(LatencyRun([scale * (0.02 + 0.001 * i + 0.01 * rep) for i in range(50)]))
        res.loads.append(LoadRun("latency", 50, 50, None, 20.0, 120, _acc(200, 5, 205)))
    for n in sizes:
        res.loads.append(
            LoadRun(
                "throughput",
                n,
                n,
                scale * n / 40,
                1.0,
                2.5 * n,
                _acc(4 * n, n // 10, 4 * n + n // 10),
            )
        )
    res.quiet.append(QuietRun(30.0, 0, 3, 0, {}))
    res.rss_mib.append(scale * 40)
    res.restarts.append(RestartRun(500, 50, scale * 1.5, 0.2, 1.0, 1.4, 510, _acc(100, 0, 110)))
    return res


def test_report_has_every_figure_for_both_implementations() -> None:
    sizes = [100, 500, 1000]
    settings = {"sizes": sizes}
    report = results.build_report(
        {"go": _results(1.0, sizes), "python": _results(2.0, sizes)}, {"cpu": "test"}, settings
    )
    assert set(report) >= {
        "machine",
        "implementations",
        "ratios",
        "settings",
        "latency_samples_s",
        "details",
    }
    assert list(report["implementations"]) == ["go", "python"]
    assert list(report["ratios"]) == ["python/go"]
    for fig in report["implementations"].values():
        assert list(fig) == list(FIGURE_KEYS)
        assert set(fig["throughput_s"]) == {"100", "500", "1000"}
    assert results.missing_figures(report) == []
    go, py = report["implementations"]["go"], report["implementations"]["python"]
    assert go["writes_per_object"] == 4.0
    # (3 x 5 + 10 + 50 + 100) failed over (150 + 1600) objects
    assert go["failed_writes_per_object"] == round(175 / 1750, 3)
    assert go["quiet_writes"] == 0
    assert go["throughput_s"]["1000"] == 25.0
    assert py["throughput_s"]["1000"] == 50.0
    ratios = report["ratios"]["python/go"]
    assert ratios["throughput_s"] == {"100": 2.0, "500": 2.0, "1000": 2.0}
    assert ratios["peak_rss_mib"] == 2.0
    assert ratios["writes_per_object"] == 1.0
    assert ratios["quiet_writes"] is None
    # latency: median over runs of each run's percentile
    runs = [
        figures.percentile([0.02 + 0.001 * i + 0.01 * rep for i in range(50)], 50)
        for rep in range(3)
    ]
    assert go["latency_p50_s"] == round(sorted(runs)[1], 4)
    assert len(report["latency_samples_s"]["go"]) == 150
    json.dumps(report)  # serialisable as it is


def test_report_with_a_missing_phase_says_what_is_missing() -> None:
    res = _results(1.0, [100])
    res.restarts.clear()
    report = results.build_report({"go": res}, {}, {"sizes": [100, 500]})
    assert report["ratios"] == {}
    assert results.missing_figures(report) == ["go.throughput_s[500]", "go.restart_to_converged_s"]


def test_quick_mode_figure_shape() -> None:
    args = bench_args(["--quick"])
    s = settings.settings_from_args(args)
    assert (s.sizes, s.latency_objects, s.repeats, s.quiet_seconds) == ([20], 10, 1, 5.0)
    assert s.restart_size == 20 and s.rss_size == 20
    assert s.impls == ["go", "python"]
    report = results.build_report({i: _results(1.0, s.sizes) for i in s.impls}, {}, s.describe())
    assert results.missing_figures(report) == []
    for fig in report["implementations"].values():
        assert set(fig) == set(FIGURE_KEYS)
        assert list(fig["throughput_s"]) == ["20"]
    assert report["settings"]["max_concurrent_reconciles"] == 1


def test_default_settings() -> None:
    s = settings.settings_from_args(bench_args([]))
    assert s.sizes == [100, 500, 1000]
    assert (s.latency_objects, s.repeats, s.quiet_seconds) == (50, 3, 30.0)
    assert s.throughput_repeats == 3
    assert (s.restart_size, s.rss_size, s.workers) == (500, 1000, 1)


def test_sizes_must_include_restart_and_rss_sizes() -> None:
    with pytest.raises(SystemExit):
        settings.settings_from_args(bench_args(["--sizes", "100", "--restart-size", "500"]))


def test_table_lists_each_figure_and_n() -> None:
    sizes = [100, 1000]
    report = results.build_report(
        {"go": _results(1.0, sizes), "python": _results(2.0, sizes)}, {}, {"sizes": sizes}
    )
    table = tables.render_table(report)
    lines = table.splitlines()
    assert lines[0].split() == ["figure", "go", "python", "python/go"]
    assert sum("at once" in line for line in lines) == 2
    assert "peak RSS (MiB)" in table
    assert len(lines) == 2 + len(FIGURE_KEYS) - 1 + len(sizes)


def bench_args(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser().parse_args(argv)


def test_cpu_seconds_of_this_process() -> None:
    import os

    cpu = measure.cpu_seconds(os.getpid())
    assert cpu is not None and cpu > 0
    assert measure.cpu_seconds(None) is None
    rss = measure.vm_kib(os.getpid(), "VmHWM")
    assert rss is not None and rss > 0


def test_bench_control_plane_widens_the_service_range(tmp_path: Path) -> None:
    from harness.envtest.controlplane import State

    cp = phases.bench_control_plane(tmp_path)
    cp.state = State(
        tier="envtest",
        server="https://127.0.0.1:1",
        workdir=str(tmp_path),
        admin_kubeconfig="",
        ca_cert="",
        ca_key="",
        audit_log="a.log",
        etcd_url="http://127.0.0.1:2",
        apiserver_port=1,
    )
    cp._binaries = {"kube-apiserver": Path("/bin/kube-apiserver")}
    args = cp._apiserver_args()
    ranges = [a for a in args if a.startswith("--service-cluster-ip-range=")]
    assert ranges == ["--service-cluster-ip-range=10.0.0.0/16"]
