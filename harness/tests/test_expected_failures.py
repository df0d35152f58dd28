"""An implementation's declared expected failures become strict xfails of exactly those checks,
and the reports show them as expected failures, not as passes or failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import report
from harness.plugin.expected import declared_key
from harness.report import html as report_html


class FakeItem:
    """What ``declared_key`` reads of a pytest item: its ``modeldock_check`` marker and its name."""

    def __init__(self, name: str, check: str | None, case: str | None = None) -> None:
        self.name = name
        self._marker = None if check is None else pytest.mark.modeldock_check(check, case=case).mark

    def get_closest_marker(self, name: str) -> Any:
        return self._marker if name == "modeldock_check" else None


DECLARED = {
    "noop-stable": "writes an annotation",
    "watch-recovers[connection-cut]": "cut",
    "restart-reconverges": "all cases",
}


@pytest.mark.parametrize(
    ("item", "want"),
    [
        (FakeItem("test_noop_stable", "noop-stable"), "writes an annotation"),
        (FakeItem("test_watch_recovers[connection-cut]", "watch-recovers"), "cut"),
        (FakeItem("test_watch_recovers[api-restart]", "watch-recovers"), None),
        (FakeItem("test_restart", "restart-reconverges", case="after-finalizer"), "all cases"),
        (FakeItem("test_create_converges", "create-converges"), None),
        (FakeItem("test_helper", None), None),
    ],
)
def test_declared_by_check_id_or_case(item: FakeItem, want: str | None) -> None:
    key = declared_key(item, DECLARED)  # type: ignore[arg-type]
    assert (DECLARED[key] if key else None) == want


XFAIL_JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="2" time="3.0">
<testcase classname="conformance.test_core" name="noop-stable" time="2.0">
<properties><property name="check" value="noop-stable"/>
<property name="xfail_failure" value="operator wrote while nothing changed"/></properties>
<skipped type="pytest.xfail" message="writes an annotation on every change"/></testcase>
<testcase classname="conformance.test_core" name="create-converges" time="1.0">
<properties><property name="check" value="create-converges"/></properties></testcase>
</testsuite></testsuites>
"""


def test_reports_show_an_expected_failure_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "junit-other.xml"
    path.write_text(XFAIL_JUNIT)
    m = report.build([path])
    res = {c.id: c.result("other") for c in m.checks}
    assert res["noop-stable"].outcome == "xfailed"
    assert res["noop-stable"].message == "writes an annotation on every change"
    assert res["noop-stable"].evidence["xfail_failure"] == "operator wrote while nothing changed"
    assert m.all_passed
    md = report.render_markdown(m)
    assert "| `noop-stable` | XFAIL 2.0s |" in md
    assert "**other expected failure:** writes an annotation on every change" in md
    html = report_html.render_html(m)
    assert "Expected failure, declared by the implementation: writes an annotation" in html


def test_a_case_declared_passing_is_not_covered_by_its_check_id() -> None:
    """``{ passes = true }`` on ``id[case]``: the bare id's declaration leaves that case out."""
    item = FakeItem("test_noop_stable_long_quiet", "noop-stable", case="long-quiet")
    assert declared_key(item, DECLARED) == "noop-stable"  # type: ignore[arg-type]
    passing = {"noop-stable[long-quiet]"}
    assert declared_key(item, DECLARED, passing) is None  # type: ignore[arg-type]
    base = FakeItem("test_noop_stable", "noop-stable")
    assert declared_key(base, DECLARED, passing) == "noop-stable"  # type: ignore[arg-type]
