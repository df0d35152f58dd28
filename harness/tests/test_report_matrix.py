"""The report across Kubernetes versions (``python -m harness.report.matrix``), from the tiers
fixtures copied as two versions' folders: one clean, one with garbage-collected failed."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.report import matrix
from harness.tests.test_report import DATA


def test_matrix_names_each_cell_and_each_failure(tmp_path: Path) -> None:
    shutil.copytree(DATA / "tiers" / "envtest", tmp_path / "1.34")
    shutil.copytree(DATA / "tiers" / "sim", tmp_path / "1.37")
    text, clean = matrix.matrix_markdown(tmp_path, ["1.34", "1.37"])
    assert not clean
    assert "| check | 1.34 go | 1.37 go |" in text
    assert "| `ready-with-kwok` | skip | pass |" in text
    assert "- `garbage-collected` on 1.37 (go): failed: " in text
    assert "- 1.34 go: " in text and "- 1.37 go: " in text
    assert matrix.main([str(tmp_path), "1.34", "1.37"]) == 1
    assert (tmp_path / "matrix.md").read_text() == text


def test_a_missing_version_shows_missing(tmp_path: Path) -> None:
    shutil.copytree(DATA / "tiers" / "envtest", tmp_path / "1.34")
    text, clean = matrix.matrix_markdown(tmp_path, ["1.34", "1.35"])
    assert not clean and "| `create-converges` | pass | missing |" in text
    assert matrix.main([str(tmp_path)]) == 2
