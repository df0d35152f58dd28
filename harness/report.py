"""The comparison report: one model built from the JUnit files, and its writers.

``build(junit_files)`` reads ``reports/junit-<impl>.xml`` with junitparser into a ``Report``:
for each check (by id, in DESIGN.md order), what it proves ("why"), and per implementation
the outcome, time, failure message and evidence (the JUnit properties the check recorded).
Writers render the model: ``render_markdown`` (``reports/comparison.md``, for terminals and CI
summaries). The model knows nothing of Markdown; writers know nothing of JUnit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase

#: Check ids in the order DESIGN.md section 7 lists them; unknown ids sort after these.
CHECK_ORDER = [
    "create-converges", "noop-stable", "progressing-without-kubelet", "stale-update-conflict",
    "restart-reconverges", "child-repaired", "finalizer-ordered-delete", "replaced-child-kept",
    "child-conflict", "invalid-rejected", "parity", "watch-recovers", "leader-failover",
    "rbac-least-privilege", "ready-with-kwok",
]

#: Properties that describe the check rather than being evidence.
_META = {"check", "implementation", "why", "teaches"}


@dataclass
class Result:
    """One check's outcome for one implementation."""

    outcome: str  # "passed", "failed", "error", "skipped" or "missing"
    time_s: float = 0.0
    message: str = ""
    evidence: dict[str, str] = field(default_factory=dict)


@dataclass
class Check:
    """One check (a JUnit testcase name; parametrised cases keep their ``[...]`` suffix)."""

    id: str
    why: str = ""
    teaches: str = ""
    results: dict[str, Result] = field(default_factory=dict)


@dataclass
class Report:
    implementations: list[str]
    titles: dict[str, str]
    checks: list[Check]

    @property
    def all_passed(self) -> bool:
        """True if every check passed (or was skipped) for every implementation."""
        return bool(self.checks) and all(
            c.results.get(i, Result("missing")).outcome in ("passed", "skipped")
            for c in self.checks for i in self.implementations)


def _outcome(case: TestCase) -> tuple[str, str]:
    for res in case.result:
        if isinstance(res, Failure):
            return "failed", (res.message or res.text or "").strip()
        if isinstance(res, Error):
            return "error", (res.message or res.text or "").strip()
        if isinstance(res, Skipped):
            return "skipped", (res.message or "").strip()
    return "passed", ""


def _properties(case: TestCase) -> dict[str, str]:
    props: dict[str, str] = {}
    # junitparser models <properties> on suites only; a testcase's are read from its element
    for elem in case._elem.iter("property"):
        props[elem.get("name", "")] = elem.get("value", "")
    return props


def _sort_key(check_id: str) -> tuple[int, str]:
    base = check_id.split("[")[0]
    return (CHECK_ORDER.index(base) if base in CHECK_ORDER else len(CHECK_ORDER), check_id)


def build(junit_files: Iterable[Path], implementations: Mapping[str, Any] | None = None) -> Report:
    """Read ``junit-<impl>.xml`` files into a Report. A missing file gives that implementation
    no results (every check "missing"), so a run that crashed is never reported as passing."""
    checks: dict[str, Check] = {}
    impls: list[str] = []
    titles: dict[str, str] = {}
    for path in junit_files:
        impl = path.stem.removeprefix("junit-")
        impls.append(impl)
        if implementations and impl in implementations:
            titles[impl] = getattr(implementations[impl], "title", impl)
        if not path.exists():
            continue
        xml = JUnitXml.fromfile(str(path))
        suites = [xml] if not hasattr(xml, "__iter__") else list(xml)
        for suite in suites:
            for case in suite:
                props = _properties(case)
                outcome, message = _outcome(case)
                cid = str(case.name)
                check = checks.setdefault(cid, Check(id=cid))
                check.why = check.why or props.get("why", "")
                check.teaches = check.teaches or props.get("teaches", "")
                check.results[impl] = Result(
                    outcome=outcome, time_s=float(case.time or 0.0), message=message,
                    evidence={k: v for k, v in props.items() if k not in _META})
    ordered = sorted(checks.values(), key=lambda c: _sort_key(c.id))
    return Report(implementations=impls, titles=titles, checks=ordered)


_ICON = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "skip",
         "missing": "missing"}


def _short_value(value: str, limit: int = 80) -> str:
    try:
        parsed = json.loads(value)
        value = json.dumps(parsed, sort_keys=True, separators=(",", ":"))
    except ValueError:
        pass
    value = value.replace("|", "\\|").replace("\n", " ")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def key_evidence(result: Result, limit: int = 3) -> str:
    """The first ``limit`` evidence items as ``key=value`` text."""
    items = list(result.evidence.items())[:limit]
    return "; ".join(f"{k}={_short_value(v, 60)}" for k, v in items)


def render_markdown(report: Report) -> str:
    """The comparison as Markdown: a summary table (check x implementation: result, time, key
    evidence), then per check its "why" and every implementation's evidence."""
    impls = report.implementations
    lines = ["# ModelDock conformance: side by side", ""]
    lines.append("| check | " + " | ".join(f"{i}" for i in impls) + " |")
    lines.append("|---|" + "---|" * len(impls))
    for check in report.checks:
        cells = []
        for impl in impls:
            res = check.results.get(impl, Result("missing"))
            cells.append(f"{_ICON[res.outcome]} {res.time_s:.1f}s" if res.outcome != "missing"
                         else "missing")
        lines.append(f"| `{check.id}` | " + " | ".join(cells) + " |")
    passed = sum(1 for c in report.checks for i in impls
                 if c.results.get(i, Result("missing")).outcome == "passed")
    lines += ["", f"{passed} of {len(report.checks) * len(impls)} check runs passed.", ""]
    for check in report.checks:
        lines += [f"## `{check.id}`", ""]
        if check.why:
            lines += [check.why, ""]
        if check.teaches:
            lines += [check.teaches, ""]
        lines += ["| implementation | result | time | key evidence |", "|---|---|---|---|"]
        for impl in impls:
            res = check.results.get(impl, Result("missing"))
            lines.append(f"| {impl} | {_ICON[res.outcome]} | {res.time_s:.1f}s | "
                         f"{key_evidence(res)} |")
        lines.append("")
        for impl in impls:
            res = check.results.get(impl)
            if res is None:
                continue
            if res.message:
                lines += [f"**{impl} failure:** " + res.message.splitlines()[0][:400], ""]
            if res.evidence:
                lines.append(f"<details><summary>{impl}: all evidence</summary>\n")
                for k, v in res.evidence.items():
                    lines.append(f"- `{k}`: `{_short_value(v, 300)}`")
                lines += ["", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(report: Report, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(report))
    return path
