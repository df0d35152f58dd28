"""harness.junit: reading outcomes, properties and verdicts, and renaming testcases after
their check, on small JUnit files written here."""

from __future__ import annotations

from pathlib import Path

from harness import junit

XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
  <testcase classname="conformance.test_core" name="test_noop_stable" time="1.0">
    <properties><property name="check" value="noop-stable"/>
      <property name="writes" value="0"/><property name="writes" value="1"/></properties>
  </testcase>
  <testcase classname="conformance.test_core" name="test_child_repaired" time="1.0">
    <properties><property name="check" value="child-repaired"/>
      <property name="verdict" value="fail"/></properties>
    <failure message="AssertionError: the Service was not recreated&#10;second line">tb</failure>
  </testcase>
  <testcase classname="conformance.test_faults" name="test_cut" time="1.0">
    <properties><property name="check" value="watch-recovers[connection-cut]"/>
      <property name="verdict" value="error"/></properties>
    <error message="">
set-up went wrong</error>
  </testcase>
  <testcase classname="conformance.test_sim" name="test_kwok" time="0.0">
    <skipped message="needs kwok"/>
  </testcase>
</testsuite></testsuites>
"""


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "junit-go.xml"
    path.write_text(XML)
    return path


def test_read_cases_gives_outcome_message_verdict_and_every_property(tmp_path: Path) -> None:
    cases = {c.name: c for c in junit.read_cases(_file(tmp_path))}
    assert [c.outcome for c in cases.values()] == [junit.PASSED, junit.FAILED, junit.ERROR,
                                                  junit.SKIPPED]
    assert cases["test_noop_stable"].properties["writes"] == ["0", "1"]
    assert cases["test_noop_stable"].prop("writes") == "1"
    assert cases["test_noop_stable"].verdict is None
    failed = cases["test_child_repaired"]
    assert failed.verdict == "fail"
    assert failed.message == "AssertionError: the Service was not recreated"
    assert cases["test_cut"].message == "set-up went wrong"  # first non-empty line of the text
    assert cases["test_kwok"].message == "needs kwok"  # a skip says why


def test_rename_cases_names_each_testcase_after_its_check(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert junit.rename_cases(path) == 3
    names = [c.name for c in junit.read_cases(path)]
    assert names == ["noop-stable", "child-repaired", "watch-recovers[connection-cut]",
                     "test_kwok"]
