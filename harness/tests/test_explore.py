"""harness.explore without a cluster: the normalised state, the invariants, the plan of cases,
and the reports (JUnit readable by harness.junit, explore.json, the matrix)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness import junit
from harness.explore import results
from harness.explore.case import CaseResult, Perturbation
from harness.explore.run import Exploration, Plan, perturbations
from harness.explore.scenarios import SCENARIOS
from harness.explore.state import diff, invariants, snapshot
from harness.mutants import declared


class FakeKube:
    def __init__(self, objects: dict[str, list[dict[str, Any]]]) -> None:
        self.objects = objects

    def list(self, resource: str, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.objects.get(resource, [])


def world(
    ns: str,
    ms_uid: str = "u1",
    dep_owner: str = "u1",
    finalizers: tuple[str, ...] = ("modeldock.io/cleanup",),
) -> FakeKube:
    ref = {
        "kind": "ModelService",
        "name": "demo",
        "uid": dep_owner,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return FakeKube(
        {
            "modelservices": [
                {
                    "metadata": {
                        "name": "demo",
                        "uid": ms_uid,
                        "resourceVersion": "9",
                        "generation": 1,
                        "finalizers": list(finalizers),
                    },
                    "spec": {"replicas": 1},
                    "status": {
                        "url": f"http://demo.{ns}.svc:8000",
                        "conditions": [
                            {
                                "type": "Ready",
                                "status": "False",
                                "lastTransitionTime": "2026-01-01T00:00:00Z",
                            }
                        ],
                    },
                }
            ],
            "deployments": [
                {
                    "metadata": {
                        "name": "demo",
                        "uid": "d" + ms_uid,
                        "resourceVersion": "3",
                        "ownerReferences": [ref],
                    },
                    "spec": {"replicas": 1},
                }
            ],
            "services": [
                {
                    "metadata": {"name": "demo", "uid": "s" + ms_uid, "ownerReferences": [ref]},
                    "spec": {"clusterIP": "10.0.0.7", "ports": [{"port": 8000}]},
                }
            ],
        }
    )


def test_two_runs_in_different_namespaces_with_different_uids_compare_equal() -> None:
    a = snapshot(world("ns-a", "u1", "u1"), "ns-a")  # type: ignore[arg-type]
    b = snapshot(world("ns-b", "u2", "u2"), "ns-b")  # type: ignore[arg-type]
    assert diff(a, b) == []
    assert (
        a["deployments"]["demo"]["metadata"]["ownerReferences"][0]["owner"] == "ModelService/demo"
    )
    assert a["modelservices"]["demo"]["status"]["url"] == "http://demo.<ns>.svc:8000"
    assert "clusterIP" not in a["services"]["demo"]["spec"]
    assert invariants(a) == []


def test_a_child_of_a_vanished_owner_and_a_lost_finalizer_are_found() -> None:
    state = snapshot(world("ns", "u1", dep_owner="gone", finalizers=()), "ns")  # type: ignore[arg-type]
    problems = invariants(state)
    assert any("deployments/demo left behind" in p for p in problems), problems
    assert any("lacks its finalizer" in p for p in problems), problems
    lost = snapshot(world("ns"), "ns")  # type: ignore[arg-type]
    del lost["services"]["demo"]
    assert invariants(lost) == ["modelservices/demo has no service (child lost)"]
    clean = snapshot(world("ns"), "ns")  # type: ignore[arg-type]
    assert (
        "modelservices.demo.metadata.finalizers: expected ['modeldock.io/cleanup'], got []"
        in diff(clean, state)
    )


def test_every_boundary_gets_each_variant_then_the_extra_runs() -> None:
    ids = [p.id for p in perturbations(2, Plan(SCENARIOS))]
    assert ids == [
        "write-1-withheld",
        "write-1-delivered",
        "write-1-conflict",
        "write-2-withheld",
        "write-2-delivered",
        "write-2-conflict",
        "stale-view",
        "coalesced",
    ]
    assert [
        p.id
        for p in perturbations(5, Plan(SCENARIOS, variants=("withheld",), max_k=1, extra=False))
    ] == ["write-1-withheld"]
    assert len(SCENARIOS) >= 8
    # No stale view where the operator writes no child: there is no child event to delay.
    foreign = next(s for s in SCENARIOS if s.id == "foreign-child")
    assert [p.id for p in perturbations(1, Plan(SCENARIOS, max_k=1), foreign.extra)] == [
        "write-1-withheld",
        "write-1-delivered",
        "write-1-conflict",
        "coalesced",
    ]


def test_reports_are_readable_by_harness_junit(tmp_path: Path) -> None:
    exp = Exploration(
        "go",
        [
            CaseResult("go", "create", "clean", writes=["update modelservices demo 200"]),
            CaseResult(
                "go",
                "create",
                Perturbation("crash", 1, "withheld").id,
                outcome="failed",
                message="end state differs",
                details="x",
            ),
            CaseResult(
                "go", "create", "write-1-delivered", outcome="skipped", message="not reached"
            ),
            CaseResult("go", "create", "stale-view"),
        ],
        seconds=3.0,
    )
    path = results.write_junit(tmp_path / "junit-explore-go.xml", exp)
    cases = {c.name: c for c in junit.read_cases(path)}
    assert cases["explore[create@write-1-withheld]"].outcome == junit.FAILED
    assert cases["explore[create@write-1-withheld]"].verdict == "fail"
    assert cases["explore[create@write-1-delivered]"].outcome == junit.SKIPPED
    assert json.loads(cases["explore[create@clean]"].prop("writes") or "[]") == [
        "update modelservices demo 200"
    ]
    data = results.write_json(tmp_path / "explore.json", [exp])
    entry = data["implementations"]["go"]
    assert (entry["cases"], entry["survived"], entry["failed"]) == (
        2,
        1,
        ["explore[create@write-1-withheld]"],
    )
    table = results.matrix_markdown("go", entry["outcomes"], entry["clean_writes"])
    assert "| create | 1 | ✗·– | ✓ |  |" in table
    results.write_markdown(tmp_path / "explore.md", data)
    md = (tmp_path / "explore.md").read_text()
    assert md.startswith("# Exploration: a crash at every write boundary\n")
    assert "- `explore[create@write-1-withheld]` (oracle): end state differs" in md


def test_explore_only_mutants_name_their_killing_cases() -> None:
    only = {m: t for m, t in declared().items() if "explore" in t}
    assert len(only) >= 3
    scenario_ids = {s.id for s in SCENARIOS}
    for m, table in only.items():
        assert table["explore"], m
        for case in table["explore"]:
            scenario, _, pert = case.partition("@")
            assert scenario in scenario_ids and pert, (m, case)


def test_the_comparison_shows_the_exploration_matrix(tmp_path: Path) -> None:
    from harness.report.exploration import exploration
    from harness.report.markdown import explore_markdown

    exp = Exploration(
        "python",
        [
            CaseResult("python", "scale", "clean", writes=["a", "b"]),
            CaseResult("python", "scale", "write-2-conflict", outcome="failed", message="m"),
            CaseResult("python", "scale", "write-2-withheld"),
        ],
    )
    data = results.write_json(tmp_path / "explore.json", [exp])
    text = "\n".join(explore_markdown(exploration(data)))
    assert "### python: 1/2 survived" in text
    assert "| scale | 2 |  | ✓–✗ |  |  |" in text
    assert "`explore[scale@write-2-conflict]`" in text


def test_a_plan_of_named_cases_runs_their_scenarios_clean_first() -> None:
    plan = Plan.for_cases(
        SCENARIOS, ["create@write-2-withheld", "scale@write-1-conflict", "create@stale-view"]
    )
    assert [s.id for s in plan.scenarios] == ["create", "scale"]
    assert plan.only == ("create@write-2-withheld", "scale@write-1-conflict", "create@stale-view")


def test_python_nocrash_ignores_its_crash_points(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from harness.explore import nocrash
    from harness.operators import load_implementations
    from python_operator import controller

    for patch in nocrash.PATCHES:
        monkeypatch.setattr(patch.target, patch.name, patch.value)
    monkeypatch.setenv("MODELDOCK_CRASH_AT", "after-deployment")
    controller.crash_point("after-deployment")  # the real one would os._exit(86) here
    impl = load_implementations([Path(nocrash.__file__).with_name("nocrash.toml")])[
        "python-nocrash"
    ]
    assert impl.command[-1] == "harness.explore.nocrash"


def test_explorations_sharing_one_pool_overlap_and_stay_within_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`python -m harness explore` runs every implementation's (and mutant's) exploration in a
    thread of its own on one pool of case slots: the cases of both run, never more at once than
    the pool has slots, and one implementation's cases start before the other's clean runs
    end."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from harness.explore import run

    lock = threading.Lock()
    running: list[int] = [0, 0]  # now, most
    started: list[tuple[str, str]] = []

    def fake_case(settings, scenario, perturbation, state):  # type: ignore[no-untyped-def]
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
            started.append((settings.impl.id, perturbation.id))
        time.sleep(0.3 if perturbation.id == "clean" and settings.impl.id == "a" else 0.01)
        with lock:
            running[0] -= 1
        writes = ["update modelservices x 200"] if perturbation.id == "clean" else []
        return CaseResult(settings.impl.id, scenario.id, perturbation.id, writes=writes)

    monkeypatch.setattr(run, "run_case", fake_case)
    plan = Plan(SCENARIOS[:2], variants=("withheld",), extra=False)
    with ThreadPoolExecutor(3) as pool, ThreadPoolExecutor(2) as lanes:
        futures = [
            lanes.submit(run.explore, SimpleNamespace(impl=SimpleNamespace(id=i)), plan, pool=pool)  # type: ignore[arg-type]
            for i in ("a", "b")
        ]
        explorations = [f.result() for f in futures]
    assert [len(e.cases) for e in explorations] == [4, 4]  # 2 clean + 2 at write 1
    assert running[1] <= 3
    first_a_case = started.index(("a", "write-1-withheld"))
    assert ("b", "write-1-withheld") in started[:first_a_case]


def test_conditions_compare_by_type_not_by_position() -> None:
    """Two implementations that write the same conditions in another order have the same
    normalised state (a map list, as test_parity compares it); a differing field is named."""
    a = snapshot(world("ns-c"), "ns-c")  # type: ignore[arg-type]
    kube = world("ns-c")
    kube.objects["modelservices"][0]["status"]["conditions"] = [
        {"type": "Progressing", "status": "True", "lastTransitionTime": "t2"},
        {"type": "Ready", "status": "False", "lastTransitionTime": "t1"},
    ]
    b = snapshot(kube, "ns-c")  # type: ignore[arg-type]
    kube.objects["modelservices"][0]["status"]["conditions"].reverse()
    assert diff(b, snapshot(kube, "ns-c")) == []  # type: ignore[arg-type]
    assert diff(a, b) == [
        "modelservices.demo.status.conditions.Progressing: unexpected "
        "{'type': 'Progressing', 'status': 'True'}"
    ]


def _at_restart(*, deleting: bool = False, services: bool = True) -> dict[str, Any]:
    state = snapshot(world("ns"), "ns")  # type: ignore[arg-type]
    if deleting:
        state["modelservices"]["demo"]["metadata"]["deleting"] = True
    if not services:
        del state["services"]["demo"]
    return state


def test_recovery_may_create_what_was_missing_once() -> None:
    from harness.explore.state import Write, recovery_writes

    at = _at_restart(services=False)
    ok = [
        Write("update", "modelservices", "demo", 200),  # not a child: not bounded here
        Write("create", "services", "demo", 201),
        Write("create", "services", "demo", 409),  # its cache a moment behind: once
    ]
    assert recovery_writes(at, ok) == []
    storm = [*ok, Write("create", "services", "demo", 409)]
    assert recovery_writes(at, storm) == [
        "create services/demo 409: the child was created by this process already "
        "(a create recovery did not need)"
    ]
    blind = [Write("create", "deployments", "demo", 409)]
    assert recovery_writes(at, blind) == [
        "create deployments/demo 409: the child existed at restart (a create recovery did not need)"
    ]


def test_recovery_deletes_only_stale_children_and_each_once() -> None:
    from harness.explore.state import Write, recovery_writes

    live = _at_restart()
    recreate = [
        Write("delete", "deployments", "demo", 200),
        Write("create", "deployments", "demo", 201),
    ]
    assert recovery_writes(live, recreate) == [
        "delete deployments/demo 200: the child was not stale (its ModelService live and not "
        "deleting, no immutable field to replace) or was being deleted already: a delete "
        "recovery did not need"
    ]
    cleanup = [
        Write("delete", "deployments", "demo", 200),
        Write("delete", "services", "demo", 200),
    ]
    assert recovery_writes(_at_restart(deleting=True), cleanup) == []
    again = [*cleanup, Write("delete", "services", "demo", 404)]
    assert recovery_writes(_at_restart(deleting=True), again) == [
        "delete services/demo 404: a second delete of the child (a delete recovery did not need)"
    ]
    gone = [Write("delete", "services", "demo", 404)]
    assert recovery_writes(_at_restart(deleting=True, services=False), gone) == [
        "delete services/demo 404: the child was not there (a delete recovery did not need)"
    ]
    # A Deployment whose immutable selector differs from the clean run's is replaced.
    expected = _at_restart()
    expected["deployments"]["demo"]["spec"]["selector"] = {"matchLabels": {"app": "demo"}}
    assert recovery_writes(live, recreate, expected) == []


def _events(*evs: tuple[str, float, float, int]) -> list[tuple[str, Any]]:
    from harness.faults.apiproxy.records import WatchEvent

    return [
        (
            res,
            WatchEvent(
                1, f"2026-01-01T00:00:{at:09.6f}Z", "MODIFIED", "", "ns", "demo", "1", n, ms
            ),
        )
        for res, at, ms, n in evs
    ]


def test_a_stale_view_or_coalescing_the_proxy_log_does_not_show_is_a_premise_error() -> None:
    from harness.explore.case import event_premise
    from harness.faults.apiproxy.records import seconds

    act = seconds("2026-01-01T00:00:10.000000Z")
    late = _events(("deployments", 12.5, 2001.0, 0), ("modelservices", 11.0, 0.0, 0))
    assert event_premise("stale-view", late, act, 2.0)["holds"]
    early = _events(("deployments", 5.0, 2500.0, 0), ("services", 12.0, 10.0, 0))
    premise = event_premise("stale-view", early, act, 2.0)
    assert not premise["holds"] and premise["message"].startswith("premise: no event of a child")
    merged = _events(("modelservices", 11.0, 1000.0, 2))
    assert event_premise("coalesced", merged, act, 1.0) | {"message": ""} == {
        "delayed": 0,
        "max_delayed_ms": 1000.0,
        "coalesced": 2,
        "holds": True,
        "message": "",
    }
    assert not event_premise("coalesced", late, act, 1.0)["holds"]


def test_a_scenario_with_every_boundary_skipped_is_not_judged(tmp_path: Path) -> None:
    from harness.explore.run import not_judged

    exp = Exploration(
        "python",
        [
            CaseResult("python", "scale", "clean", writes=["a", "b"]),
            CaseResult("python", "scale", "write-1-withheld", outcome="skipped"),
            CaseResult("python", "scale", "write-2-withheld", outcome="skipped"),
            CaseResult("python", "create", "clean", writes=[]),
        ],
    )
    plan = Plan(SCENARIOS, variants=("withheld",), extra=False)
    errors = not_judged(exp, plan)
    assert [(c.id, c.outcome) for c in errors] == [
        ("explore[scale@boundaries]", "error"),
        ("explore[create@boundaries]", "error"),
    ]
    assert "every one of the 2 boundary cases of scale was skipped" in errors[0].message
    assert "made no write after the act" in errors[1].message
    exp.cases += errors
    entry = results.summary(exp)
    assert entry["boundaries_skipped"] == 2 and entry["boundaries"] == 0
    assert entry["not_judged"] == ["explore[scale@boundaries]", "explore[create@boundaries]"]
    assert entry["survived"] == 0
    cases = {c.name: c for c in junit.read_cases(results.write_junit(tmp_path / "j.xml", exp))}
    assert cases["explore[scale@boundaries]"].verdict == "error"
    # A mutant's plan of named cases is judged case by case; a run with nothing at all is not.
    assert not_judged(exp, Plan.for_cases(SCENARIOS, ["scale@write-1-withheld"])) == []
    empty = Exploration("go", [CaseResult("go", "create", "clean", writes=["a"])])
    assert [c.id for c in not_judged(empty, Plan(SCENARIOS, variants=(), extra=True))] == [
        "explore[run@judged]"
    ]


def test_end_states_are_compared_across_implementations_naming_the_field() -> None:
    from harness.explore.run import parity_cases

    go_state = snapshot(world("ns-a"), "ns-a")  # type: ignore[arg-type]
    other = world("ns-b")
    other.objects["deployments"][0]["spec"]["replicas"] = 2
    py_state = snapshot(other, "ns-b")  # type: ignore[arg-type]
    go = Exploration("go", [CaseResult("go", "scale", "clean", state=go_state)])
    py = Exploration(
        "python",
        [
            CaseResult("python", "scale", "clean", state=py_state),
            CaseResult("python", "create", "clean", state=py_state),  # go has no create run
        ],
    )
    cases = parity_cases(go, py)
    assert [(c.id, c.outcome) for c in cases] == [("explore[scale@parity-go]", "failed")]
    assert cases[0].message == (
        "end state differs from go's clean run: deployments.demo.spec.replicas: expected 1, got 2"
    )
    assert [c.outcome for c in parity_cases(go, go)] == ["passed"]
    assert results.summary(py)["parity"] == {}


def test_a_mutant_case_that_never_ran_or_errored_is_no_verdict_not_survived() -> None:
    """A case kills (failed) or lets survive (passed); an error (an operator that could not
    start) or a case that never ran judges nothing, and is never reported as SURVIVED."""
    from harness.explore.cli import judge_mutant

    ids = [("scale", "write-2-delivered"), ("create", "write-1-withheld")]

    def exp(*outcomes: str) -> Exploration:
        return Exploration(
            "m", [CaseResult("m", s, p, outcome=o) for (s, p), o in zip(ids, outcomes, strict=True)]
        )

    cases = ["scale@write-2-delivered", "create@write-1-withheld"]
    killed = judge_mutant(cases, exp("failed", "failed"))
    assert killed["killed"] and not killed["survived"] and not killed["no_verdict"]
    survived = judge_mutant(cases, exp("failed", "passed"))
    assert not survived["killed"]
    assert survived["survived"] == ["create@write-1-withheld"] and not survived["no_verdict"]
    errored = judge_mutant(cases, exp("error", "failed"))
    assert not errored["killed"] and not errored["survived"]
    assert errored["no_verdict"] == ["scale@write-2-delivered"]
    never_ran = judge_mutant(cases, Exploration("m", []))
    assert not never_ran["killed"] and not never_ran["survived"]
    assert never_ran["no_verdict"] == cases
    from harness.explore.cli import exit_code

    assert exit_code(False, {"m": killed}) == 0
    assert exit_code(False, {"m": killed, "n": errored}) == 5  # a harness error, not a survivor
    assert exit_code(False, {"m": never_ran}) == 5
    assert exit_code(False, {"m": survived}) == 1
    assert exit_code(False, {"m": survived, "n": errored}) == 1  # a survivor is a finding
    half = judge_mutant(cases, exp("error", "passed"))  # one case passed: survived all the same
    assert half["verdict"] == "SURVIVED" and exit_code(False, {"m": half}) == 1
    assert errored["verdict"] == never_ran["verdict"] == "no verdict"
    assert exit_code(True, {"m": killed}) == 1


def test_explore_builds_each_mutant_it_runs(monkeypatch: Any) -> None:
    """A Go mutant's binary exists only when built: ``explore_mutants`` builds it itself."""
    from harness.explore import cli

    built: list[str] = []

    class Impl:
        def __init__(self, impl_id: str) -> None:
            self.id = impl_id

        def run_build(self) -> None:
            built.append(self.id)

    class Lanes:
        def submit(self, *args: Any, **kwargs: Any) -> None:
            assert built, "started before it was built"

    monkeypatch.setattr(
        cli, "explore_cases", lambda: {"blind-create-go": ["scale@write-2-delivered"]}
    )
    impls: Any = {"blind-create-go": Impl("blind-create-go")}
    lanes: Any = Lanes()
    cli.explore_mutants(None, impls, Path("/tmp"), lanes, lanes)  # type: ignore[arg-type]
    assert built == ["blind-create-go"]
