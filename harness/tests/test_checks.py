"""harness.checks: the one list of check ids, kept equal to what the conformance suite
declares, and the scan of the ``@pytest.mark.modeldock_check`` markers."""

from __future__ import annotations

import re

import pytest

from harness import checks
from harness.checks import CONVERGE_TIMEOUT_ENV, converge_timeout, converge_timeout_problem
from harness.paths import REPO_ROOT


def test_base_check_strips_the_case() -> None:
    assert checks.base_check("watch-recovers[connection-stall]") == "watch-recovers"
    assert checks.base_check("noop-stable") == "noop-stable"


def test_check_functions_are_read_from_the_check_markers() -> None:
    functions = checks.check_functions()
    assert functions["noop-stable[rewritten-values]"] == ["test_noop_stable_rewritten_values"]
    assert set(functions["noop-stable"]) == {
        "test_noop_stable",
        "test_noop_stable_rewritten_values",
        "test_noop_stable_exponent_spelling",
        "test_noop_stable_respelled",
        "test_noop_stable_long_quiet",
        "test_noop_stable_long_quiet_minutes",
    }
    assert functions["noop-stable[long-quiet]"] == ["test_noop_stable_long_quiet"]
    assert functions["watch-recovers[compaction-410]"] == ["test_watch_expired_after_compaction"]
    assert "test_watch_expired_after_compaction" in functions["watch-recovers"]
    assert len(functions["watch-recovers"]) == 7


def test_check_order_names_exactly_the_checks_the_suite_declares() -> None:
    declared = {checks.base_check(name) for name in checks.check_functions()}
    listed = set(checks.CHECK_ORDER)
    assert not declared - listed, f"checks missing from CHECK_ORDER: {sorted(declared - listed)}"
    assert not listed - declared, (
        f"CHECK_ORDER names checks no test declares: {sorted(listed - declared)}"
    )
    assert len(checks.CHECK_ORDER) == len(listed), "CHECK_ORDER lists an id twice"


def test_unknown_ids_sort_last_and_cases_follow_their_check() -> None:
    names = [
        "unknown-check",
        "watch-recovers[b]",
        "noop-stable",
        "watch-recovers[a]",
        "create-converges",
    ]
    assert sorted(names, key=checks.check_sort_key) == [
        "create-converges",
        "noop-stable",
        "watch-recovers[a]",
        "watch-recovers[b]",
        "unknown-check",
    ]


@pytest.mark.parametrize("raw", ["abc", "0", "-5", "nan", "inf", "20s"])
def test_a_bad_converge_timeout_is_one_line_naming_the_variable(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONVERGE_TIMEOUT_ENV, raw)
    with pytest.raises(ValueError, match=CONVERGE_TIMEOUT_ENV):
        converge_timeout(60.0)
    problem = converge_timeout_problem()
    assert problem is not None and CONVERGE_TIMEOUT_ENV in problem and "\n" not in problem


@pytest.mark.parametrize(
    ("raw", "expected"), [("", 60.0), ("  ", 60.0), ("20", 20.0), ("2.5", 2.5)]
)
def test_a_blank_or_positive_converge_timeout_is_used(
    raw: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONVERGE_TIMEOUT_ENV, raw)
    assert converge_timeout(60.0) == expected
    assert converge_timeout_problem() is None


@pytest.mark.parametrize("variable", ["EXISTING_CI_CHECKS", "SIM_CI_CHECKS"])
def test_the_makefiles_check_subsets_name_test_functions_that_exist(variable: str) -> None:
    """The Makefile's CI subsets are pytest -k expressions of test function names: a name that
    no longer matches a function (renamed, removed) would silently run fewer checks."""
    text = (REPO_ROOT / "Makefile").read_text()
    found = re.search(rf"^{variable} \??:?= (.+)$", text, re.MULTILINE)
    assert found, f"{variable} is not set in the Makefile"
    names = [n.strip() for n in found.group(1).split(" or ")]
    functions = {f for fs in checks.check_functions().values() for f in fs}
    for name in names:
        matched = [f for f in functions if name in f]
        assert matched, f"{variable}: {name!r} matches no test function in conformance/"
