"""The kill matrix from JUnit files: mutants.json's shape, base check ids, and the verdict.

No API server: the JUnit files are written here, shaped like the ones the pytest plugin
leaves (testcases named by check id, cases in brackets, failures and errors).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import checks, mutants
from harness.mutants import matrix_text, runner
from harness.operators import ImplementationError

PASS = '<testcase classname="conformance.x" name="{name}" time="1.0"/>'
FAIL = (
    '<testcase classname="conformance.x" name="{name}" time="1.0">'
    '<failure message="AssertionError: {why}&#10;assert 1 == 2">long text</failure></testcase>'
)
ERROR = (
    '<testcase classname="conformance.x" name="{name}" time="1.0">'
    '<error message="failed on setup with &quot;TimeoutError&quot;">text</error></testcase>'
)
PREMISE = (
    '<testcase classname="conformance.x" name="{name}" time="1.0">'
    '<properties><property name="verdict" value="error"/></properties>'
    '<failure message="PremiseFailed: premise not met">text</failure></testcase>'
)
ORACLE = (
    '<testcase classname="conformance.x" name="{name}" time="1.0">'
    '<properties><property name="verdict" value="fail"/></properties>'
    '<failure message="AssertionError: {why}">text</failure></testcase>'
)
SKIP = (
    '<testcase classname="conformance.x" name="{name}" time="0.0">'
    '<skipped type="pytest.skip" message="sim tier only">skip</skipped></testcase>'
)


def junit(path: Path, *cases: str) -> Path:
    body = "".join(cases)
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites>'
        f'<testsuite name="pytest" tests="{len(cases)}">{body}</testsuite>'
        "</testsuites>"
    )
    return path


Results = dict[str, runner.SuiteResult | None]


@pytest.fixture
def results(tmp_path: Path) -> Results:
    """always-update fails noop-stable and one watch-recovers case; no-relist fails two
    watch-recovers cases; no-owns errors in child-repaired (a set-up error) and misses its
    premise in noop-stable, and its oracle fails in parity; survivor fails nothing."""
    common = [PASS.format(name="create-converges"), SKIP.format(name="ready-with-kwok")]
    files = {
        "always-update": junit(
            tmp_path / "a.xml",
            *common,
            FAIL.format(name="noop-stable", why="wrote while nothing changed"),
            FAIL.format(name="watch-recovers[connection-cut]", why="slow"),
            PASS.format(name="watch-recovers[compaction-410]"),
        ),
        "no-relist": junit(
            tmp_path / "b.xml",
            *common,
            PASS.format(name="noop-stable"),
            FAIL.format(name="watch-recovers[compaction-410]", why="no relist"),
            FAIL.format(name="watch-recovers[connection-cut]", why="410"),
        ),
        "no-owns": junit(
            tmp_path / "c.xml",
            *common,
            ERROR.format(name="child-repaired"),
            PREMISE.format(name="noop-stable"),
            ORACLE.format(name="parity", why="differ"),
        ),
        "survivor": junit(tmp_path / "d.xml", *common, PASS.format(name="noop-stable")),
    }
    return {m: runner.read_junit(f) for m, f in files.items()}


def test_read_junit_sorts_outcomes_and_keeps_the_first_line_of_the_message(
    results: Results,
) -> None:
    a, no_owns = results["always-update"], results["no-owns"]
    assert a is not None and no_owns is not None
    assert a.passed == ["create-converges", "watch-recovers[compaction-410]"]
    assert a.failed == ["noop-stable", "watch-recovers[connection-cut]"]
    assert a.skipped == ["ready-with-kwok"]
    assert a.messages["noop-stable"] == "AssertionError: wrote while nothing changed"
    # Only the oracle's failure is a kill; a set-up error and an unmet premise are errors.
    assert no_owns.errors == ["child-repaired", "noop-stable"]
    assert no_owns.killed_by == ["parity"]


def test_failed_checks_keep_cases_and_the_checks_side_uses_base_ids(results: Results) -> None:
    data = runner.build_matrix(results)
    a = data["mutants"]["always-update"]
    assert a["failed_checks"] == ["noop-stable", "watch-recovers[connection-cut]"]
    assert a["killed_by"] == ["noop-stable", "watch-recovers"]
    assert data["mutants"]["no-relist"]["failed_checks"] == [
        "watch-recovers[compaction-410]",
        "watch-recovers[connection-cut]",
    ]
    assert data["checks"]["watch-recovers"]["killed"] == ["always-update", "no-relist"]
    assert data["checks"]["watch-recovers"]["cases"] == {
        "watch-recovers[compaction-410]": ["no-relist"],
        "watch-recovers[connection-cut]": ["always-update", "no-relist"],
    }
    # An error is no kill: it is listed apart, and the check it happened in killed nothing.
    assert data["checks"]["child-repaired"] == {"killed": [], "cases": {"child-repaired": []}}
    assert data["mutants"]["no-owns"]["errors"] == ["noop-stable", "child-repaired"]
    assert data["mutants"]["no-owns"]["killed_by"] == ["parity"]
    # Checks in check order; a skipped check did not run, so it is not a column.
    assert list(data["checks"]) == [
        "create-converges",
        "noop-stable",
        "child-repaired",
        "parity",
        "watch-recovers",
    ]
    json.dumps(data)  # it is what mutants.json holds


def test_verdict_names_survivors_and_checks_that_kill_nothing(results: Results) -> None:
    data = runner.build_matrix(results)
    assert data["verdict"] == {
        "ok": False,
        "survivors": ["survivor"],
        "idle_checks": ["create-converges", "child-repaired"],
        "idle_cases": ["create-converges", "child-repaired"],
        "expected_missed": {},
    }
    table = matrix_text.format_matrix(data)
    assert "SURVIVED" in table
    assert "mutants no check killed: survivor" in table
    assert "checks that killed no mutant: create-converges, child-repaired" in table
    assert (
        "note: no-owns: errors, not kills (set-up or premise): noop-stable, child-repaired" in table
    )


def test_every_case_must_kill_on_its_own(results: Results, tmp_path: Path) -> None:
    results["always-update"] = runner.read_junit(
        junit(
            tmp_path / "a2.xml",
            FAIL.format(name="noop-stable", why="wrote"),
            PASS.format(name="watch-recovers[connection-stall]"),
        )
    )
    data = runner.build_matrix(results)
    # watch-recovers kills (no-relist), yet its connection-stall case killed nothing.
    assert "watch-recovers" not in data["verdict"]["idle_checks"]
    assert "watch-recovers[connection-stall]" in data["verdict"]["idle_cases"]
    assert (
        "cases that killed no mutant: watch-recovers[connection-stall]"
        in matrix_text.format_matrix(data)
    )


def test_verdict_ok_when_every_mutant_dies_and_every_check_kills(
    results: Results, tmp_path: Path
) -> None:
    del results["survivor"]
    results["ready-on-write"] = runner.read_junit(
        junit(
            tmp_path / "e.xml",
            FAIL.format(name="create-converges", why="Ready=True"),
            ORACLE.format(name="child-repaired", why="not repaired"),
        )
    )
    data = runner.build_matrix(results)
    assert data["verdict"] == {
        "ok": True,
        "survivors": [],
        "idle_checks": [],
        "idle_cases": [],
        "expected_missed": {},
    }
    assert "verdict: every mutant killed (4)" in matrix_text.format_matrix(data)


def test_a_mutant_whose_suite_did_not_run_survives(results: Results) -> None:
    results["broken"] = None
    data = runner.build_matrix(results, {"broken": {"problem": "did not become ready"}})
    assert data["mutants"]["broken"]["ran"] is False
    assert "broken" in data["verdict"]["survivors"]
    assert "DID NOT RUN: did not become ready" in matrix_text.format_matrix(data)


def test_exploration_only_mutants_must_survive_every_check(
    results: Results, tmp_path: Path
) -> None:
    """--exploration-only: the survivor passes; a killed one, one whose suite did not run, and
    one that only errored fail the verdict, each named with why (no-owns's set-up error and
    premise miss are no judgements; its parity failure is a kill). The tier and the cases
    skipped there bound "every check"."""
    ok = runner.build_matrix({"survivor": results["survivor"]})
    verdict = runner.survival_verdict(ok, {"survivor": results["survivor"]}, "envtest")
    assert verdict["ok"] and verdict["survived"] == ["survivor"]
    assert verdict["skipped"] == ["ready-with-kwok"]
    ok["verdict"] = verdict
    text = matrix_text.format_matrix(ok)
    assert "survived every check that ran on envtest (1: survivor)" in text
    assert "not run on this tier: ready-with-kwok" in text

    errored = runner.read_junit(
        junit(
            tmp_path / "e.xml",
            ERROR.format(name="noop-stable"),
            PASS.format(name="create-converges"),
        )
    )
    data = runner.build_matrix(
        {
            "survivor": results["survivor"],
            "no-owns": results["no-owns"],
            "broken": None,
            "errored": errored,
        }
    )
    data["verdict"] = verdict = runner.survival_verdict(data)
    assert not verdict["ok"]
    assert verdict["killed"] == {"no-owns": ["parity"]}
    assert verdict["unjudged"] == {
        "broken": "its suite did not run",
        "errored": "errors, not judgements: noop-stable",
    }
    text = matrix_text.format_matrix(data)
    assert "FAIL: no-owns is not exploration-only: killed by parity" in text
    assert "FAIL: broken was not judged: its suite did not run" in text
    empty = runner.build_matrix({})
    assert not runner.survival_verdict(empty)["ok"], "no mutant ran: nothing survived"
    assert set(runner.exploration_only()) == {"step-annotation"}


def test_info_is_copied_into_each_mutant(results: Results) -> None:
    data = runner.build_matrix(results, {"no-owns": {"title": "t", "doc": "d", "seconds": 3}})
    assert data["mutants"]["no-owns"]["doc"] == "d"
    assert data["mutants"]["no-owns"]["seconds"] == 3


def test_every_caught_by_names_a_check_and_every_check_is_expected_to_catch_one() -> None:
    functions = checks.case_functions()  # one testcase per name: a bare id is the base case
    expected: set[str] = set()
    for mutant in mutants.declared():
        for check in runner.caught_by(mutant):
            assert check in functions, f"{mutant}: caught_by names no check: {check}"
            expected.add(checks.base_check(check))
    # The CI subset runs only these: every check must be among them, or CI's verdict fails.
    ids = {checks.base_check(c) for c in functions}
    assert ids <= expected, f"no mutant expects to be caught by {sorted(ids - expected)}"


def test_ci_subset_runs_the_caught_by_checks_or_all_but_the_slowest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    functions = {
        "noop-stable": ["test_noop_stable"],
        "child-repaired": ["test_child_repaired"],
        "watch-recovers[connection-stall]": ["test_connection_stall"],
        "watch-recovers[apiserver-restart]": ["test_apiserver_restart"],
    }
    assert (
        runner.ci_filter("always-update", None, functions)
        == "(test_child_repaired or test_noop_stable)"
    )
    real = runner.caught_by
    monkeypatch.setattr(runner, "caught_by", lambda m: [] if m == "undeclared" else real(m))
    assert (
        runner.ci_filter("undeclared", "noop", functions)
        == "not (test_apiserver_restart) and (noop)"
    )


def test_a_caught_by_check_that_missed_its_mutant_fails_the_verdict(results: Results) -> None:
    info = {
        "always-update": {"caught_by": ["noop-stable", "child-repaired"]},
        "no-relist": {"caught_by": ["watch-recovers[compaction-410]"]},
    }
    data = runner.build_matrix(results, info)
    assert data["mutants"]["always-update"]["missed"] == ["child-repaired"]
    assert data["mutants"]["no-relist"]["missed"] == []
    assert data["verdict"]["expected_missed"] == {"always-update": ["child-repaired"]}
    assert data["verdict"]["ok"] is False
    assert "FAIL: always-update was not caught by child-repaired" in matrix_text.format_matrix(data)


def test_a_sibling_case_failing_does_not_satisfy_a_base_id(tmp_path: Path) -> None:
    # stale-update-conflict's [operator-409] fails and its base case passes: a caught_by
    # naming the bare id (the base case) missed, as it did before only when no case failed.
    # Likewise a caught_by naming one case is not held by another case of the same check.
    res = runner.read_junit(
        junit(
            tmp_path / "m.xml",
            PASS.format(name="stale-update-conflict"),
            ORACLE.format(name="stale-update-conflict[operator-409]", why="resent"),
            PASS.format(name="watch-recovers[apiserver-restart]"),
            ORACLE.format(name="watch-recovers[connection-cut]", why="blind"),
        )
    )
    entries = ["stale-update-conflict", "watch-recovers[apiserver-restart]"]
    data = runner.build_matrix({"m": res}, {"m": {"caught_by": entries}})
    assert data["mutants"]["m"]["killed_by"] == ["stale-update-conflict", "watch-recovers"]
    assert data["mutants"]["m"]["missed"] == entries
    assert runner.missed(["stale-update-conflict[operator-409]"], res.killed_by) == []


def test_an_entry_left_out_by_k_is_not_missed_but_one_that_ran_is(tmp_path: Path) -> None:
    # python -m harness mutants --mutant no-reconnect -k test_apiserver_restart: the other
    # caught_by entry did not run, so it cannot have missed; the one that ran and passed did.
    res = runner.read_junit(
        junit(tmp_path / "m.xml", PASS.format(name="watch-recovers[apiserver-restart]"))
    )
    entries = ["watch-recovers[connection-cut]", "watch-recovers[apiserver-restart]"]
    data = runner.build_matrix({"m": res}, {"m": {"caught_by": entries}})
    assert data["mutants"]["m"]["missed"] == entries  # no -k: a testcase absent is missed
    narrowed = runner.only_selected(data, {"m": res})
    assert narrowed["mutants"]["m"]["missed"] == ["watch-recovers[apiserver-restart]"]
    assert narrowed["verdict"]["expected_missed"] == {"m": ["watch-recovers[apiserver-restart]"]}


def test_a_caught_by_case_that_only_errored_is_missed_and_no_kill(tmp_path: Path) -> None:
    # A set-up wait that timed out (a premise: verdict error) judged nothing: the mutant is
    # neither killed by it nor does it hold the caught_by entry.
    res = runner.read_junit(
        junit(tmp_path / "m.xml", PREMISE.format(name="watch-recovers[apiserver-restart]"))
    )
    data = runner.build_matrix(
        {"m": res}, {"m": {"caught_by": ["watch-recovers[apiserver-restart]"]}}
    )
    assert data["mutants"]["m"]["errors"] == ["watch-recovers[apiserver-restart]"]
    assert data["mutants"]["m"]["missed"] == ["watch-recovers[apiserver-restart]"]
    assert data["verdict"]["survivors"] == ["m"]


def test_a_skipped_base_case_is_not_missed_though_a_sibling_ran(tmp_path: Path) -> None:
    res = runner.read_junit(
        junit(
            tmp_path / "m.xml",
            SKIP.format(name="noop-stable"),
            ORACLE.format(name="noop-stable[long-quiet]", why="heartbeat"),
        )
    )
    assert runner.runnable(["noop-stable", "noop-stable[long-quiet]"], res.skipped, res.ran) == [
        "noop-stable[long-quiet]"
    ]


def test_a_base_case_selects_its_function_and_not_the_siblings_named_after_it() -> None:
    # pytest -k matches substrings: test_noop_stable alone would also run [long-quiet], whose
    # kills (none) would then count against the run (an idle case).
    functions = checks.case_functions()
    k = runner.select_checks(["noop-stable"], functions)
    assert k.startswith("(test_noop_stable and not test_noop_stable_exponent_spelling and not ")
    names = {f for fs in functions.values() for f in fs}

    def selected(name: str, expr: str) -> bool:  # pytest's -k on one name, for these shapes
        words = {n: n in name for n in names}
        return bool(eval(expr, {}, words))  # the expression is made of these names only

    assert {n for n in names if selected(n, k)} == {"test_noop_stable"}
    both = runner.select_checks(["noop-stable", "noop-stable[long-quiet]"], functions)
    assert {n for n in names if selected(n, both)} == {
        "test_noop_stable",
        "test_noop_stable_long_quiet",
    }
    stall = runner.select_checks(["watch-recovers[connection-stall]"], functions)
    assert {n for n in names if selected(n, stall)} == {"test_connection_stall"}


def test_a_bare_id_of_a_check_without_a_base_case_is_refused() -> None:
    functions = checks.case_functions()
    assert functions["stale-update-conflict"] == ["test_stale_update_conflict"]
    assert "deletion-policy" not in functions
    with pytest.raises(ImplementationError, match=r"no base case.*deletion-policy\[orphan\]"):
        runner.select_checks(["deletion-policy"], functions)


def test_mutant_info_has_title_doc_and_the_three_paragraphs() -> None:
    info = runner.mutant_info("no-owns")
    assert info["title"] == "does not watch Deployments and Services"
    assert info["doc"].startswith("no-owns: ")
    assert set(info["explanation"]) == {"anti_pattern", "why", "correct"}
    assert info["caught_by"] == ["noop-stable", "child-repaired"]


def test_unknown_mutant_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ImplementationError, match="unknown mutant"):
        runner.run_mutants(["no-such-mutant"], tmp_path, workers=1)
