"""Tiers side by side (``python -m harness report --tiers``) from two small JUnit fixtures,
``data/tiers/envtest/junit-go.xml`` and ``data/tiers/sim/junit-go.xml`` (made up in the shape
``harness.junit.finish`` writes: testsuite properties tier, kubernetes_version, capabilities;
skips carry the reason ``harness.tiers.skip_reason`` gives): go passes the envtest-only checks
on envtest and skips them on sim, the other way round for the sim checks, and fails
garbage-collected on sim."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness import cli, report
from harness.report import html as report_html
from harness.report.markdown import render_tiers_markdown
from harness.tests.test_report import DATA

TIERS = DATA / "tiers"
FOLDERS = [TIERS / "envtest", TIERS / "sim"]


def test_model_reads_each_folder_as_a_tier() -> None:
    (comp,) = report.compare_tiers(FOLDERS)
    assert comp.impl == "go" and comp.labels == ["envtest", "sim"]
    envtest, sim = comp.runs
    assert (envtest.kubernetes_version, sim.harness_commit) == ("v1.34.4", "61298b9")
    assert "pods-ready" in sim.capabilities and "pods-ready" not in envtest.capabilities
    assert comp.checks == [
        "create-converges",
        "progressing-without-kubelet",
        "ready-with-kwok",
        "garbage-collected",
        "replaced-child-kept",
    ]  # CHECK_ORDER, not file order
    assert [r.result("ready-with-kwok").outcome for r in comp.runs] == ["skipped", "passed"]
    assert envtest.result("ready-with-kwok").message.startswith(
        "needs pods-ready (Pods are scheduled"
    )
    assert sim.result("garbage-collected").outcome == "failed"
    assert not comp.differs("create-converges") and comp.differs("garbage-collected")
    assert (envtest.count("passed"), sim.count("skipped")) == (3, 2)


def test_markdown_puts_each_check_on_each_tier_with_the_skip_reason() -> None:
    text = render_tiers_markdown(report.compare_tiers(FOLDERS))
    assert "| check | envtest | sim |" in text
    assert "| `create-converges` | PASS 0.6s | PASS 0.8s |" in text
    assert (
        "| `ready-with-kwok` (differs) | skip: needs pods-ready (Pods are scheduled and become "
        "Ready" in text
    )
    assert "not offered by the envtest tier, no Pod ever becomes Ready there | PASS 9.5s |" in text
    assert (
        "| `garbage-collected` (differs) | skip: needs garbage-collector (kube-controller-manager"
    ) in text
    assert "FAIL: the Deployment of the vanished ModelService web was not garbage collected" in text
    assert "| `pods-ready` |  | yes |" in text and "| `no-kubelet` | yes |  |" in text
    assert "| envtest | `" in text and "| v1.34.4 | 3 | 0 | 2 | 61298b9 |" in text


def test_html_page_has_a_row_per_check_and_a_cell_per_tier() -> None:
    html = report_html.render_tiers_html(report.compare_tiers(FOLDERS))
    assert '<section id="tiers-go">' in html
    assert html.count('<tr class="diff">') == 4 and html.count('<tr class="same">') == 1
    assert (
        '<td class="cell skip"><span class="badge skip">SKIP</span> <span class="skip-reason">'
        in html
    )
    assert "not offered by the sim tier, its Pods do become Ready</span>" in html
    assert "<h1>go: tiers side by side</h1>" in html
    assert "<link" not in html and "src=" not in html


def test_a_folder_without_the_implementation_is_missing_not_passed(tmp_path: Path) -> None:
    (tmp_path / "kind").mkdir()
    comps = report.compare_tiers([FOLDERS[0], tmp_path / "kind"], ["go"])
    assert comps[0].runs[1].present is False
    assert comps[0].runs[1].result("create-converges").outcome == "missing"
    assert "no junit-go.xml" in render_tiers_markdown(comps)


def test_the_report_command_writes_tiers_md_and_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for f in FOLDERS:
        shutil.copytree(f, tmp_path / f.name)
    (tmp_path / "envtest" / "junit-explore-go.xml").write_text("<testsuites/>")  # not a tier run
    out = tmp_path / "out"
    argv = ["report", "--tiers", str(tmp_path / "envtest"), str(tmp_path / "sim")]
    assert cli.main([*argv, "--reports", str(out), "--impl", "go"]) == 0
    assert "| `ready-with-kwok` (differs) |" in capsys.readouterr().out
    assert (out / "tiers.md").exists() and (out / "tiers.html").exists()
    assert cli.main([*argv[:2], str(tmp_path / "nowhere"), "--reports", str(out)]) == 2
    assert cli.main([*argv, "--reports", str(out), "--impl", "rust"]) == 2
