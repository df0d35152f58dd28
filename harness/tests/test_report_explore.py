"""The exploration matrix in the comparison report, from a small explore.json
(``data/explore.json``, made up): the model, the Markdown table and the HTML section (cells,
failed cases with what the oracle said, the exploration-only mutants), an explore.json from
before the ``failures`` key, and ``python -m harness report`` on a reports folder that also
holds exploration JUnit files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from harness import report, suite
from harness.report import html as report_html
from harness.report.exploration import columns, exploration
from harness.report.markdown import explore_markdown
from harness.tests.test_report import DATA, explore, model


def test_model_reads_matrix_failures_and_mutants() -> None:
    ex = exploration(explore())
    assert [m.impl for m in ex.implementations] == ["go", "python"]
    go, py = ex.implementations
    assert go.scenarios == ["create", "scale"] and go.kmax == 2
    assert go.outcome("create", "write-2-delivered") == "skipped"
    assert go.outcome("scale", "write-2-withheld") == ""  # scale made one write: not run
    assert not go.failures
    assert [(f.case, f.scenario, f.perturbation, f.outcome) for f in py.failures] == [
        ("explore[scale@write-2-withheld]", "scale", "write-2-withheld", "failed"),
        ("explore[create@write-1-conflict]", "create", "write-1-conflict", "error"),
    ]
    assert py.failures[0].message.startswith("end state differs from the clean run")
    assert [(m.name, m.killed) for m in ex.mutants] == [
        ("remembers-status", True),
        ("step-annotation", False),
    ]
    assert [c for c, _ in columns(1)] == [
        "write-1-withheld",
        "write-1-delivered",
        "write-1-conflict",
        "stale-view",
        "coalesced",
    ]


def test_markdown_has_the_lesson_the_matrix_and_what_the_oracle_said() -> None:
    text = "\n".join(explore_markdown(exploration(explore())))
    assert "the end state (UIDs, times and resourceVersions normalised away) must equal it" in text
    assert "### go: 10/10 survived, 3 boundaries" in text
    assert "| create | 2 | ✓✓✓ | ✓·✓ | ✓ | ✓ |" in text
    assert "| scale | 1 | ✓✓✓ |  |  |  |" in text
    assert "| create | 2 | ✓✓E | ✓✓– | ✓ |  |" in text  # python: no 409 at k=2
    assert "| scale | 2 | ✓–– | ✗–– |  |  |" in text
    assert (
        "- `explore[scale@write-2-withheld]` (oracle): end state differs from the clean run: "
        "modelservices/demo status.replicas: 3 != 1 (+1 more)"
    ) in text
    assert "- `explore[create@write-1-conflict]` (harness error): ApiProxyError" in text
    assert "| `step-annotation` | `create@write-2-delivered` | **no** |  |" in text


def test_html_section_cells_say_case_write_and_oracle() -> None:
    html = report_html.render_html(report.with_sections(model(), exploration=explore()))
    section = html[html.index('<section id="explore">') :]
    section = section[: section.index("</section>")]
    assert '<a href="#explore">Exploration</a>' in html
    assert section.count('<table class="matrix explore">') == 2
    # go: 2 scenarios x (2 boundaries x 3 variants + 2) cells; python the same
    assert section.count('<td class="xc') == 2 * 2 * 8
    assert (
        'title="explore[scale@write-2-withheld], crash after write 2 (update '
        "modelservices/status demo 200), answer withheld: did not survive: the oracle failed: "
        'end state differs from the clean run: modelservices/demo status.replicas: 3 != 1 (+1 more)"'
        in section
    )
    assert '<td class="xc skip" title="explore[create@write-2-delivered]' in section
    assert "<h4>Did not survive (2): what the oracle said</h4>" in section
    assert "the operator wrote for 10 s after the end" in section  # details, collapsed
    assert '<p class="verdict bad">go: 10 of 10 cases survived; python: 6 of 8' in section
    assert '<tr class="survived"><th scope="row"><code>step-annotation</code>' in section
    assert "What it does not prove" in section


def test_html_section_absent_without_explore_json() -> None:
    assert 'id="explore"' not in report_html.render_html(model())


def test_an_explore_json_without_failures_still_names_the_failed_cases() -> None:
    data = explore()
    for entry in data["implementations"].values():
        del entry["failures"]
    del data["mutants"]
    text = "\n".join(explore_markdown(exploration(data)))
    assert "- `explore[scale@write-2-withheld]` (oracle): no message recorded" in text
    html = report_html.render_html(report.with_sections(model(), exploration=data))
    assert "Mutants only exploration catches" not in html
    assert '<span class="muted">no message recorded</span>' in html


def test_report_command_shows_exploration_and_skips_its_junit_files(tmp_path: Path) -> None:
    for name in ("junit-go.xml", "junit-python.xml", "explore.json"):
        shutil.copy(DATA / name, tmp_path / name)
    # an exploration JUnit file is not an implementation's suite
    (tmp_path / "junit-explore-go.xml").write_text(
        '<?xml version="1.0"?><testsuites><testsuite name="explore-go" tests="1">'
        '<testcase name="explore[create@clean]" classname="explore.go"/></testsuite></testsuites>'
    )
    assert suite.rebuild_report(tmp_path, []) == 1  # the fixtures have a failed check
    html = (tmp_path / "comparison.html").read_text()
    md = (tmp_path / "comparison.md").read_text()
    assert 'id="explore"' in html and "## Exploration: a crash at every write boundary" in md
    assert "explore-go" not in html.split('<section id="explore">')[0]
    m = report.build([tmp_path / "junit-go.xml", tmp_path / "junit-python.xml"])
    assert re.search(r"\| check \| go \| python \|", "\n".join(report.render_summary(m)))
    assert json.loads((tmp_path / "explore.json").read_text())["implementations"]


def test_a_mutant_with_a_case_not_judged_is_no_verdict_in_the_report() -> None:
    from harness.report.exploration import ExploreMutant

    cases = ["scale@write-2-delivered"]
    assert ExploreMutant("m", cases, [], False, no_verdict=cases).outcome == "no verdict"
    assert ExploreMutant("m", cases, [], False).outcome == "survived"
    assert ExploreMutant("m", cases, cases, True).outcome == "killed"
