"""Implementations are declared in TOML files; a bad declaration names the file and field."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from harness.operators import (
    ImplementationError,
    OperatorProcess,
    get_implementation,
    load_implementations,
)
from harness.process import ProcessError


def test_default_implementations() -> None:
    impls = load_implementations()
    assert {"go", "python"} <= set(impls)
    assert impls["go"].user == "modeldock:go"
    assert impls["python"].command[1:] == ("-m", "python_operator")


def test_extra_file_adds_an_implementation(tmp_path: Path) -> None:
    f = tmp_path / "mine.toml"
    f.write_text('[kopf]\ntitle = "kopf"\ncommand = ["kopf", "run", "op.py"]\n')
    impl = get_implementation("kopf", [f])
    assert impl.command == ("kopf", "run", "op.py")
    assert impl.workdir == tmp_path


def test_missing_command_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('[broken]\ntitle = "x"\n')
    with pytest.raises(ImplementationError, match=r"bad.toml: \[broken\] needs command"):
        load_implementations([f])


def test_unknown_keys_are_refused_with_the_file_and_the_key(tmp_path: Path) -> None:
    f = tmp_path / "typo.toml"
    f.write_text('[other]\ncommand = ["x"]\nexpected_failure = {}\n')
    with pytest.raises(
        ImplementationError,
        match=r"typo.toml: \[other\] has unknown key expected_failure; the keys",
    ):
        load_implementations([f])


def test_mutants_file_refuses_unknown_keys(tmp_path: Path) -> None:
    from harness import mutants

    f = tmp_path / "mutants.toml"
    f.write_text('[x]\ncommand = ["x"]\ncaught-by = ["noop-stable"]\n')
    with pytest.raises(ValueError, match=r"\[x\] has unknown key caught-by"):
        mutants.declared(f)
    assert mutants.declared()  # the real file has none


def test_unknown_implementation_lists_the_known_ones() -> None:
    with pytest.raises(ImplementationError, match="declared: go, python"):
        get_implementation("rust")


def test_expected_failures_and_role_are_read(tmp_path: Path) -> None:
    (tmp_path / "role.yaml").write_text("kind: ClusterRole\n")
    f = tmp_path / "implementation.toml"
    f.write_text(
        '[other]\ncommand = ["op"]\nrole = "role.yaml"\n'
        '[other.expected_failures]\n"noop-stable" = "writes an annotation"\n'
        '"watch-recovers[api-restart]" = "gives up"\n'
    )
    impl = get_implementation("other", [f])
    assert impl.expected_failures == {
        "noop-stable": "writes an annotation",
        "watch-recovers[api-restart]": "gives up",
    }
    assert impl.role == (tmp_path / "role.yaml").resolve()
    defaults = load_implementations()
    assert all(i.expected_failures == {} and i.role is None for i in defaults.values())


@pytest.mark.parametrize(
    "table",
    [
        'expected_failures = ["noop-stable"]',
        'expected_failures = { "noop-stable" = "" }',
        'expected_failures = { "noop-stable" = 1 }',
    ],
)
def test_expected_failures_need_a_reason_each(tmp_path: Path, table: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(f'[other]\ncommand = ["op"]\n{table}\n')
    with pytest.raises(ImplementationError, match=r"bad.toml: \[other\] expected_failures"):
        load_implementations([f])


def test_an_expected_failure_may_be_declared_not_strict(tmp_path: Path) -> None:
    f = tmp_path / "implementation.toml"
    f.write_text(
        '[other]\ncommand = ["op"]\n[other.expected_failures]\n'
        '"child-repaired" = "never"\n'
        '"watch-recovers[compaction-410]" = { reason = "a race", strict = false }\n'
    )
    impl = get_implementation("other", [f])
    assert impl.expected_failures == {
        "child-repaired": "never",
        "watch-recovers[compaction-410]": "a race",
    }
    assert impl.unstrict_failures == {"watch-recovers[compaction-410]"}


#: Exposition as a Go operator serves it (controller-runtime's registry): the two polled
#: families among others with the same prefixes.
GO_METRICS = """\
# HELP controller_runtime_reconcile_errors_total Total number of reconciliation errors per controller
# TYPE controller_runtime_reconcile_errors_total counter
controller_runtime_reconcile_errors_total{controller="modelservice"} 2
# HELP controller_runtime_reconcile_time_seconds Length of time per reconciliation per controller
# TYPE controller_runtime_reconcile_time_seconds histogram
controller_runtime_reconcile_time_seconds_bucket{controller="modelservice",le="0.005"} 3
controller_runtime_reconcile_time_seconds_bucket{controller="modelservice",le="+Inf"} 7
controller_runtime_reconcile_time_seconds_sum{controller="modelservice"} 0.12
controller_runtime_reconcile_time_seconds_count{controller="modelservice"} 7
# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="modelservice",result="error"} 2
controller_runtime_reconcile_total{controller="modelservice",result="success"} 5
# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 42
# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{controller="modelservice",name="modelservice"} 1
# HELP workqueue_depth_seconds not a real metric: a longer name with the same prefix
# TYPE workqueue_depth_seconds histogram
workqueue_depth_seconds_bucket{name="modelservice",le="+Inf"} 9
workqueue_depth_seconds_sum{name="modelservice"} 1.5
workqueue_depth_seconds_count{name="modelservice"} 9
"""


def _parse(text: str) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {
        f"{s.name}{sorted(s.labels.items())}": s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_selected_families_parse_as_in_the_whole_text() -> None:
    """Handing the parser only the polled families' lines gives exactly their samples, as
    parsing everything does; the other families' lines are dropped."""
    from harness.operators import RECONCILE_TOTAL, WORKQUEUE_DEPTH, select_families

    def of(samples: dict[str, float], names: list[str]) -> dict[str, float]:
        return {k: v for k, v in samples.items() if any(k.startswith(n + "[") for n in names)}

    whole = _parse(GO_METRICS)
    for names in ([RECONCILE_TOTAL], [WORKQUEUE_DEPTH], [RECONCILE_TOTAL, WORKQUEUE_DEPTH]):
        part = _parse(select_families(GO_METRICS, names))
        assert of(part, names) == of(whole, names) != {}
    assert (
        sum(of(_parse(select_families(GO_METRICS, [RECONCILE_TOTAL])), [RECONCILE_TOTAL]).values())
        == 7
    )
    kept = select_families(GO_METRICS, [RECONCILE_TOTAL, WORKQUEUE_DEPTH])
    assert "go_goroutines" not in kept and "reconcile_time_seconds" not in kept
    assert "workqueue_depth_seconds" not in kept
    histogram = _parse(select_families(GO_METRICS, ["controller_runtime_reconcile_time_seconds"]))
    assert of(histogram, ["controller_runtime_reconcile_time_seconds_bucket"]) == of(
        whole, ["controller_runtime_reconcile_time_seconds_bucket"]
    )
    assert len(histogram) == 4


def test_a_suite_builds_its_implementation_and_the_parity_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One build for a suite (``build_for_suite``), which the run makes once and the plugin only
    when nobody did (``--modeldock-built``)."""
    from harness import operators

    built: list[str] = []
    monkeypatch.setattr(operators.Implementation, "run_build", lambda self: built.append(self.id))
    operators.build_for_suite("python")
    operators.build_for_suite("go")
    assert built == ["python", "go", "go", "python"]


def test_an_implementation_s_junit_file_is_named_in_one_place(tmp_path: Path) -> None:
    from harness import junit

    path = junit.suite_file(tmp_path, "kopf")
    assert path == tmp_path / "junit-kopf.xml"
    assert junit.implementation_of(path) == "kopf"
    assert junit.suite_name("kopf") == "modeldock-kopf"


#: the end of a fake operator: /readyz on HEALTH_PROBE_BIND_ADDRESS answers 200
_SERVES_READYZ = """
host, port = os.environ["HEALTH_PROBE_BIND_ADDRESS"].rsplit(":", 1)

class Ready(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()

http.server.HTTPServer((host, int(port)), Ready).serve_forever()
"""

_LOSES_FIRST_BIND = (
    """
import http.server, os, sys
marker = sys.argv[1]
if not os.path.exists(marker):
    open(marker, "w").close()
    print("manager stopped with an error: [Errno 98] Address already in use", flush=True)
    sys.exit(1)
"""
    + _SERVES_READYZ
)


def _binding_operator(tmp_path: Path, env: dict[str, str] | None = None) -> OperatorProcess:
    script = tmp_path / "op.py"
    script.write_text(_LOSES_FIRST_BIND)
    decl = tmp_path / "impl.toml"
    marker = tmp_path / "lost-once"
    decl.write_text(
        f'[binder]\ntitle = "binder"\ncommand = ["{sys.executable}", "{script}", "{marker}"]\n'
    )
    return OperatorProcess(
        impl=get_implementation("binder", [decl]),
        kubeconfig=tmp_path / "kubeconfig",
        namespace="ns",
        log_path=tmp_path / "operator.log",
        env=env or {},
    )


def test_a_start_that_lost_its_port_to_another_process_is_tried_once_more(tmp_path: Path) -> None:
    op = _binding_operator(tmp_path)
    before = (op.metrics_port, op.health_port)
    try:
        op.start(timeout=30)
        assert op.ready()
        assert (op.metrics_port, op.health_port) != before  # new ports for the second try
    finally:
        op.kill()


def test_a_port_a_case_chose_is_not_tried_again(tmp_path: Path) -> None:
    op = _binding_operator(tmp_path, {"HEALTH_PROBE_BIND_ADDRESS": "127.0.0.1:1"})
    with pytest.raises(ProcessError, match="Address already in use"):
        op.start(timeout=30)


def test_a_generator_lane_starts_again_an_operator_that_lost_its_port(tmp_path: Path) -> None:
    """A 1000-sequence nightly's slot ended a round on a python operator that exited at
    start, "METRICS_BIND_ADDRESS ... Address already in use": the lane starts a new process,
    with new ports, once (``generate.lane.Lane.start_operator``)."""
    from types import SimpleNamespace

    from harness.generate.lane import Lane

    binder = _binding_operator(tmp_path)
    proxy = SimpleNamespace(kubeconfig=tmp_path / "kubeconfig", request_log=tmp_path / "log")
    lane = Lane(binder.impl, None, "ns", proxy, tmp_path)  # type: ignore[arg-type]
    try:
        lane.start_operator()
        assert lane.op is not None and lane.op.ready() and lane.starts == 2
        assert lane.crashes == 0  # no crash was handled: the port race is not one
    finally:
        if lane.op is not None:
            lane.op.kill()


_BUSY_THREADS = (
    """
import http.server, os, threading

def spin():
    while True:
        pass

for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
"""
    + _SERVES_READYZ
)


def test_freeze_returns_once_every_thread_of_the_operator_is_stopped(tmp_path: Path) -> None:
    """``freeze`` is SIGSTOP plus the wait for state ``T`` in every thread (here three that
    spin on the CPU and one that serves /readyz): the check that strips a frozen operator's
    finalizer relies on no code of it running after ``freeze`` returns."""
    from harness.process import thread_states

    script = tmp_path / "op.py"
    script.write_text(_BUSY_THREADS)
    decl = tmp_path / "impl.toml"
    decl.write_text(f'[busy]\ntitle = "busy"\ncommand = ["{sys.executable}", "{script}"]\n')
    op = OperatorProcess(
        impl=get_implementation("busy", [decl]),
        kubeconfig=tmp_path / "kubeconfig",
        namespace="ns",
        log_path=tmp_path / "operator.log",
    )
    with pytest.raises(ProcessError, match="not running: nothing to freeze"):
        op.freeze()
    try:
        op.start(timeout=30)
        assert op.pid is not None and len(os.listdir(f"/proc/{op.pid}/task")) == 4
        assert "T" not in thread_states(op.pid)
        op.freeze()
        assert thread_states(op.pid) == {"T"}
        assert not op.ready()  # stopped: /readyz does not answer
        op.signal(signal.SIGCONT)
        op.wait_ready(10)
        assert "T" not in thread_states(op.pid)
    finally:
        op.kill()
    assert thread_states(op.pid) == set()
