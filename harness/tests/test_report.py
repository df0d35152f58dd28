"""Report builder: JUnit files in, the comparison model and its Markdown out (golden file).

Set UPDATE_GOLDEN=1 to rewrite the golden file after an intended change; review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

from harness import report

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "comparison.golden.md"


def _model() -> report.Report:
    return report.build([DATA / "junit-go.xml", DATA / "junit-python.xml"])


def test_model_reads_outcomes_times_and_evidence() -> None:
    model = _model()
    assert model.implementations == ["go", "python"]
    assert [c.id for c in model.checks] == ["create-converges", "noop-stable"]
    noop = model.checks[1]
    assert noop.why == "No-op reconciles write nothing."
    assert noop.results["go"].outcome == "passed"
    assert noop.results["python"].outcome == "failed"
    assert "wrote while nothing changed" in noop.results["python"].message
    assert noop.results["python"].evidence == {"successful_writes": "2"}
    assert model.checks[0].results["go"].time_s == 2.6
    assert not model.all_passed


def test_missing_junit_file_is_never_a_pass(tmp_path: Path) -> None:
    model = report.build([DATA / "junit-go.xml", tmp_path / "junit-rust.xml"])
    assert model.implementations == ["go", "rust"]
    assert all("rust" not in c.results for c in model.checks)
    assert not model.all_passed


def test_all_passed_needs_every_implementation() -> None:
    model = report.build([DATA / "junit-go.xml"])
    assert model.all_passed


def test_markdown_matches_golden() -> None:
    text = report.render_markdown(_model())
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
