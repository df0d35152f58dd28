"""The JUnit files a conformance run writes, read and rewritten in one place (junitparser).

A run writes one file per implementation; each testcase is one check or case, named by its
check id (``noop-stable``, ``watch-recovers[connection-cut]``) once ``finish`` has run,
and carries the check's evidence as ``<property>`` elements (``harness.plugin.evidence``),
among them ``verdict`` (``fail`` or ``error``, ``harness.verdicts``) on a case that did not
pass. The mutant runner and the RBAC ablation read outcomes with ``read_cases``; the report
reads the evidence with ``properties``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, JUnitXmlError, Properties, Skipped, TestCase

#: Property names the plugin writes and readers rely on: the check id (also the testcase
#: name), the verdict of a case that did not pass, and the list of evidence keys that are
#: premises of the experiment rather than the operator's proof.
CHECK, VERDICT, PREMISES = "check", "verdict", "premises"

#: Outcomes of a testcase, as ``Case.outcome`` names them.
#: XFAILED: a check the implementation declares it fails, and failed (pytest's xfail).
PASSED, FAILED, ERROR, SKIPPED, XFAILED = "passed", "failed", "error", "skipped", "xfailed"


@dataclass
class Case:
    """One testcase: ``name`` (the check id once renamed), ``outcome`` (PASSED, FAILED,
    ERROR or SKIPPED as JUnit says; a failure whose verdict is ``error`` is FAILED here in
    a file ``finish`` has not rewritten, ERROR once it has), ``message`` (the failure's, error's or skip's message, else its text, stripped;
    "" for a pass), ``details`` (the failure's or error's text: the traceback), ``time_s``
    (seconds), and every property as name -> values in file order (a name may repeat);
    ``ordered`` keeps them as ``(name, value)`` pairs in file order."""

    name: str
    outcome: str
    message: str = ""
    properties: dict[str, list[str]] = field(default_factory=dict)
    details: str = ""
    time_s: float = 0.0
    ordered: list[tuple[str, str]] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """The first non-empty line of ``message``, at most 600 characters."""
        lines = [ln.strip() for ln in self.message.splitlines()]
        return next((ln for ln in lines if ln), "")[:600]

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


def ordered_properties(case: TestCase) -> list[tuple[str, str]]:
    """The testcase's ``<properties>``, (name, value) in file order, through junitparser's
    public element API (``child``, iteration), not its private lxml element."""
    props = case.child(Properties)  # type: ignore[no-untyped-call]
    if props is None:
        return []
    return [(str(p.name), str(p.value)) for p in props]


def properties(case: TestCase) -> dict[str, list[str]]:
    """The testcase's properties, name -> values in file order."""
    props: dict[str, list[str]] = {}
    for name, value in ordered_properties(case):
        props.setdefault(name, []).append(value)
    return props


def _outcome(case: TestCase) -> tuple[str, str, str]:
    """(outcome, message, details) of a testcase; a failure or error wins over a skip."""
    results: list[Any] = list(case.result)
    bad = next((r for r in results if isinstance(r, Error | Failure)), None)
    if bad is not None:
        return (
            (ERROR if isinstance(bad, Error) else FAILED),
            str(bad.message or bad.text or "").strip(),
            str(bad.text or "").strip(),
        )
    skip = next((r for r in results if isinstance(r, Skipped)), None)
    if skip is not None:
        kind = XFAILED if skip.type == "pytest.xfail" else SKIPPED
        return kind, str(skip.message or "").strip(), ""
    return PASSED, "", ""


def case_of(tc: TestCase) -> Case:
    """The ``Case`` of a junitparser testcase."""
    outcome, message, details = _outcome(tc)
    ordered = ordered_properties(tc)
    props: dict[str, list[str]] = {}
    for name, value in ordered:
        props.setdefault(name, []).append(value)
    return Case(str(tc.name), outcome, message, props, details, float(tc.time or 0.0), ordered)


@dataclass
class Suite:
    """One ``<testsuite>``: its name, pytest's ``timestamp`` and ``hostname``, its ``time_s``,
    its properties (``finish`` writes the run's identity there) and its cases in file order."""

    name: str
    timestamp: str
    hostname: str
    time_s: float
    properties: dict[str, str]
    cases: list[Case]


class NotJUnit(ValueError):
    """A file where a JUnit file should be that is not one (not XML, or not a JUnit root):
    its message names the file and the fix, one line for the person running the harness."""


def read_suites(path: Path) -> list[Suite]:
    """The testsuites of the JUnit file at ``path`` (one, or several under ``<testsuites>``).
    Raises ``NotJUnit`` when the file is not JUnit XML."""
    try:
        xml = JUnitXml.fromfile(str(path))
    except (SyntaxError, JUnitXmlError) as exc:  # ElementTree's and lxml's ParseError alike
        raise NotJUnit(
            f"{path}: not a JUnit XML file ({exc}); remove it or write it again "
            f"(`make conformance`)"
        ) from exc
    out = []
    for suite in xml if isinstance(xml, JUnitXml) else [xml]:
        props = {str(p.name): str(p.value) for p in suite.properties()}  # type: ignore[no-untyped-call]
        out.append(
            Suite(
                str(suite.name or ""),
                str(suite.timestamp or ""),
                str(suite.hostname or ""),
                float(suite.time or 0.0),
                props,
                [case_of(tc) for tc in suite],
            )
        )
    return out


def read_cases(path: Path) -> list[Case]:
    """The testcases of the JUnit file at ``path``, in file order."""
    return [case for suite in read_suites(path) for case in suite.cases]


def suite_name(impl_id: str) -> str:
    """The testsuite name of an implementation's run: ``modeldock-<impl>``."""
    return f"modeldock-{impl_id}"


#: How an implementation's JUnit file is named in a reports folder: ``junit-<impl>.xml``.
FILE_PREFIX = "junit-"


def suite_file(folder: Path, impl_id: str) -> Path:
    """The JUnit file of implementation (or mutant) ``impl_id`` in ``folder``:
    ``<folder>/junit-<impl>.xml``, the one place this name is made (``implementation_of``
    reads it back)."""
    return Path(folder) / f"{FILE_PREFIX}{impl_id}.xml"


def implementation_of(path: Path) -> str:
    """The implementation whose JUnit file ``path`` is (``suite_file``'s name read back): the
    report knows an implementation whose run wrote no file only by this name."""
    return Path(path).stem.removeprefix(FILE_PREFIX)


#: The testcase property that names a failed check's artifacts folder (the plugin records it
#: when it saves them); ``finish`` turns it into attachment lines.
ARTIFACTS = "artifacts"
#: At most this many attachment lines per testcase (a lab dump can hold many files).
MAX_ATTACHMENTS = 40


def attachment_lines(artifacts: Path, base: Path) -> list[str]:
    """``[[ATTACHMENT|<path>]]`` for each file under ``artifacts``, sorted, paths relative to
    ``base`` (the reports folder that is uploaded): the line GitLab's and Jenkins' JUnit
    readers turn into a link beside the failed test. At most MAX_ATTACHMENTS; none for a
    folder that does not exist."""
    if not artifacts.is_dir():
        return []
    files = sorted(f for f in artifacts.rglob("*") if f.is_file())[:MAX_ATTACHMENTS]
    return [f"[[ATTACHMENT|{os.path.relpath(f, base)}]]" for f in files]


def as_error(case: TestCase) -> bool:
    """Turn the testcase's ``<failure>`` into an ``<error>`` with the same message, type and
    text, in place; returns whether it did. pytest writes a check's unmet premise (an
    AssertionError the plugin judged ``error``, ``harness.verdicts``) as a failure, and CI
    systems count failures as "the code is wrong": an error says "not judged" there too."""
    results: list[Any] = list(case.result)
    failures = [r for r in results if isinstance(r, Failure)]
    if not failures:
        return False
    replaced: list[Any] = []
    for r in results:
        if isinstance(r, Failure):
            error = Error(r.message, r.type)
            error.text = r.text
            replaced.append(error)
        else:
            replaced.append(r)
    case.result = replaced
    return True


def finish(
    path: Path,
    impl_id: str,
    suite_properties: Mapping[str, str] | None = None,
    artifacts_base: Path | None = None,
) -> int:
    """Make the JUnit file pytest wrote at ``path`` one implementation's, unique among all
    implementations' files, and write it back; return how many testcases were renamed.

    - every testcase with a ``check`` property is named after it (``noop-stable``); with
      pytest-xdist a report's nodeid cannot be changed, so this happens in the file;
    - every classname gets the implementation as its first part (``go.conformance.test_core``):
      CI systems that merge reports (GitLab, Jenkins, GitHub test-report actions) identify a
      test by (classname, name), and the implementation then stays part of that identity;
    - the testsuite is named ``suite_name(impl_id)`` and carries ``suite_properties``
      (implementation, title, tier, Kubernetes version, harness commit), and keeps pytest's
      ``timestamp`` and ``hostname``;
    - a testcase whose ``verdict`` is ``error`` (a premise not met) is written with
      ``<error>``, not pytest's ``<failure>`` (``as_error``);
    - with ``artifacts_base``, a testcase whose ``artifacts`` property names a folder gets
      ``attachment_lines`` (relative to ``artifacts_base``) in its ``<system-out>``.
    """
    xml = JUnitXml.fromfile(str(path))
    renamed = 0
    for suite in xml if isinstance(xml, JUnitXml) else [xml]:
        suite.name = suite_name(impl_id)
        for key, value in (suite_properties or {}).items():
            suite.add_property(key, value)
        # The JUnit schema puts a suite's <properties> before its cases, and add_property
        # appends it after them: the cases move behind it (junitparser has no insert).
        cases = list(suite)
        for case in cases:
            suite.remove(case)  # type: ignore[no-untyped-call]
        for case in cases:
            suite.append(case)  # type: ignore[no-untyped-call]
        for case in suite:
            props = properties(case)
            check = props.get(CHECK)
            if artifacts_base is not None and props.get(ARTIFACTS):
                lines = attachment_lines(Path(props[ARTIFACTS][-1]), artifacts_base)
                old_out = str(case.system_out or "")
                if lines and "[[ATTACHMENT|" not in old_out:
                    case.system_out = "\n".join([old_out.rstrip(), *lines]).lstrip("\n")
            if props.get(VERDICT, [""])[-1] == "error":
                as_error(case)
            if check:
                case.name = check[-1]
                renamed += 1
            classname = str(case.classname or "")
            if not classname.startswith(f"{impl_id}."):
                case.classname = f"{impl_id}.{classname}" if classname else impl_id
    xml.write(str(path))
    return renamed


def merge(paths: Iterable[Path], out: Path) -> Path:
    """Write ``out``: one ``<testsuites>`` holding the testsuite of every file in ``paths`` (one
    per implementation), for CI systems that take a single file. Returns ``out``."""
    merged = JUnitXml("modeldock")
    for path in paths:
        xml = JUnitXml.fromfile(str(path))
        for suite in xml if isinstance(xml, JUnitXml) else [xml]:
            merged.add_testsuite(suite)
    merged.update_statistics()  # type: ignore[no-untyped-call]
    merged.write(str(out))
    return out
