"""Generated workloads without a cluster: what the strategies draw from the CRD's schema, the
case files, and the budget table (harness/generate/). The sequences themselves run on a
control plane in ``make generate-ci``."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from harness.explore.state import FINALIZER
from harness.faults.apiproxy.records import ProxyRequest, RequestLog
from harness.generate import cli, schema
from harness.generate.casefile import case_id, save_case
from harness.generate.lane import OracleFailure, TailLog
from harness.generate.machine import CaseError, World, case_implementations, read_case
from harness.generate.oracles import budget_bound, fired_allowance, quantities_as_values
from harness.generate.slots import shares
from harness.generate.world import BUDGET, NAME, OPS, STEP_FIELDS

SPEC = schema.spec_schema()
QUANTITY = re.compile(
    SPEC["properties"]["resources"]["properties"]["limits"]["additionalProperties"]["pattern"]
)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _admitted(spec: dict[str, Any]) -> list[str]:
    """What of ``spec`` the CRD's schema would refuse (empty: admitted)."""
    problems = []
    props = SPEC["properties"]
    for name in SPEC["required"]:
        if name not in spec:
            problems.append(f"{name} missing")
    for name, value in spec.items():
        sub = props[name]
        if sub.get("type") == "integer" and not sub["minimum"] <= value <= sub["maximum"]:
            problems.append(f"{name}={value}")
        if sub.get("type") == "string" and not 1 <= len(value) <= sub.get("maxLength", 10**9):
            problems.append(f"{name} length {len(value)}")
    for part in ("limits", "requests"):
        for key, q in ((spec.get("resources") or {}).get(part) or {}).items():
            if isinstance(q, str) and not QUANTITY.fullmatch(q):
                problems.append(f"{part}.{key}={q!r}")
    return problems


@FAST
@given(schema.spec_values())
def test_drawn_specs_are_what_the_schema_admits(spec: dict[str, Any]) -> None:
    assert _admitted(spec) == []


@FAST
@given(schema.spec_edits())
def test_drawn_edits_are_admitted_merge_patches(patch: dict[str, Any]) -> None:
    assert patch
    for name in SPEC["required"]:
        assert patch.get(name, "x") is not None, "a required field is never removed"
    assert (
        _admitted({"model": "m", "image": "i"} | {k: v for k, v in patch.items() if v is not None})
        == []
    )


@FAST
@given(schema.invalid_edits())
def test_invalid_edits_cross_a_bound_of_the_schema(patch: dict[str, Any]) -> None:
    (name, value), *_ = patch.items()
    sub = SPEC["properties"][name]
    if value is None:
        assert name in SPEC["required"]
    elif name == "resources":
        assert any(not QUANTITY.fullmatch(q) for part in value.values() for q in part.values())
    elif sub["type"] == "integer":
        assert not isinstance(value, int) or not sub["minimum"] <= value <= sub["maximum"]
    else:
        assert len(value) < sub["minLength"]


def test_the_spellings_the_api_server_rewrites_are_drawn() -> None:
    """1.5m (stored 2m) and 0.5Gi (stored 512Mi) are in the strategy's fixed spellings, and
    each of them is one the CRD's pattern admits."""
    assert {"1.5m", "0.5Gi", "1e3", ".5", "+1"} <= set(schema.QUANTITIES)
    assert all(QUANTITY.fullmatch(q) for q in schema.QUANTITIES)


def test_exponents_near_the_patterns_bound_are_drawn_and_one_past_it_refused() -> None:
    """The CRD's pattern admits at most two exponent digits (CONTRACT.md): the generator reads
    the bound from the pattern, draws spellings at it, and its invalid edits cross it."""
    assert schema.exponent_bound(QUANTITY.pattern) == 99
    admitted, refused = schema.exponent_spellings(QUANTITY.pattern)
    assert "1e-99" in admitted and "1e99" in admitted
    assert all(QUANTITY.fullmatch(q) for q in admitted)
    assert refused and not any(QUANTITY.fullmatch(q) for q in refused)
    assert schema.exponent_spellings(r"^[0-9]+([eE](\+|-)?[0-9]+)?$") == ((), ())
    bad = schema.invalid_edits().elements  # type: ignore[attr-defined]
    assert {"resources": {"limits": {"cpu": "1e100"}}} in bad

    def at_bound(spec: dict[str, Any]) -> bool:
        quantities = ((spec.get("resources") or {}).get("limits") or {}).values()
        return any(q in admitted for q in quantities)

    found = find(schema.spec_values(), at_bound, settings=settings(max_examples=2000))
    assert at_bound(found)


def test_an_unknown_construct_of_the_schema_is_named() -> None:
    with pytest.raises(schema.UnsupportedSchema, match=r"spec\.x"):
        schema.values({"type": "boolean"}, "spec.x")


@given(st.data())
@settings(max_examples=5, deadline=None)
def test_every_step_has_a_budget(data: st.DataObject) -> None:
    assert set(OPS) | {"quiet"} == set(BUDGET)
    assert BUDGET["create"] == 4, "the contract's floor: finalizer, Deployment, Service, status"
    assert data.draw(st.sampled_from(OPS)) in BUDGET


def _logged(
    rid: int,
    verb: str,
    resource: str,
    code: int = 200,
    sub: str = "",
    reason: str = "",
    crash: str = "",
) -> ProxyRequest:
    """One operator write as its API proxy logs it; ``reason`` set: answered by the proxy."""
    return ProxyRequest(
        id=rid,
        start="",
        time="",
        verb=verb,
        group="",
        resource=resource,
        subresource=sub,
        namespace="ns",
        name=NAME,
        code=code,
        audit_id="",
        injected=bool(reason),
        reason=reason,
        crash=crash,
    )


def test_a_fault_is_owed_where_it_fires_not_where_it_was_armed() -> None:
    # The create window of harness/generate/cases/fault-fires-windows-later.yaml: the crash
    # armed two steps before it at the finalizer, the 429 armed three quiet points before
    # at the adoption of the orphaned Deployment, then the refusal's status and the retry.
    window = [
        _logged(47, "update", "modelservices", crash="delivered"),
        _logged(59, "update", "deployments", 429, reason="TooManyRequests"),
        _logged(60, "update", "modelservices", sub="status"),
        _logged(63, "update", "deployments"),
        _logged(66, "update", "services"),
        _logged(67, "update", "modelservices", sub="status"),
    ]
    successful = [w for w in window if not w.injected]
    assert len(successful) == 5
    assert budget_bound(["create", "quiet"], window) == 4 + BUDGET["crash"] + BUDGET["fault"]
    # the windows that armed them, where neither fired, owe nothing for them
    assert budget_bound(["fault", "admission", "quiet"], []) == BUDGET["admission"]
    assert budget_bound(["delete", "crash", "quiet"], [_logged(45, "update", "modelservices")]) == 3


@pytest.mark.parametrize(
    ("write", "allowed"),
    [
        (_logged(1, "create", "services", 500, reason="InternalError"), BUDGET["fault"]),
        (_logged(1, "update", "deployments", 503, reason="ServiceUnavailable"), BUDGET["fault"]),
        (_logged(1, "update", "deployments", 409, reason="Conflict"), 0),  # no refusal
        (_logged(1, "update", "modelservices", 429, reason="TooManyRequests"), 0),  # finalizer
        (_logged(1, "update", "modelservices", 429, sub="status", reason="TooManyRequests"), 0),
        (_logged(1, "delete", "deployments", 500, reason="InternalError"), 0),  # no status
        (_logged(1, "update", "deployments", 0, reason="Frozen"), 0),  # a crash's, not a fault
        (_logged(1, "update", "modelservices", sub="status", crash="withheld"), BUDGET["crash"]),
        (_logged(1, "update", "deployments", 403), 0),  # the API server's refusal: no fault step
    ],
)
def test_what_a_fired_fault_allows(write: ProxyRequest, allowed: int) -> None:
    assert fired_allowance([write]) == allowed


def test_a_fault_on_a_write_refused_anyway_allows_the_real_refusal_back() -> None:
    """A spec whose Deployment the API server refuses (422), a 429 injected into one of its
    creates: the status names the 429, then the retry's 422 again (go wrote 10 for a bound of
    9 in a 200-sequence run: create, then nineteen faults)."""
    injected = _logged(5, "create", "deployments", 429, reason="TooManyRequests")
    refused = _logged(7, "create", "deployments", 422)
    admitted = _logged(7, "create", "deployments", 201)
    assert fired_allowance([refused, injected]) == BUDGET["fault"] + 1  # any order
    assert fired_allowance([injected, admitted]) == BUDGET["fault"]
    assert fired_allowance([injected]) == BUDGET["fault"]  # the retry not yet made


def test_a_status_reporting_an_injected_answer_owes_a_retry() -> None:
    from harness.generate.retries import INJECTED_MESSAGE, owes_retry

    m = {"status": {"conditions": [{"message": f"Failed: {INJECTED_MESSAGE} 429 for create"}]}}
    assert owes_retry(_lane(False, []), m) and owes_retry(_lane(True, []), m)


def test_a_failing_sequence_is_saved_as_a_readable_case(tmp_path: Path) -> None:
    world = World(settings=None, impls=[])  # type: ignore[arg-type]
    long: list[dict[str, Any]] = [
        {"op": "quiet"},
        {"op": "create", "spec": {"model": "m", "image": "srv"}},
    ]
    short = long[1:]
    world.failing = [
        (long, OracleFailure("python", "quiet", "still writing")),
        (short, OracleFailure("python", "quiet", "still writing")),
    ]
    path = save_case(tmp_path, world, 7)
    assert path is not None and path.name == f"{case_id(short, 'python')}.yaml"
    case = yaml.safe_load(path.read_text())
    assert case["steps"] == short and case["seed"] == 7 and case["oracle"] == "quiet"
    assert case["implementation"] == "python" and case["message"] == "still writing"


def test_nothing_failed_saves_nothing(tmp_path: Path) -> None:
    assert save_case(tmp_path, World(settings=None, impls=[]), 1) is None  # type: ignore[arg-type]
    assert not tmp_path.joinpath("x").exists()


def test_the_ci_sample_is_a_fixed_seed() -> None:
    args = cli.build_parser().parse_args(["--ci"])
    assert args.ci and cli.CI_SEED and cli.CI_SEQUENCES >= 1


def test_level_triggered_compares_a_deployment_quantity_by_value_and_keeps_the_rest() -> None:
    def world(memory: str) -> dict[str, Any]:
        resources = {"requests": {"memory": memory, "cpu": "not-a-quantity"}}
        container = {"name": "server", "image": "srv:1", "resources": resources}
        return {
            "deployments": {"gen": {"spec": {"template": {"spec": {"containers": [container]}}}}}
        }

    # A respelling the operator does not write (equal values) is not a difference ...
    assert quantities_as_values(world("500e6")) == quantities_as_values(world("500M"))
    # ... a changed value is, and the world given is not changed.
    given = world("500e6")
    assert quantities_as_values(given) != quantities_as_values(world("501M"))
    assert given == world("500e6")


def _reporting(reason: str) -> dict[str, Any]:
    """A ModelService whose Ready condition has ``reason``."""
    return {"status": {"conditions": [{"type": "Ready", "status": "False", "reason": reason}]}}


def test_a_refused_write_is_judged_by_its_report_not_its_world() -> None:
    """One rule for both causes of a refused write at the end (a policy still bound, the
    API server's validation of the final spec's child, refused-update-path.yaml): the worlds
    differ by the path and are not compared; a refusal the sequence reports must be reported
    by a fresh ModelService too. Without one, the worlds are compared."""
    from harness.generate.oracles import level_triggered_verdict as verdict

    kept: dict[str, Any] = {"deployments": {"gen": {"spec": {"replicas": 1}}}}
    none: dict[str, Any] = {"deployments": {}}
    ready, update, create = (
        _reporting("RolloutComplete"),
        _reporting("FailedUpdate"),
        _reporting("FailedCreate"),
    )
    for refusing in (True, False):  # a policy still bound, or validation's refusal
        # the Deployment of before kept, a fresh one refused: the same report, no failure
        assert verdict(refusing, update, create, kept, none) is None
        # the sequence reports a refusal the fresh ModelService does not: a divergence
        failed = verdict(refusing, update, ready, kept, kept)
        assert failed and "reports a refused child write" in failed
    # a bound policy the sequence owed no write under: nothing reported, nothing compared
    assert verdict(True, ready, create, kept, none) is None
    # no policy and no report: the worlds are compared
    assert verdict(False, ready, ready, kept, kept) is None
    failed = verdict(False, ready, create, kept, none)
    assert failed and "differs from a fresh ModelService's" in failed


# ------------------------------------------------- the played rollout and the status oracle
def _played(phase: str, replicas: int | None = 2) -> dict[str, Any]:
    from harness.generate import world

    dep: dict[str, Any] = {"metadata": {"name": "gen", "generation": 3}, "spec": {}}
    if replicas is not None:
        dep["spec"]["replicas"] = replicas
    world._rollout(phase, None, dep)
    return dep


def test_a_played_rollout_counts_the_replicas_the_modelservice_asks() -> None:
    """adopted-orphan-status-count.yaml: an adopted orphan still at 321 replicas in one lane
    and already set to the 2 asked in the other got played statuses of 321 and of 2; the
    count asked is the same in every lane."""
    from harness.generate import world

    for replicas in (321, 2):
        dep: dict[str, Any] = {"metadata": {"name": "gen", "generation": 3}, "spec": {}}
        dep["spec"]["replicas"] = replicas
        world._rollout("lagging", 2, dep)
        assert dep["status"]["availableReplicas"] == 2 and dep["status"]["replicas"] == 2


@pytest.mark.parametrize(
    ("phase", "ready", "progressing"),
    [
        ("lagging", ("False", "ReplicasUnavailable"), ("True", "RolloutInProgress")),
        ("updating", ("False", "ReplicasUnavailable"), ("True", "RolloutInProgress")),
        ("old-pending", ("False", "ReplicasUnavailable"), ("True", "RolloutInProgress")),
        ("unavailable", ("False", "ReplicasUnavailable"), ("True", "RolloutInProgress")),
        ("stalled", ("False", "ProgressDeadlineExceeded"), ("False", "ProgressDeadlineExceeded")),
        ("complete", ("True", "ReplicasAvailable"), ("False", "RolloutComplete")),
    ],
)
def test_each_played_phase_calls_for_its_contract_row(
    phase: str, ready: tuple[str, str], progressing: tuple[str, str]
) -> None:
    from harness.generate.relation import rollout

    row = rollout(_played(phase))
    assert (row.ready, row.progressing) == (ready, progressing)


def test_updating_is_what_an_availability_judge_calls_ready() -> None:
    """The phase the pre-faults operators (and mutant ready-when-available) got wrong: every
    replica available, one still of the old template. Replicas absent count as 1."""
    dep = _played("updating")
    st_ = dep["status"]
    assert st_["availableReplicas"] == 2 and st_["updatedReplicas"] == 1
    from harness.generate.relation import rollout

    assert rollout(_played("complete", replicas=None)).ready == ("True", "ReplicasAvailable")
    assert rollout(_played("updating", replicas=None)).ready == ("False", "ReplicasUnavailable")


def test_operator_root_starts_another_checkouts_sources(tmp_path: Path) -> None:
    from harness.operators import load_implementations

    (tmp_path / "go_reference").mkdir()
    (tmp_path / "python_operator").mkdir()
    impls = load_implementations()
    go, py = cli.rooted(impls["go"], tmp_path), cli.rooted(impls["python"], tmp_path)
    assert go.workdir == tmp_path / "go_reference" and go.build[:3] == ("go", "build", "-o")
    assert go.command == (go.build[3],) and go.command != impls["go"].command
    assert py.workdir == tmp_path and py.command == impls["python"].command
    with pytest.raises(Exception, match="no go_reference"):
        cli.rooted(impls["go"], tmp_path / "missing")


def test_every_case_file_replays_known_steps() -> None:
    """The case files under harness/generate/cases name implementations and only steps
    ``apply_step`` knows, with the fields it reads, so ``python -m harness replay`` can run
    each of them."""
    folder = Path(cli.__file__).parent / "cases"
    files = sorted(folder.glob("*.yaml"))
    assert files
    for f in files:
        case = read_case(f)
        assert case_implementations(case), f.name
        assert [s["op"] for s in case["steps"] if s["op"] not in (*OPS, "quiet")] == []


def test_every_op_has_its_fields_listed() -> None:
    assert set(STEP_FIELDS) == {*OPS, "quiet"}


CASE = "implementation: go\nsteps:\n- op: create\n  spec: {model: m, image: i}\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (None, "no such file"),
        ("", "is empty; a case file is a YAML mapping with implementation and steps"),
        ("a: [b\n", "not YAML (line 2, column 1: expected ',' or ']'"),
        ("- op: quiet\n", "not a case file"),
        ("{}\n", "not a case file"),
        ("implementation: [go]\nsteps: [{op: quiet}]\n", "implementation ['go'] is not"),
        ("implementation: go\n", "no steps"),
        ("implementation: go\nsteps: []\n", "no steps"),
        (CASE + "- op: frobnicate\n", "step 2: unknown op 'frobnicate'; known ops: create, "),
        (CASE + "- quiet\n", "step 2: 'quiet' is not a step"),
        (CASE + "- op: delete\n", "step 2: op delete needs policy"),
        (CASE + "- op: delete\n  policy: Later\n", "'Later' is not one of Background, "),
        (CASE + "- op: patch-spec\n  patch: 3\n", "op patch-spec: patch must be a dict"),
    ],
)
def test_a_case_file_replay_cannot_run_is_refused_naming_why(
    text: str | None, says: str, tmp_path: Path
) -> None:
    path = tmp_path / "case.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(CaseError) as caught:
        read_case(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and says in message and "\n" not in message


def test_a_folder_is_not_a_case_file(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="is a folder; give one case file"):
        read_case(tmp_path)


def _replay_problem(tmp_path: Path, text: str, *argv: str) -> str | None:
    path = tmp_path / "case.yaml"
    path.write_text(text)
    return cli.replay_problem(cli.replay_parser().parse_args([str(path), *argv]))


def test_replay_names_the_known_implementations_for_an_unknown_one(tmp_path: Path) -> None:
    said = _replay_problem(tmp_path, CASE.replace("go", "nosuch", 1)) or ""
    assert said.startswith("unknown implementation(s) ['nosuch']; known: go, python and the ")
    assert _replay_problem(tmp_path, CASE) is None
    assert "['nosuch']" in (_replay_problem(tmp_path, CASE, "--impl", "nosuch") or "")
    assert "names no implementation" in (_replay_problem(tmp_path, "steps: [{op: quiet}]") or "")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--impl", "nosuch"], "unknown implementation(s) ['nosuch']; known: go, python"),
        (["--sequences", "0"], "--sequences 0: give a number of at least 1"),
        (["--sequences", "-3"], "--sequences -3: give a number of at least 1"),
        (["--steps", "0"], "--steps 0: give a number of at least 1"),
        (["--jobs", "0"], "--jobs 0: give a number of at least 1"),
        (["--parallel", "0"], "--parallel 0: give a number of sequences at once of at least 1"),
        (["--operator-root", "/no/such/checkout"], "--operator-root /no/such/checkout: no such"),
    ],
)
def test_generate_refuses_arguments_it_would_fail_on_after_starting(
    argv: list[str], says: str
) -> None:
    assert says in (cli.generate_problem(cli.build_parser().parse_args(argv)) or "")


def test_generate_accepts_its_defaults_and_ci() -> None:
    assert cli.generate_problem(cli.build_parser().parse_args([])) is None
    assert cli.generate_problem(cli.build_parser().parse_args(["--ci", "--steps", "0"])) is None


def _write(n: int, code: int, at: str, resource: str = "deployments") -> Any:
    from harness.faults.apiproxy.records import ProxyRequest

    return ProxyRequest(
        id=n, start=at, time=at, verb="update", group="apps", resource=resource,
        subresource="", namespace="ns", name="gen", code=code, audit_id="",
    )  # fmt: skip


def _lane(refusing: bool, records: list[Any]) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(
        refusing=refusing,
        sequence_from=0,
        process_from=0,
        log=SimpleNamespace(records=lambda after=0: records),
    )


def test_a_reported_refusal_of_a_removed_policy_owes_a_retry() -> None:
    """refused-then-admitted.yaml: a lane whose status still reports its policy's refusal once
    the policy is gone is not at rest (its retry is queued), whatever it last wrote."""
    from harness.generate.retries import owes_retry
    from harness.generate.world import POLICY_MESSAGE

    reported = {
        "status": {
            "conditions": [
                {"type": "Ready", "reason": "FailedUpdate", "message": f"x: {POLICY_MESSAGE}"}
            ]
        }
    }
    assert owes_retry(_lane(False, []), reported)
    assert not owes_retry(_lane(True, []), reported)  # still refused: retries cannot succeed
    other = {
        "status": {"conditions": [{"type": "Ready", "reason": "FailedUpdate", "message": "422"}]}
    }
    assert not owes_retry(_lane(False, []), other)  # a refusal no step lifts


def test_the_retry_is_due_after_the_backoff_of_the_failures_in_a_row() -> None:
    """5 ms doubling per failure in a row (client-go's default controller rate limiter),
    counted from the proxy's log; a successful child write starts the count again."""
    from harness.faults.apiproxy.records import seconds
    from harness.generate.retries import retry_due

    t = [f"2026-01-01T00:00:0{i}Z" for i in range(6)]
    assert retry_due(_lane(False, [])) == 0.0
    assert retry_due(_lane(False, [_write(1, 403, t[0]), _write(2, 200, t[1])])) == 0.0
    failed = [_write(1, 200, t[0]), *(_write(n, 403, t[n]) for n in range(1, 5))]
    assert retry_due(_lane(False, failed)) == seconds(t[4]) + 0.005 * 2**3
    many = [_write(n, 403, t[5]) for n in range(1, 40)]
    assert retry_due(_lane(False, many)) == seconds(t[5]) + 1000.0


def _req(rid: int, verb: str = "update", code: int = 200) -> str:
    return json.dumps(
        {
            "t": "req",
            "id": rid,
            "verb": verb,
            "resource": "deployments",
            "namespace": "gen-go",
            "name": NAME,
            "code": code,
            "time": "2026-01-01T00:00:00.5Z",
            "start": "2026-01-01T00:00:00Z",
        }
    )


def test_the_lane_reads_its_proxy_log_as_it_grows(tmp_path: Path) -> None:
    """TailLog parses only what was appended; a line without its newline waits for it."""
    path = tmp_path / "requests.jsonl"
    log = TailLog(path)
    assert log.records() == [] and log.last_id() == 0  # no file yet
    path.write_text(_req(1) + "\n" + _req(2)[:20])
    assert [r.id for r in log.records()] == [1] and log.last_id() == 1
    with path.open("a") as f:
        f.write(_req(2)[20:] + "\n" + _req(3, code=409) + "\n")
    assert [r.id for r in log.records()] == [1, 2, 3]
    assert [r.id for r in log.records(after=1)] == [2, 3] and log.last_id() == 3
    assert [(r.id, r.code) for r in log.records(after=2)] == [(3, 409)]
    assert log.records() == RequestLog(path).records()  # the whole-file reader's answer


def test_sequences_are_shared_out_over_the_slots() -> None:
    assert shares(5, 2) == [3, 2] and shares(1, 3) == [1] and shares(4, 4) == [1, 1, 1, 1]
    with pytest.raises(ValueError):
        shares(0, 2)


def test_the_slots_phases_are_summed_in_generated_json() -> None:
    one = {"quiet:wait": {"seconds": 2.0, "count": 1}, "safety": {"seconds": 0.5, "count": 2}}
    two = {"quiet:wait": {"seconds": 4.0, "count": 3}}
    merged = cli.merge(
        [{"phases": one, "seed": 1}, {"phases": two, "seed": 2}], 1, 9.0, Path("cases")
    )
    assert merged["phases"]["quiet:wait"] == {"seconds": 6.0, "count": 4, "mean": 1.5}
    assert list(merged["phases"]) == ["quiet:wait", "safety"]  # largest first


def test_the_lanes_act_at_once_and_every_failure_is_kept() -> None:
    """World.each: results in order; every call ends; OracleFailures joined (``also``); a
    harness error wins over an oracle's."""
    from concurrent.futures import ThreadPoolExecutor

    world = World(settings=None, impls=[])  # type: ignore[arg-type]
    world._pool = ThreadPoolExecutor(max_workers=3)
    try:
        assert world.each(lambda n: n * 2, [1, 2, 3]) == [2, 4, 6]

        def judged(impl: str) -> None:
            raise OracleFailure(impl, "quiet", "still writing")

        with pytest.raises(OracleFailure) as failed:
            world.each(judged, ["go", "python"])
        assert failed.value.impl == "go" and [e.impl for e in failed.value.also] == ["python"]

        def broken(impl: str) -> None:
            if impl == "python":
                raise RuntimeError("the harness")
            judged(impl)

        with pytest.raises(RuntimeError):
            world.each(broken, ["go", "python"])
    finally:
        world._pool.shutdown()


class _RetryingLane:
    """A lane whose ModelService reports its removed policy's refusal until ``at`` (epoch
    seconds), when its operator's retry writes and clears it: what the quiet oracle waits on."""

    sim, event_delay, window_from, sequence_from, refusing, ns = False, 0.0, 0, 0, False, "gen-go"
    process_from = 0

    def __init__(self, failed_at: float, at: float) -> None:
        from types import SimpleNamespace

        from harness.generate.world import POLICY_MESSAGE

        self.at, self.impl = at, SimpleNamespace(id="go")
        self.failed = [_write(1, 403, _iso(failed_at))]
        self.log = SimpleNamespace(records=lambda after=0: self.failed)
        self.refused = {"conditions": [{"type": "Ready", "message": f"x {POLICY_MESSAGE}"}]}
        self.admin = SimpleNamespace(get=lambda *_: {"status": self.status()})

    def status(self) -> dict[str, Any]:
        return {} if time.time() >= self.at else self.refused

    def handle_crash(self) -> bool:
        return False

    def writes(self, after: int = 0) -> list[Any]:
        return [_write(2, 200, _iso(self.at))] if time.time() >= self.at else []


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_the_quiet_window_after_an_owed_retry_gets_its_time(monkeypatch: Any) -> None:
    """A retry the backoff puts past the convergence bound, coming on time: the lane must be
    given its quiet window after it. The bound that ended with the refusal's report failed
    both operators right after such a retry ("converged but writing")."""
    from harness.generate import oracles, retries
    from harness.generate.lane import Settings

    # margins of 1.5 s, not of one poll: the verdict must hold on a loaded machine
    settings = Settings(control_plane=None, workdir=Path("."), quiet=0.3, quiet_timeout=1.8)  # type: ignore[arg-type]
    now = time.time()
    # one failure: its retry due 5 ms after it, 2.2 s from now, past the 1.8 s bound
    lane = _RetryingLane(failed_at=now + 2.2 - 0.005, at=now + 2.2)
    monkeypatch.setattr(
        oracles, "converged", lambda ln: not retries.owes_retry(ln, {"status": ln.status()})
    )
    oracles.wait_quiet(lane, settings)  # type: ignore[arg-type]
    assert time.time() >= now + 2.2 + 0.3  # it waited for the retry and the window after it
    late = _RetryingLane(failed_at=now - 0.005, at=time.time() + 5.0)  # never retried in time
    with pytest.raises(OracleFailure, match="not converged"):
        oracles.wait_quiet(late, settings)  # type: ignore[arg-type]


class _FaultArmedLane:
    """A lane at rest whose operator's last write was refused at ``failed_at`` (its retry due
    5 ms later) while a fault armed on its proxy has not fired (``fired``)."""

    sim, event_delay, window_from, sequence_from, refusing, ns = False, 0.0, 0, 0, True, "gen-go"
    process_from = 0
    fault_armed, crash_armed = True, False

    def __init__(self, failed_at: float, fired: bool) -> None:
        from types import SimpleNamespace

        self.impl = SimpleNamespace(id="go")
        self.log = SimpleNamespace(records=lambda after=0: [_write(1, 403, _iso(failed_at))])
        self.admin = SimpleNamespace(get=lambda *_: {"metadata": {}, "status": {}})
        faults = {"write_faults": [{"action": "status", "code": 500, "fired": fired}]}
        self.proxy = SimpleNamespace(faults=lambda: faults)

    def handle_crash(self) -> bool:
        return False

    def writes(self, after: int = 0) -> list[Any]:
        return []


def test_a_retry_that_will_meet_an_armed_fault_is_waited_for(monkeypatch: Any) -> None:
    """Stop 47's nightly (python-526a8f11d5): go at rest under a refusal, its retry due 2.57 s
    after the last refusal, a 500 and a crash armed for its next write. The 2 s window passed
    before the retry, and go's world was read as that retry's status write landed. With a
    fault armed and not fired, the window outlasts the retry's due time; with none (or one
    fired), a retry that meets the same refusal changes nothing and is not waited for."""
    from harness.generate import oracles
    from harness.generate.lane import Settings

    settings = Settings(control_plane=None, workdir=Path("."), quiet=0.3, quiet_timeout=5.0)  # type: ignore[arg-type]
    monkeypatch.setattr(oracles, "converged", lambda ln: True)
    now = time.time()
    oracles.wait_quiet(_FaultArmedLane(now + 1.5 - 0.005, fired=False), settings)  # type: ignore[arg-type]
    assert time.time() >= now + 1.5 + 0.3  # the retry's due time, and a window after it
    now = time.time()
    oracles.wait_quiet(_FaultArmedLane(now + 1.5 - 0.005, fired=True), settings)  # type: ignore[arg-type]
    assert time.time() < now + 1.5  # the fault fired already: nothing to wait for


#: A Deployment of ModelService uid ``u`` whose rollout is complete at 2 replicas.
_DEPLOYMENT: dict[str, Any] = {
    "metadata": {
        "name": "gen",
        "generation": 1,
        "ownerReferences": [{"controller": True, "kind": "ModelService", "uid": "u"}],
    },
    "spec": {"replicas": 2},
    "status": {
        "observedGeneration": 1,
        "replicas": 2,
        "updatedReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
    },
}

#: A ModelService whose status follows ``_DEPLOYMENT`` (relation.status_problems: none).
_FOLLOWING: dict[str, Any] = {
    "metadata": {"generation": 4, "uid": "u", "finalizers": [FINALIZER]},
    "status": {
        "observedGeneration": 4,
        "replicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "conditions": [
            {
                "type": t,
                "status": st,
                "reason": r,
                "message": 'Deployment "gen" has 2/2 available replicas',
            }
            for t, st, r in (
                ("Ready", "True", "ReplicasAvailable"),
                ("Progressing", "False", "RolloutComplete"),
            )
        ],
    },
}

#: ``_FOLLOWING`` one replica behind its Deployment.
_LAGGING: dict[str, Any] = {
    **_FOLLOWING,
    "status": {**_FOLLOWING["status"], "replicas": 1, "readyReplicas": 1, "availableReplicas": 1},
}


def _admin_lane(records: list[Any], dep: dict[str, Any]) -> Any:
    """``_lane`` whose API server (``admin``) holds the Deployment ``dep``."""
    from types import SimpleNamespace

    lane = _lane(False, records)
    lane.ns = "ns"
    lane.admin = SimpleNamespace(get=lambda res, ns, name: dep if res == "deployments" else None)
    return lane


def test_a_failed_answer_to_the_modelservice_write_owes_a_retry() -> None:
    """Stop 45's nightly: a 500 injected into go's status write after 18 refused Deployment
    creates; the status still reported the 422 of before (a refusal no step lifts), so no
    retry was owed and the quiet oracle failed go after 60 s, with the retry by the backoff
    1000 s away. The failed answer to the ModelService write owes the retry, and counts as
    a failed attempt; a status write that succeeds does not end the count, but ends what is
    owed; a crash's frozen write (no answer) owes nothing."""
    from dataclasses import replace

    from harness.faults.apiproxy.records import seconds
    from harness.generate.retries import owes_retry, own_write_failed, retry_due

    t = [f"2026-01-01T00:00:0{i}Z" for i in range(8)]
    refused = [_write(n, 422, t[n]) for n in range(1, 4)]
    status_ok = replace(_write(4, 200, t[4], "modelservices"), subresource="status")
    status_injected = replace(_write(5, 500, t[5], "modelservices"), injected=True)
    reported = {
        "metadata": {"generation": 5},
        "status": {
            "observedGeneration": 4,
            "conditions": [{"reason": "FailedCreate", "message": "422"}],
        },
    }
    lane = _admin_lane([*refused, status_ok, status_injected], _DEPLOYMENT)
    assert own_write_failed(lane) and owes_retry(lane, reported)  # behind its generation
    # Not behind: owed only when the ModelService is provably not what the operator must make
    # it. A status that does not follow its Deployment (stop 47's second nightly: a 500 on a
    # status write, replicas 725 where the Deployment had 726) or our finalizer missing: owed.
    # A status that follows: nothing owed, for the retry finds nothing to write and leaves no
    # trace to wait for, after a 500 (stop 48's nightly: an injected 500 answered go's stale
    # second status write) as after a 409 (a stale cache's status write; generate-ci).
    assert not owes_retry(lane, _FOLLOWING)
    assert owes_retry(lane, _LAGGING)
    unfinalized = {**_FOLLOWING, "metadata": {**_FOLLOWING["metadata"], "finalizers": []}}
    assert owes_retry(lane, unfinalized)
    conflict = replace(_write(5, 409, t[5], "modelservices"), subresource="status")
    stale = _admin_lane([*refused, status_ok, conflict], _DEPLOYMENT)
    assert not owes_retry(stale, _FOLLOWING) and owes_retry(stale, _LAGGING)
    deleting = {
        "metadata": {**_FOLLOWING["metadata"], "deletionTimestamp": "x"},
        "status": _FOLLOWING["status"],
    }
    assert owes_retry(lane, deleting)  # a finalizer removal that failed
    # Two rollout rows share status, reason and counts, and only the message tells them
    # apart: a Deployment at 1 of 2 updated replicas, a status still saying "waiting for the
    # deployment controller" (the lagging phase's), after a 500 on its status write: owed.
    updating = {
        **_DEPLOYMENT,
        "status": {**_DEPLOYMENT["status"], "updatedReplicas": 1},
    }
    waiting = 'Deployment "gen" is waiting for the deployment controller to observe its latest spec'
    said_waiting = {
        **_FOLLOWING,
        "status": {
            **_FOLLOWING["status"],
            "conditions": [
                {
                    "type": "Ready",
                    "status": "False",
                    "reason": "ReplicasUnavailable",
                    "message": waiting,
                },
                {
                    "type": "Progressing",
                    "status": "True",
                    "reason": "RolloutInProgress",
                    "message": waiting,
                },
            ],
        },
    }
    assert owes_retry(_admin_lane([*refused, status_ok, status_injected], updating), said_waiting)
    # A child's write failed, not reported (an injected 409 on a create is a conflict,
    # retried): owed while the status is behind its generation (stop 48's nightly, case
    # go-60abdf603f: the retry 160 s away by the backoff), not once it has caught up.
    create_conflict = replace(_write(5, 409, t[5]), verb="create", injected=True)
    unreported = _admin_lane([*refused, status_ok, create_conflict], _DEPLOYMENT)
    assert owes_retry(
        unreported, {**_FOLLOWING, "metadata": {**_FOLLOWING["metadata"], "generation": 5}}
    )
    assert not owes_retry(unreported, _FOLLOWING)
    assert retry_due(lane) == seconds(t[5]) + 0.005 * 2**3  # 3 refused + the injected one
    before = _lane(False, [*refused, status_ok])  # the status written: nothing owed
    caught_up = {"metadata": {"generation": 4}, "status": reported["status"]}
    assert not own_write_failed(before) and not owes_retry(before, caught_up)
    assert owes_retry(before, reported)  # behind its generation, the child's retry to come
    assert retry_due(before) == seconds(t[3]) + 0.005 * 2**2  # the 200 did not reset it
    # the retry came: a successful write after the failed one (here a child's)
    retried = _lane(False, [*refused, status_injected, _write(6, 200, t[6])])
    assert not own_write_failed(retried) and retry_due(retried) == 0.0
    # or a refused one: the retry's reconcile found the status right and failed on the
    # child (a slot of the first nightly with this rule waited forever on it)
    refused_again = _lane(False, [*refused, status_injected, _write(6, 422, t[6])])
    assert not own_write_failed(refused_again)
    assert retry_due(refused_again) == seconds(t[6]) + 0.005 * 2**4
    frozen = replace(_write(7, 0, t[7], "modelservices"), injected=True)  # may have landed
    assert not own_write_failed(_lane(False, [*refused, status_ok, frozen]))
    # only the current sequence's records are read
    assert not own_write_failed(_sequence_lane([status_injected], after=5))


def _sequence_lane(records: list[Any], after: int) -> Any:
    """A lane whose sequence began after record ``after``: its log answers ``records(after)``
    with the records above it."""
    from types import SimpleNamespace

    def read(since: int = 0) -> list[Any]:
        return [r for r in records if r.id > since]

    return SimpleNamespace(
        refusing=False, sequence_from=after, process_from=0, log=SimpleNamespace(records=read)
    )


def test_a_wait_moved_out_by_owed_retries_is_capped() -> None:
    """``retries.extended``: a bound moves a deadline out, never past the start plus the
    backoff's cap and twice the convergence bound (a nightly slot of stop 45 waited 35
    minutes on a due time that each refused retry moved on)."""
    from types import SimpleNamespace

    from harness.generate.retries import BACKOFF_MAX_S, extended

    s = SimpleNamespace(quiet_timeout=60.0)
    now = time.monotonic()
    assert extended(now + 60, now, None, s) == now + 60  # type: ignore[arg-type]
    later = extended(now + 60, now, time.time() + 300, s)  # type: ignore[arg-type]
    assert now + 299 < later < now + 301
    assert extended(now + 60, now, time.time() + 10, s) == now + 60  # type: ignore[arg-type]
    capped = extended(now + 60, now, time.time() + 10 * BACKOFF_MAX_S, s)  # type: ignore[arg-type]
    assert capped == now + BACKOFF_MAX_S + 120


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (
            {"observedGeneration": 1},
            "is waiting for the deployment controller to observe its latest spec",
        ),
        (
            {
                "observedGeneration": 2,
                "conditions": [
                    {"type": "Progressing", "reason": "ProgressDeadlineExceeded", "message": "slow"}
                ],
            },
            "exceeded its progress deadline: slow",
        ),
        (
            {"observedGeneration": 2, "updatedReplicas": 1, "replicas": 1},
            "has 1/3 updated replicas",
        ),
        (
            {"observedGeneration": 2, "updatedReplicas": 3, "replicas": 5},
            "has 2 old replicas pending termination",
        ),
        (
            {"observedGeneration": 2, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 2},
            "has 2/3 updated replicas available",
        ),
        (
            {"observedGeneration": 2, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 3},
            "has 3/3 available replicas",
        ),
    ],
)
def test_the_rollout_message_is_the_contracts_row(status: dict[str, Any], message: str) -> None:
    """relation.rollout: each rollout row's message in CONTRACT.md's status table, first row
    that applies, for a Deployment "web" of generation 2 and 3 replicas."""
    from harness.generate.relation import rollout

    dep = {"metadata": {"name": "web", "generation": 2}, "spec": {"replicas": 3}, "status": status}
    assert rollout(dep).message == f'Deployment "web" {message}'


def test_a_long_rollout_message_is_cut_as_the_contract_cuts_it() -> None:
    """A stalled Deployment's condition message of 40,000 characters: the rollout message
    keeps its first 32752 characters and the marker, 32768 in all."""
    from harness.generate.relation import MESSAGE_MAX, TRUNCATED, rollout

    long = "x" * 40_000
    dep = {
        "metadata": {"name": "web", "generation": 1},
        "spec": {},
        "status": {
            "observedGeneration": 1,
            "conditions": [
                {"type": "Progressing", "reason": "ProgressDeadlineExceeded", "message": long}
            ],
        },
    }
    text = rollout(dep).message
    assert len(text) == MESSAGE_MAX and text.endswith(TRUNCATED)
    assert text.startswith('Deployment "web" exceeded its progress deadline: xxx')


def test_a_new_operator_process_counts_only_its_own_failures() -> None:
    """retries.history: a crash restarted the operator after its third refused write; the new
    process's rate limiter knows only its own two failures, so its retry is due 10 ms after
    the last (5 ms * 2**1), not 80 ms (the five of both processes). Stop 48's second
    nightly: counting the earlier process's failures put python's retry past the quiet
    oracle's deadline; the oracle did not wait for it and read python's world just as it
    landed (a flaky differential failure)."""
    from harness.faults.apiproxy.records import seconds
    from harness.generate.retries import history, retry_due

    t = [f"2026-01-01T00:00:0{i}Z" for i in range(6)]
    refused = [_write(n, 403, t[n]) for n in range(1, 6)]
    lane = _lane(True, refused)
    assert history(lane)[0] == 5
    lane.process_from = 3  # the new process started after record 3
    assert history(lane)[0] == 2
    assert retry_due(lane) == seconds(t[5]) + 0.005 * 2**1


def test_the_panic_oracle_reads_each_log_once_whole_lines_only(tmp_path: Path) -> None:
    """``oracles.new_panics``: the panics logged since the last call, in every operator log of
    the lane (one per process started), named by file and line; a line still being written is
    read once it ends; a restart's new log is read from its start."""
    from types import SimpleNamespace

    from harness.generate.oracles import new_panics

    panic = json.dumps(
        {
            "level": "error",
            "msg": "Observed a panic",
            "namespace": "gen-go",
            "name": "gen",
            "panic": "runtime error: invalid memory address or nil pointer dereference",
            "stacktrace": "goroutine 1 [running]:\nmain.finalize(...)\n\t/src/controller.go:322 +0x1d",
        }
    )
    log0 = tmp_path / "operator-0.log"
    log0.write_text('{"level":"info","msg":"Starting workers"}\n' + panic[:40])
    lane = SimpleNamespace(workdir=tmp_path, starts=1, panic_read={})
    assert new_panics(lane) == []  # type: ignore[arg-type]
    with log0.open("a") as f:
        f.write(panic[40:] + "\n" + '{"level":"info","msg":"Reconciler error"}\n')
    first = new_panics(lane)  # type: ignore[arg-type]
    assert len(first) == 1 and first[0].startswith(
        "operator-0.log:2: Observed a panic (gen-go/gen)"
    )
    assert new_panics(lane) == []  # type: ignore[arg-type]  # read once
    (tmp_path / "operator-1.log").write_text("panic: boom\n\ngoroutine 1 [running]:\n")
    lane.starts = 2
    assert new_panics(lane) == ["operator-1.log:1: panic: boom"]  # type: ignore[arg-type]
    with log0.open("a") as f:
        f.write(panic + "\n")
    assert [p.split(": ")[0] for p in new_panics(lane)] == ["operator-0.log:4"]  # type: ignore[arg-type]
