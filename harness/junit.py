"""The JUnit files a conformance run writes, read and rewritten in one place (junitparser).

A run writes one file per implementation; each testcase is one check or case, named by its
check id (``noop-stable``, ``watch-recovers[connection-cut]``) once ``rename_cases`` has run,
and carries the check's evidence as ``<property>`` elements (``harness.plugin.evidence``),
among them ``verdict`` (``fail`` or ``error``, ``harness.verdicts``) on a case that did not
pass. The mutant runner and the RBAC ablation read outcomes with ``read_cases``; the report
reads the evidence with ``properties``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase

#: Property names the plugin writes and readers rely on: the check id (also the testcase
#: name), the verdict of a case that did not pass, and the list of evidence keys that are
#: premises of the experiment rather than the operator's proof.
CHECK, VERDICT, PREMISES = "check", "verdict", "premises"

#: Outcomes of a testcase, as ``Case.outcome`` names them.
PASSED, FAILED, ERROR, SKIPPED = "passed", "failed", "error", "skipped"


@dataclass
class Case:
    """One testcase: ``name`` (the check id once renamed), ``outcome`` (PASSED, FAILED,
    ERROR or SKIPPED as JUnit says; a failure whose verdict is ``error`` is still FAILED
    here), ``message`` (the first non-empty line of the failure or error, at most 600
    characters, else ""), and every property as name -> values in file order (a name may
    repeat)."""

    name: str
    outcome: str
    message: str = ""
    properties: dict[str, list[str]] = field(default_factory=dict)

    def prop(self, name: str) -> str | None:
        """The last value of property ``name``, or None."""
        values = self.properties.get(name)
        return values[-1] if values else None

    @property
    def verdict(self) -> str | None:
        """The ``verdict`` property (``fail`` or ``error``), or None for a case that passed
        or was skipped, or a file written without the plugin."""
        return self.prop(VERDICT)


def testcases(path: Path) -> Iterator[TestCase]:
    """Every testcase of the JUnit file at ``path`` (one ``<testsuite>`` or a
    ``<testsuites>`` of several). Raises junitparser's / lxml's parse errors as they are."""
    xml = JUnitXml.fromfile(str(path))
    for suite in xml if isinstance(xml, JUnitXml) else [xml]:
        yield from suite


def properties(case: TestCase) -> dict[str, list[str]]:
    """The testcase's properties, name -> values in file order."""
    props: dict[str, list[str]] = {}
    for prop in case._elem.iter("property"):
        props.setdefault(str(prop.get("name")), []).append(str(prop.get("value")))
    return props


def _outcome(case: TestCase) -> tuple[str, str]:
    results: list[Any] = list(case.result)
    bad = next((r for r in results if isinstance(r, Error | Failure)), None)
    if bad is not None:
        lines = [ln.strip() for ln in str(bad.message or bad.text or "").splitlines()]
        return (ERROR if isinstance(bad, Error) else FAILED), next((ln for ln in lines if ln), "")[:600]
    skipped = next((r for r in results if isinstance(r, Skipped)), None)
    if skipped is not None:  # the reason, as pytest writes it: "<file>:<line>: <reason>"
        return SKIPPED, str(skipped.message or "").strip()[:600]
    return PASSED, ""


def read_cases(path: Path) -> list[Case]:
    """The testcases of the JUnit file at ``path``, in file order."""
    cases = []
    for tc in testcases(path):
        outcome, message = _outcome(tc)
        cases.append(Case(str(tc.name), outcome, message, properties(tc)))
    return cases


def rename_cases(path: Path) -> int:
    """Set every testcase's name to its ``check`` property in the JUnit file at ``path`` and
    write it back; return how many were renamed. (With pytest-xdist a report's nodeid cannot
    be changed, so the plugin renames in the file once pytest's junitxml has written it.)"""
    xml = JUnitXml.fromfile(str(path))
    renamed = 0
    for suite in (xml if isinstance(xml, JUnitXml) else [xml]):
        for case in suite:
            check = properties(case).get(CHECK)
            if check:
                case.name = check[-1]
                renamed += 1
    xml.write(str(path))
    return renamed


def suite_properties(path: Path) -> dict[str, str]:
    """The ``<testsuite>``-level properties of the JUnit file at ``path`` (the plugin writes
    ``tier``, ``kubernetes_version``, ``capabilities``); the first suite's, {} if none."""
    xml = JUnitXml.fromfile(str(path))
    for suite in (xml if isinstance(xml, JUnitXml) else [xml]):
        props = suite._elem.find("properties")
        return {str(p.get("name")): str(p.get("value"))
                for p in (props if props is not None else [])}
    return {}


def set_suite_properties(path: Path, values: dict[str, str]) -> None:
    """Add (or replace) ``<testsuite>``-level properties in the JUnit file at ``path``."""
    xml = JUnitXml.fromfile(str(path))
    for suite in (xml if isinstance(xml, JUnitXml) else [xml]):
        for name, value in values.items():
            suite.add_property(name, value)
    xml.write(str(path))
