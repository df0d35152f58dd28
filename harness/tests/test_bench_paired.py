"""Unit tests of harness.bench.paired (ratios to the floor run of the same round, CPU per
object) and of the bench's refusal of an audit window without writes. No API server."""

from __future__ import annotations

from typing import Any

import pytest

from harness.bench import paired, results, tables
from harness.bench.accounting import RequestCounts
from harness.bench.phases import BenchError, Runner
from harness.bench.results import FloorRun, ImplResults, LoadRun, WorkersRun

SETS = {
    "sizes": [100],
    "max_concurrent_reconciles": 1,
    "scaling_size": 1000,
    "scaling_workers": [4],
    "throughput_repeats": 3,
    "scaling_repeats": 2,
}


def _acc(ok: int) -> RequestCounts:
    return RequestCounts(requests=ok, writes_ok=ok)


def _cpu(operator: float, server: float) -> dict[str, Any]:
    return {
        "operator": operator,
        "operator_runqueue_s": 2 * operator,
        "kube-apiserver": server / 2,
        "etcd": server / 2,
        "wall": 1.0,
    }


def _impl(seconds: list[float], cpu: float) -> ImplResults:
    res = ImplResults()
    for rep, s in enumerate(seconds):
        res.loads.append(
            LoadRun(
                "throughput",
                100,
                100,
                s,
                1.0,
                200,
                _acc(600),
                round=rep,
                window_cpu=_cpu(cpu, 2.0),
            )
        )
    res.loads.append(
        LoadRun("latency", 10, 10, None, 5.0, 20, _acc(60), window_cpu=_cpu(cpu / 10, 0.2))
    )
    for rep, s in enumerate(seconds[:2]):
        res.workers_runs.append(
            WorkersRun(4, 1000, 10 * s, [], 1.0, 50.0, 2000, _acc(6000), {}, rep, _cpu(cpu, 9))
        )
    return res


def _floor(seconds: list[float]) -> list[FloorRun]:
    runs = [
        FloorRun(100, 1, s, s, 0.5, _acc(400), {"client_cpu_s": 0.05, "apiserver_cpu_s": 1.0}, rep)
        for rep, s in enumerate(seconds)
    ]
    runs += [
        FloorRun(1000, 4, 10 * s, 10 * s, 0.5, _acc(4000), {"client_cpu_s": 0.5}, rep)
        for rep, s in enumerate(seconds[:2])
    ]
    return runs


def test_each_round_is_compared_with_the_floor_runs_around_it() -> None:
    # round r's runs come after the floor's run r and before its run r + 1 (the last round:
    # before the closing run); the faster of the two is the bound
    assert paired.paired([(0, 2.0), (1, 2.0), (2, 1.5)], [(0, 1.0), (1, 3.0), (2, 1.5)]) == [
        2.0,  # 2 / min(1, 3)
        1.333,  # 2 / min(3, 1.5)
        1.0,  # 1.5 / 1.5, no closing run
    ]
    assert paired.paired([(0, 2.0)], [(0, 2.0), (1, 1.0)]) == [2.0]  # the run after it
    assert paired.paired([(0, 1.0), (5, 1.0)], [(0, 0.5), (1, 1.0), (5, 0.0)]) == [2.0]
    report = results.build_report(
        {"go": _impl([2.0, 3.0, 1.5], 1.0)}, {}, SETS, [], _floor([1.0, 2.0, 1.0])
    )
    assert report["ratios"]["go/floor"]["throughput_s"] == {"100": 2.0}  # 2, 3, 1.5
    assert report["spread"]["go/floor"]["throughput_s"]["100"] == {
        "median": 2.0,
        "min": 1.5,
        "max": 3.0,
        "runs": 3,
    }
    assert report["ratios"]["go/floor"]["workers"] == {"4": 1.75}  # 2 and 1.5
    assert results.floor_violations(report) == []
    assert results.floor_gaps(report) == []
    lost = results.build_report({"go": _impl([2.0, 3.0], 1.0)}, {}, SETS, [], _floor([1.0]))
    assert "spread go/floor throughput_s[100]: 1 runs of 3" in results.floor_gaps(lost)


def test_cpu_per_object_and_its_ratios() -> None:
    report = results.build_report(
        {"go": _impl([2.0, 2.0, 2.0], 1.0), "python": _impl([3.0, 3.0, 3.0], 1.5)},
        {},
        SETS,
        [],
        _floor([1.0, 1.0, 1.0]),
    )
    cpu = report["cpu"]
    assert cpu["ms_per_object"]["go"]["throughput"]["100"]["median"] == 10.0  # 1 s / 100
    assert cpu["ms_per_object"]["python"]["latency"]["median"] == 15.0  # 0.15 s / 10
    assert cpu["ms_per_object"]["floor"]["throughput"]["100"]["median"] == 0.5
    assert cpu["ms_per_object"]["floor"]["workers"]["4"]["median"] == 0.5
    assert cpu["server_ms_per_object"]["go"]["workers"]["4"]["median"] == 9.0
    assert cpu["server_ms_per_object"]["floor"]["throughput"]["100"]["median"] == 10.0
    assert cpu["ratios"]["python/go"] == {
        "latency": 1.5,
        "throughput": {"100": 1.5},
        "workers": {"4": 1.5},
    }
    assert cpu["ratios"]["go/floor"]["throughput"] == {"100": 20.0}
    assert cpu["runqueue_ms_per_object"]["python"]["throughput"]["100"]["median"] == 30.0
    assert "floor" not in cpu["runqueue_ms_per_object"]
    assert cpu["ratios"]["runqueue python/go"]["throughput"] == {"100": 1.5}
    text = tables.render_cpu(report)
    assert "python/go" in text and "N = 100" in text
    assert paired.cpu_figures({"go": ImplResults()}, [], 1, 1000) == {}


class _Log:
    def requests(self, start: int, end: int) -> list[Any]:
        return []


def test_an_audit_window_without_writes_is_an_error() -> None:
    runner = Runner.__new__(Runner)
    runner.audit = _Log()  # type: ignore[assignment]
    assert runner._window(0, 10, "u", "ns").writes_ok == 0  # a quiet period: fine
    with pytest.raises(BenchError, match="counted 0 writes"):
        runner._window(0, 10, "u", "ns", writes=True)


def test_a_py_spy_profile_is_summed_by_innermost_frame_and_owner() -> None:
    from harness.bench import profile

    raw = "\n".join(
        [
            "Thread 1 (idle);run (python_operator/runtime/worker.py:10);"
            "_call (python_operator/runtime/client.py:50);"
            "request (/v/urllib3/connectionpool.py:700) 6",
            "Thread 1;run (python_operator/runtime/worker.py:10);"
            "_call (python_operator/runtime/client.py:52) 3",
            "Thread 2;loop (python_operator/runtime/informer.py:5);"
            "loads (/usr/lib/python3.12/json/__init__.py:346) 1",
            "not a sample line",
        ]
    )
    stacks = profile.parse_raw(raw)
    assert sum(stacks.values()) == 10
    top = profile.top_frames(stacks, 2)
    assert [(f.frame, f.owner, f.own, f.total) for f in top] == [
        ("request (/v/urllib3/connectionpool.py)", "urllib3", 6, 6),
        ("_call (python_operator/runtime/client.py)", "operator", 3, 9),
    ]
    assert profile.by_owner(stacks) == {"urllib3": 0.6, "operator": 0.3, "json": 0.1}
    assert profile.owner_of("<module> (<frozen importlib._bootstrap>:1)") == "import"
