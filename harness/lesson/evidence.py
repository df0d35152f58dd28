"""What a lesson run recorded, read from the files a conformance run writes: the real
implementations' ``junit-<impl>.xml`` in the lesson's folder and each mutant's
``mutants/junit-<mutant>.xml`` under it (``harness.lesson.run`` writes both; the report's
reader ``harness.report.build`` reads them). No cluster is needed to read or render them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import junit, report
from harness.lesson import story
from harness.report.model import Report, Result

#: The folder, under the reports folder, a lesson run writes its JUnit files into (so that
#: ``make conformance``'s own ``reports/junit-<impl>.xml`` stay as they were).
LESSON_DIR = "lesson"


@dataclass
class Lane:
    """One lane of a figure: who (an implementation or a mutant id), its title, whether it is
    the wrong way (a mutant), and its result of the figure's testcase."""

    who: str
    title: str
    wrong: bool
    result: Result


@dataclass
class Evidence:
    """The run's evidence for the lesson: the real implementations' report and, per mutant,
    its result of the testcase the lesson draws it in."""

    report: Report
    mutants: dict[str, Result] = field(default_factory=dict)
    mutant_titles: dict[str, str] = field(default_factory=dict)

    def lanes(self, figure: story.Figure) -> list[Lane]:
        """The lanes of ``figure``: each real implementation that has a result of its
        testcase, then the mutant if it ran it; [] when the run has none of them (the
        lesson says so instead of drawing an empty diagram)."""
        check = next((c for c in self.report.checks if c.id == figure.case), None)
        lanes = []
        if check is not None:
            for impl in self.report.implementations:
                res = check.result(impl)
                if res.outcome != "missing":
                    lanes.append(Lane(impl, self.report.title(impl), False, res))
        if figure.mutant and figure.mutant in self.mutants:
            title = self.mutant_titles.get(figure.mutant, figure.mutant)
            lanes.append(Lane(figure.mutant, title, True, self.mutants[figure.mutant]))
        return lanes

    def has(self, case: str) -> bool:
        """Whether a real implementation has a result of testcase ``case``."""
        return any(
            c.id == case and any(r.outcome != "missing" for r in c.results.values())
            for c in self.report.checks
        )


def load(
    folder: Path,
    implementations: Mapping[str, Any] | None = None,
    mutant_titles: Mapping[str, str] | None = None,
) -> Evidence:
    """Read a lesson run's folder: ``junit-<impl>.xml`` (``report.suite_junit_files``) and,
    for each mutant the lesson draws (``story.mutants``), ``mutants/junit-<mutant>.xml``, its
    result of the testcase the lesson draws it in (absent file or testcase: left out).
    ``implementations``: id -> implementation (titles), as ``report.build`` takes;
    ``mutant_titles``: mutant id -> its one-line title (mutants.toml)."""
    folder = Path(folder)
    model = report.build(report.suite_junit_files(folder), implementations)
    found: dict[str, Result] = {}
    for mutant, case in story.mutants().items():
        path = junit.suite_file(folder / "mutants", mutant)
        if not path.exists():
            continue
        check = next((c for c in report.build([path]).checks if c.id == case), None)
        if check is not None and check.result(mutant).outcome != "missing":
            found[mutant] = check.result(mutant)
    return Evidence(model, found, dict(mutant_titles or {}))


def verdict_line(result: Result) -> str:
    """The outcome and the first line of the failure message, for a lane's result line:
    ``passed`` or ``failed: <why>`` (cut to 200 characters)."""
    first = next((ln.strip() for ln in result.message.splitlines() if ln.strip()), "")
    if result.outcome in ("passed", "missing") or not first:
        return result.outcome
    return f"{result.outcome}: {first[:200]}"
