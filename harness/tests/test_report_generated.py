"""The generated-workloads section of the comparison (harness/report/generated.py): a plain
dict built from reports/generated.json, then Markdown and HTML from it."""

from __future__ import annotations

from typing import Any

from harness.report import generated

DATA = {
    "seed": 7,
    "cluster": "envtest",
    "seconds": 100.0,
    "sequences_asked": 3,
    "max_steps": 5,
    "operator_root": "/work/wt/prefaults",
    "implementations": {
        "python": {"sequences": 3, "steps": 12, "failures": 1, "oracles": {"quiet": 1}},
        "go": {"sequences": 3, "steps": 12, "failures": 0, "crashes": 2, "cases": []},
    },
    "failure": {
        "implementation": "python",
        "oracle": "quiet",
        "message": "converged but writing | always",
        "steps": 1,
        "case": "reports/generated/python-abc.yaml",
    },
}


def test_section_rows_per_implementation() -> None:
    sec = generated.section(DATA)
    assert [r["implementation"] for r in sec["rows"]] == ["go", "python"]
    go, py = sec["rows"]
    assert (go["steps"], go["crashes"], go["failures"], go["by_oracle"]) == (12, 2, 0, "-")
    assert (py["failures"], py["by_oracle"], py["steps_per_second"]) == (1, "quiet 1", "0.12")
    assert sec["failure"]["case"] == "reports/generated/python-abc.yaml"


def test_markdown_and_html_carry_the_shrunk_case() -> None:
    sec = generated.section(DATA)
    md = "\n".join(generated.markdown(sec))
    assert "| python | 3 | 12 | 0.12 | 0 | 1 | quiet 1 | - |" in md
    assert "converged but writing \\| always" in md  # a pipe does not end the cell
    assert "operators from /work/wt/prefaults" in md
    page = generated.section_html(sec)
    assert page.startswith('<section id="generated">')
    assert "python-abc.yaml" in page and "<td>quiet 1</td>" in page


def test_no_failure_no_case_line() -> None:
    sec = generated.section(DATA | {"failure": None})
    assert not any("Shrunk case" in line for line in generated.markdown(sec))


def test_the_model_carries_the_section_to_both_writers() -> None:
    from harness.report.html import render_html
    from harness.report.markdown import render_markdown
    from harness.report.model import Report
    from harness.report.sections import with_sections

    report = with_sections(Report(["go", "python"], {}, []), generated=DATA)
    assert report.generated is not None and report.generated["rows"][0]["implementation"] == "go"
    assert "python-abc.yaml" in render_markdown(report)
    assert '<section id="generated">' in render_html(report)
    assert with_sections(report, generated=None).generated is None


JUDGED = {
    "seed": 20261206,
    "targets": [
        {"id": "step-annotation", "group": "exploration", "killed": True, "oracle": "differential"},
        {"id": "python:x.py:f:op:a->b#0", "group": "gap", "killed": False},
        {"id": "go:y.go:g:op:c->d#0", "group": "control", "killed": False},
    ],
}


def test_the_judged_mutants_are_one_line_of_the_section() -> None:
    """reports/generated-mutants.json (make generate-mutants) adds one sentence under the
    section: the kills with their oracle, the survivors; the controls are left out of the
    counts and named only when killed."""
    sec = generated.judged(JUDGED)
    assert (sec["killed"], sec["judged"], sec["controls_killed"]) == (1, 2, [])
    line = generated.judged_line(sec)
    assert line.startswith("Against the mutants the suite misses (make generate-mutants, seed")
    assert "1 of 2 killed: step-annotation (differential); not killed: python:x.py" in line
    whole = generated.section(DATA) | {"judged": sec}
    assert generated.markdown(whole)[-4].startswith("Against the mutants")
    assert "step-annotation (differential)" in generated.section_html(whole)
    assert not any("Against" in x for x in generated.markdown(generated.section(DATA)))


def test_every_finding_of_a_keep_going_run_is_shown() -> None:
    found: list[dict[str, Any]] = [
        {"implementation": i, "oracle": o, "message": m, "steps": 3, "case": f"c{n}.yaml"}
        for n, (i, o, m) in enumerate([("go", "quiet", "late"), ("python", "budget", "9 > 8")])
    ]
    data = {"implementations": {"go": {}, "python": {}}, "failure": found[0], "findings": found}
    sec = generated.section(data)
    md = "\n".join(generated.markdown(sec))
    page = generated.section_html(sec)
    for f in found:
        assert f["case"] in md and f["case"] in page and f["message"] in md
