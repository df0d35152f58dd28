"""``python -m harness accounting-check``: the two request accountings agreed on every check.

After each check on a tier with an audit log the plugin records property ``accounting``
(``harness.plugin.evidence.compare_with_audit``): the implementation's requests in the check's
namespaces as the API server's audit log has them and as the API proxies its operator
processes ran behind forwarded them, matched request for request by ``Audit-Id``. This command
reads ``reports/junit-<impl>.xml`` and exits 1 if any check shows a difference (or an
``accounting_error``), or ran on a tier with an audit log and compared nothing (no
comparison, or one of zero requests), 2 if no check was compared at all or a
``junit-*.xml`` is not JUnit XML (one line naming it); else it prints, e.g.,
``compared 2210 requests in 52 checks (go: 1101, python: 1109), 0 differences``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness import junit, say
from harness.paths import REPORTS_DIR

#: The testcase property a check records when, by design, its operator makes no request in
#: the check's namespaces (e.g. it is stopped while only discovery has been read): its
#: comparison of zero requests is then no problem. The value says why.
ACCOUNTING_SCOPE_PROPERTY = "accounting_scope"

#: The lists of ``accounting`` that are differences.
DIFFERENCE_KEYS = ("audit_only", "proxy_only", "differing")


def _case(
    impl: str, case: junit.Case, audited: bool, per_impl: dict[str, int], problems: list[str]
) -> int:
    """Account one testcase: add its compared requests to ``per_impl``, its differences and
    errors to ``problems``; return 1 if it recorded a comparison. On a tier with an audit log
    a check that ran (passed or failed) must have compared something: a missing comparison,
    or one of zero requests, is a problem too, so the command cannot pass by seeing nothing,
    unless the check recorded ACCOUNTING_SCOPE_PROPERTY (nothing namespaced, by design)."""
    error = case.prop("accounting_error")
    if error:
        problems.append(f"{impl} {case.name}: accounting_error: {error}")
    raw = case.prop("accounting")
    ran = case.outcome in (junit.PASSED, junit.FAILED) and case.prop("check") is not None
    if raw is None:
        if audited and ran and not error:
            problems.append(f"{impl} {case.name}: ran on a tier with an audit log, no comparison")
        return 0
    got = json.loads(raw)
    per_impl[impl] = per_impl.get(impl, 0) + int(got["compared"])
    if int(got["compared"]) == 0 and ran and not case.prop(ACCOUNTING_SCOPE_PROPERTY):
        problems.append(f"{impl} {case.name}: compared 0 requests")
    for key in DIFFERENCE_KEYS:
        problems += [f"{impl} {case.name}: {diff}" for diff in got.get(key, [])]
    return 1


def check(reports: Path) -> tuple[int, list[str]]:
    """Read every ``junit-*.xml`` in ``reports``; return (exit code, lines to print)."""
    lines: list[str] = []
    per_impl: dict[str, int] = {}
    checks = differences = unreached = 0
    problems: list[str] = []
    files = sorted(
        p for p in reports.glob("junit-*.xml") if not p.name.startswith("junit-explore-")
    )
    for path in files:
        impl = junit.implementation_of(path)
        for suite in junit.read_suites(path):
            audited = "audit-log" in suite.properties.get("capabilities", "").split(",")
            for case in suite.cases:
                checks += _case(impl, case, audited, per_impl, problems)
                raw = case.prop("accounting")
                if raw is not None:
                    got = json.loads(raw)
                    unreached += int(got.get("unreached", 0))
                    differences += sum(len(got.get(key, [])) for key in DIFFERENCE_KEYS)
    if not checks and not problems:
        return 2, [
            f"no check recorded an accounting comparison in {reports}/junit-*.xml: run "
            f"`make conformance` (envtest, where there is an audit log to compare with) first"
        ]
    total = sum(per_impl.values())
    impls = ", ".join(f"{k}: {v}" for k, v in sorted(per_impl.items()))
    lines.append(
        f"compared {total} requests in {checks} checks ({impls}), {differences} differences"
        f"; {unreached} answered by the proxy itself (scripted faults, no upstream), not compared"
    )
    lines += problems[:60]
    if not checks:
        lines.append(f"no check recorded an accounting comparison in {reports}/junit-*.xml")
        return 2, lines
    return (1 if problems else 0), lines


def main(argv: list[str] | None = None) -> int:
    """The command line (``--reports DIR``); returns the exit code of ``check``, or 2 when a
    JUnit file there is not JUnit XML."""
    parser = argparse.ArgumentParser(prog="python -m harness accounting-check", description=__doc__)
    parser.add_argument("--reports", default=str(REPORTS_DIR), help="folder of junit-*.xml")
    args = parser.parse_args(argv)
    try:
        code, lines = check(Path(args.reports))
    except junit.NotJUnit as exc:
        say.line(str(exc))
        return 2
    for line in lines:
        print(line, file=sys.stdout if code == 0 else sys.stderr)
    return code
