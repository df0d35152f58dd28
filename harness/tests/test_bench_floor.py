"""Unit tests of the floor and the worker scaling in harness.bench: the floor client's writes
(against a fake API), the CPU split and its rule, the figures and ratios in bench.json, the
table. No API server, no operator, no fixed times."""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

import pytest

from conformance import support
from harness.bench import cli, figures, measure, results, settings, tables
from harness.bench.accounting import RequestCounts
from harness.bench.floor import (
    FINALIZER,
    desired_deployment,
    desired_service,
    floor_status,
    with_finalizer,
)
from harness.bench.results import FloorRun, ImplResults, LoadRun, WorkersRun
from harness.bench.scaling import ProbeLoop
from harness.modelservice import modelservice, status_converged
from harness.paths import REPO_ROOT


def _stored(name: str, ns: str = "ns", **spec: Any) -> dict[str, Any]:
    """A ModelService as the API server answers a create: defaults, uid, generation."""
    ms = modelservice(name, **spec)
    ms["spec"] = {"replicas": 1, "port": 8000} | ms["spec"]
    ms["metadata"].update(namespace=ns, uid=f"uid-{name}", generation=1, resourceVersion="1")
    return ms


# --------------------------------------------------------------------------- builders
@pytest.mark.parametrize("spec", [{}, {"replicas": 3, "port": 9000, "args": ["--x"]}])
def test_floor_children_are_what_the_contract_prescribes(spec: dict[str, Any]) -> None:
    ms = _stored("a", **spec)
    dep, svc = desired_deployment(ms), desired_service(ms)
    assert (
        support.diff_fields(
            support.expected_deployment_fields(ms), support.actual_deployment_fields(dep)
        )
        == []
    )
    assert (
        support.diff_fields(support.expected_service_fields(ms), support.actual_service_fields(svc))
        == []
    )
    for child in (dep, svc):
        assert support.controller_ref(child) == {
            "apiVersion": "modeldock.io/v1alpha1",
            "kind": "ModelService",
            "name": "a",
            "uid": "uid-a",
            "controller": True,
            "blockOwnerDeletion": True,
        }


def test_floor_status_converges_and_finalizer_is_appended() -> None:
    ms = _stored("a")
    assert not status_converged(ms)
    assert status_converged({**ms, "status": floor_status(ms)})
    status = floor_status(ms)
    assert status["url"] == "http://a.ns.svc:8000" and status["observedGeneration"] == 1
    assert [c["reason"] for c in status["conditions"]] == [
        "ReplicasUnavailable",
        "RolloutInProgress",
    ]
    ms["metadata"]["finalizers"] = ["other"]
    assert with_finalizer(ms)["metadata"]["finalizers"] == ["other", FINALIZER]
    assert ms["metadata"]["finalizers"] == ["other"]  # a copy


# --------------------------------------------------------------------------- Go twin
DESIRED = REPO_ROOT / "harness" / "bench" / "floorclient" / "testdata" / "desired.json"


def test_python_builders_match_the_go_floor_clients_fixture() -> None:
    """testdata/desired.json is what the Go floor client's builders make of one ModelService
    (its main_test.go checks that side); the Python builders make the same."""
    doc = json.loads(DESIRED.read_text())
    ms = doc["modelservice"]
    now = datetime.datetime.strptime(doc["now"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    assert desired_deployment(ms) == doc["deployment"]
    assert desired_service(ms) == doc["service"]
    assert with_finalizer(ms) == doc["with_finalizer"]
    assert floor_status(ms, now) == doc["status"]


# --------------------------------------------------------------------------- probes
class FakeWatch:
    def __init__(self) -> None:
        self.seen: dict[tuple[str, int], float] = {}

    def converged_at(self, name: str, generation: int) -> float | None:
        return self.seen.get((name, generation))


class FakeAdmin:
    def __init__(self, watch: FakeWatch) -> None:
        self.watch, self.gen, self.patches = watch, {}, []  # type: ignore[var-annotated]

    def patch(self, resource: str, ns: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        import time

        self.gen[name] = self.gen.get(name, 1) + 1
        self.patches.append((name, body["spec"]["replicas"]))
        self.watch.seen[(name, self.gen[name])] = time.monotonic()  # converges at once
        return {"metadata": {"generation": self.gen[name]}}


def test_probe_loop_changes_one_probe_at_a_time_and_times_each() -> None:
    import time

    watch = FakeWatch()
    admin = FakeAdmin(watch)
    loop = ProbeLoop(admin, watch, "ns", ["p0", "p1"], interval=0.01).start()  # type: ignore[arg-type]
    deadline = time.monotonic() + 10
    while len(admin.patches) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    samples = loop.stop()
    assert len(samples) == len(admin.patches) >= 4 and all(s >= 0 for s in samples)
    assert admin.patches[:4] == [("p0", 2), ("p1", 2), ("p0", 1), ("p1", 1)]
    assert loop.errors == 0


# --------------------------------------------------------------------------- CPU split
def test_cpu_snapshot_delta_of_this_process() -> None:
    before = measure.CpuSnapshot({"me": os.getpid(), "none": None})
    sum(i * i for i in range(200_000))
    d = before.delta(measure.CpuSnapshot({"me": os.getpid(), "none": None}))
    assert d["none"] is None and (d["me"] or 0) >= 0 and (d["harness"] or 0) >= 0
    assert (d["wall"] or 0) > 0 and (d["machine_total"] or 0) >= (d["machine_busy"] or 0) >= 0


def _delta(
    wall: float, api: float, etcd: float, busy: float, cores: int = 2
) -> dict[str, float | None]:
    return {
        "wall": wall,
        "kube-apiserver": api,
        "etcd": etcd,
        "harness": 0.5,
        "machine_busy": busy * wall * cores,
        "machine_total": wall * cores,
    }


def test_time_split_names_what_limited_the_run() -> None:
    cpu_bound = figures.time_split(_delta(10, 3, 1, 0.8), 9.5, "operator")
    assert cpu_bound["limited_by"] == "operator CPU"
    assert cpu_bound["client_waiting_s"] == 0.5 and cpu_bound["machine_busy"] == 0.8
    assert cpu_bound["other_cpu_s"] == 2.0  # 16 busy - (9.5 + 3 + 1 + 0.5)
    machine = figures.time_split(_delta(10, 8, 2, 0.95), 5.0, "operator")
    assert machine["limited_by"] == "machine CPU" and "machine 95% busy" in machine["why"]
    waiting = figures.time_split(_delta(10, 2, 1, 0.3), 1.0, "floor client", harness_cpu_s=0.1)
    assert waiting["limited_by"] == "waiting" and waiting["harness_cpu_s"] == 0.1
    assert figures.time_split({"wall": 1.0}, None, "x")["limited_by"] == "unknown"


# --------------------------------------------------------------------------- bench.json
def _acc(ok: int, failed: int) -> RequestCounts:
    return RequestCounts(requests=ok + failed, writes_ok=ok, writes_failed=failed)


def _split(label: str) -> dict[str, Any]:
    return {"wall_s": 1.0, "limited_by": label}


def _impl(scale: float) -> ImplResults:
    res = ImplResults()
    for n in (100, 1000):
        res.loads.append(
            LoadRun(
                "throughput", n, n, scale * n / 50, 1.0, 2 * n, _acc(4 * n, 0), 1.0, _split(f"t{n}")
            )
        )
    for w in (1, 4):
        for rep in range(2):
            res.workers_runs.append(
                WorkersRun(
                    workers=w,
                    n=1000,
                    seconds=scale * 40 / w + rep,
                    probe_samples=[0.1, 0.2, 0.3 * w],
                    cpu_s=scale * 5,
                    peak_rss_mib=40.0 + w,
                    reconciles=2000,
                    accounting=_acc(4000, 10 * w),
                    split=_split(f"w{w}r{rep}"),
                )
            )
    return res


def _floor() -> list[FloorRun]:
    runs = [
        FloorRun(n, 1, n / 100, n / 100, 0.5, _acc(4 * n, 0), {"client_cpu_s": 0.1 * n / 100})
        for n in (100, 1000)
    ]
    runs.append(FloorRun(1000, 4, 4.0, 4.0, 0.5, _acc(4000, 0), {"client_cpu_s": 1.5}))
    runs.append(FloorRun(40, 1, 9.9, 9.9, 0.5, _acc(160, 0), {}))  # not a size: not in throughput
    return runs


def test_report_has_the_floor_workers_and_floor_ratios() -> None:
    sets = {"sizes": [100, 1000], "max_concurrent_reconciles": 1, "scaling_size": 1000}
    report = results.build_report({"go": _impl(1.0), "python": _impl(2.0)}, {}, sets, [], _floor())
    floor = report["floor"]
    assert floor["throughput_s"] == {"100": 1.0, "1000": 10.0}
    assert floor["workers"]["4"]["throughput_s"] == 4.0 and floor["workers"]["1"]["cpu_s"] == 1.0
    assert floor["writes_per_object"] == 4.0 and len(floor["runs"]) == 4
    go = report["implementations"]["go"]
    assert list(go["workers"]) == ["1", "4"]
    assert list(go["workers"]["4"]) == list(figures.WORKER_KEYS)
    assert go["workers"]["1"]["throughput_s"] == 40.5  # median of 40 and 41
    assert go["workers"]["4"]["failed_writes_per_object"] == round(80 / 2006, 3)
    assert go["workers"]["4"]["latency_p95_s"] == 1.1  # [0.1, 0.2, 1.2] at 95%
    assert report["ratios"]["go/floor"]["throughput_s"] == {"100": 2.0, "1000": 2.0}
    assert report["ratios"]["python/floor"]["throughput_s"] == {"100": 4.0, "1000": 4.0}
    assert report["ratios"]["python/floor"]["workers"] == {
        "1": 8.05,
        "4": 5.12,
    }  # 80.5 / 10, 20.5 / 4
    assert report["ratios"]["python/go"]["workers"]["4"]["cpu_s"] == 2.0
    split = report["time_split"]
    assert split["throughput"]["go"]["1000"]["limited_by"] == "t1000"
    assert split["workers"]["python"]["4"]["limited_by"] == "w4r0"  # the median run
    assert set(split["workers"]["floor"]) == {"1", "4"}
    assert "40" not in split["throughput"]["floor"]
    table = tables.render_floor_table(report)
    assert "N = 1000 (1 worker(s))" in table and "python/floor" in table
    assert sum(line.split()[:2] == ["4", "python"] for line in table.splitlines()) == 1


def test_report_without_floor_or_scaling_is_as_before() -> None:
    report = results.build_report(
        {"go": ImplResults(), "python": ImplResults()}, {}, {"sizes": [100]}
    )
    assert "floor" not in report and "workers" not in report["implementations"]["go"]
    assert list(report["ratios"]) == ["python/go"]
    assert tables.render_floor_table(report) == ""


def test_scaling_settings() -> None:
    s = settings.settings_from_args(cli.build_parser().parse_args([]))
    assert (s.scaling_workers, s.scaling_size, s.scaling_repeats, s.floor) == (
        [1, 4, 16],
        1000,
        3,
        True,
    )
    assert (s.capacity_concurrency, s.capacity_size) == ([64], 1000)
    q = settings.settings_from_args(cli.build_parser().parse_args(["--quick"]))
    assert q.scaling_workers == [1, 4] and q.scaling_size < 100 and q.sizes == [20]
    assert q.capacity_size < 100 and q.scaling_repeats == 1
    none = settings.settings_from_args(
        cli.build_parser().parse_args(["--scaling-workers", "", "--no-floor"])
    )
    assert none.scaling_workers == [] and not none.floor
    assert "floor" in s.describe() and "time_split" in s.describe()


# --------------------------------------------------------------------------- floor, capacity, spread
def test_a_ratio_below_the_floor_is_a_violation() -> None:
    sets = {"sizes": [100, 1000], "max_concurrent_reconciles": 1, "scaling_size": 1000}
    report = results.build_report({"go": _impl(1.0), "python": _impl(2.0)}, {}, sets, [], _floor())
    assert results.floor_violations(report) == []
    assert report["floor"]["client"].startswith("go: harness/bench/floorclient")
    fast = _impl(0.4)  # 0.4 * 100 / 50 = 0.8 s against the floor's 1 s
    report = results.build_report({"go": fast}, {}, sets, [], _floor())
    assert results.floor_violations(report) == [
        "go/floor throughput_s[100] = 0.8",
        "go/floor throughput_s[1000] = 0.8",
    ]


def test_capacity_is_the_best_concurrency_median() -> None:
    runs = [
        results.CapacityRun(n=1000, concurrency=c, writes=5000, seconds=s, writes_per_s=5000 / s)
        for c, s in ((16, 10.0), (16, 12.5), (16, 8.0), (64, 5.0), (64, 6.25), (64, 4.0))
    ]
    cap = results.capacity_figures(runs)
    assert cap["writes_per_s"] == 1000.0  # the median of 800, 1000 and 1250
    assert cap["by_concurrency"]["16"] == {"median": 500.0, "min": 400.0, "max": 625.0, "runs": 3}
    assert len(cap["runs"]) == 6
    sets = {"sizes": [100, 1000], "max_concurrent_reconciles": 1, "scaling_size": 1000}
    report = results.build_report({"go": _impl(1.0)}, {}, sets, [], _floor(), runs)
    assert report["floor"]["capacity"]["writes_per_s"] == 1000.0


def test_spread_gives_median_min_and_max_of_the_runs() -> None:
    sets = {"sizes": [100, 1000], "max_concurrent_reconciles": 1, "scaling_size": 1000}
    res = _impl(1.0)
    res.loads.append(LoadRun("throughput", 100, 100, 5.0, 1.0, 200, _acc(400, 0)))
    res.loads.append(LoadRun("throughput", 100, 100, 1.0, 1.0, 200, _acc(400, 0)))
    report = results.build_report({"go": res}, {}, sets, [], _floor())
    spread = report["spread"]
    assert spread["go"]["throughput_s"]["100"] == {"median": 2.0, "min": 1.0, "max": 5.0, "runs": 3}
    assert spread["go"]["workers"]["1"] == {"median": 40.5, "min": 40.0, "max": 41.0, "runs": 2}
    assert spread["floor"]["throughput_s"]["1000"]["runs"] == 1
    assert report["implementations"]["go"]["throughput_s"]["100"] == 2.0
    assert "median" in tables.render_spread(report)


def test_object_and_event_writes_are_counted_apart() -> None:
    acc = RequestCounts(
        writes_ok=13,
        writes_by_kind={
            "create events": 4,
            "patch events": 1,
            "create deployments": 2,
            "create services": 2,
            "update modelservices": 2,
            "update modelservices/status": 2,
        },
    )
    assert (acc.event_writes, acc.object_writes) == (5, 8)
    res = ImplResults(loads=[LoadRun("throughput", 2, 2, 1.0, 0.5, 4, acc)])
    fig = results.figures_of(res)
    assert (fig["writes_per_object"], fig["object_writes_per_object"]) == (6.5, 4.0)
    assert fig["event_writes_per_object"] == 2.5


def test_the_last_bench_json_has_the_new_shape_and_nothing_beats_its_floor() -> None:
    """reports/bench.json, when ``make bench`` wrote one with the Go floor: the split writes,
    the spread, the capacity, and every implementation/floor ratio at least 1 (the floor must
    be a floor). Skipped without one, or with one from before the Go floor."""
    path = settings.DEFAULT_OUT
    if not path.exists():
        pytest.skip(f"no {path}: run make bench")
    report = json.loads(path.read_text())
    floor = report.get("floor") or {}
    if not str(floor.get("client", "")).startswith("go:"):
        pytest.skip(f"{path} is from before the Go floor client")
    for impl, fig in report["implementations"].items():
        for key in ("object_writes_per_object", "event_writes_per_object"):
            assert key in fig, f"{impl}.{key} missing"
    assert "spread" in report and "capacity" in floor
    assert results.floor_violations(report) == []
    assert results.floor_gaps(report) == []


def test_a_floor_ratio_or_run_the_settings_asked_for_and_missing_is_a_gap() -> None:
    sets = {
        "sizes": [100, 1000],
        "max_concurrent_reconciles": 1,
        "scaling_size": 1000,
        "scaling_workers": [1, 4],
        "throughput_repeats": 1,
        "scaling_repeats": 1,
    }
    report = results.build_report({"go": _impl(1.0), "python": _impl(2.0)}, {}, sets, [], _floor())
    assert results.floor_gaps(report) == []
    report = results.build_report(
        {"go": _impl(1.0)},
        {},
        {**sets, "sizes": [100, 500, 1000], "scaling_workers": [1, 4, 16]},
        [],
        _floor(),
    )
    assert results.floor_gaps(report) == [
        "go/floor throughput_s[500]",
        "go/floor workers[16]",
    ]
    report = results.build_report(
        {"go": _impl(1.0)}, {}, {**sets, "scaling_repeats": 3}, [], _floor()
    )
    assert "spread go workers[4]: 2 runs of 3" in results.floor_gaps(report)
    assert results.floor_gaps({**report, "floor": {}}) == []  # no floor run, nothing to miss
