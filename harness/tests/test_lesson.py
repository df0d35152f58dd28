"""The lesson (harness/lesson): its story names testcases and mutants that exist, its run
selects exactly those testcases, and it renders from a run's JUnit files (the report's
fixtures here, no cluster) in English and Chinese, linked with the comparison report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness import mutants, report
from harness.checks import base_check, check_functions
from harness.lesson import evidence, render, run, story

DATA = Path(__file__).parent / "data"


def test_every_figure_names_a_testcase_and_a_mutant_that_catches_it() -> None:
    functions = check_functions()
    declared = mutants.declared()
    for part in story.PARTS:
        for figure in part.figures:
            if figure.case == part.needs:
                continue  # a check the suite may not have yet: the lesson says so
            assert figure.case in functions, f"{part.id}: no testcase {figure.case}"
            if not figure.mutant:
                continue
            assert figure.mutant in declared, f"{part.id}: no mutant {figure.mutant}"
            caught = declared[figure.mutant].get("caught_by", [])
            assert figure.case in caught or base_check(figure.case) in caught, (
                f"{part.id}: {figure.mutant} is not caught by {figure.case} by design "
                f"(caught_by {caught}): the figure would show no wrong way"
            )


def test_each_part_says_what_to_look_at_and_what_it_proves() -> None:
    assert [p.id for p in story.PARTS] == [f"part-{n}" for n in range(1, 7)]
    for part in story.PARTS:
        assert part.paragraphs and part.figures and part.proves
        assert all(len(f.look) > 40 for f in part.figures)


def test_the_run_selects_exactly_the_lesson_testcases() -> None:
    functions = {
        "noop-stable": ["test_noop_stable", "test_noop_stable_long_quiet"],
        "noop-stable[long-quiet]": ["test_noop_stable_long_quiet"],
        "stale-update-conflict": ["test_stale_update_conflict", "test_operator_conflict"],
        "stale-update-conflict[operator-409]": ["test_operator_conflict"],
    }
    wanted = run.functions_of(
        ["noop-stable", "stale-update-conflict[operator-409]", "x"], functions
    )
    assert wanted == ["test_noop_stable", "test_operator_conflict"]
    expr = run.k_expression(wanted, functions)
    assert (
        expr == "(test_noop_stable or test_operator_conflict) and not (test_noop_stable_long_quiet)"
    )
    assert run.k_expression(["test_operator_conflict"], functions) == "test_operator_conflict"
    real = run.functions_of(story.cases(), check_functions())
    assert "test_noop_stable" in real and "test_noop_stable_long_quiet" not in real


@pytest.fixture
def lesson_reports(tmp_path: Path) -> Path:
    """A reports folder as a lesson run leaves it, from the report's fixtures: the real
    implementations' JUnit files and always-update's (it ran noop-stable)."""
    folder = tmp_path / evidence.LESSON_DIR
    (folder / "mutants").mkdir(parents=True)
    for impl in ("go", "python"):
        shutil.copy(DATA / f"junit-{impl}.xml", folder / f"junit-{impl}.xml")
    shutil.copy(DATA / "junit-go.xml", folder / "mutants" / "junit-always-update.xml")
    return tmp_path


def test_evidence_lanes(lesson_reports: Path) -> None:
    ev = evidence.load(lesson_reports / evidence.LESSON_DIR, None, {"always-update": "writes"})
    noop = story.PARTS[1].figures[0]
    lanes = ev.lanes(noop)
    assert [(lane.who, lane.wrong) for lane in lanes] == [
        ("go", False),
        ("python", False),
        ("always-update", True),
    ]
    assert lanes[0].result.calls and evidence.verdict_line(lanes[0].result) == "passed"
    assert evidence.verdict_line(lanes[1].result).startswith("failed: AssertionError")
    assert ev.lanes(story.PARTS[0].figures[0]) == []  # restart-reconverges: not in the fixtures
    assert not ev.has("external-effect-once")


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_lesson_renders_from_junit_files(lesson_reports: Path, lang: str) -> None:
    paths, ev = run.write(lesson_reports, lang)
    suffix = "" if lang == "en" else f".{lang}"
    names = {p.relative_to(lesson_reports).as_posix() for p in paths}
    assert {f"lesson{suffix}.html", f"lesson{suffix}.md"} <= names
    assert f"lesson/comparison{suffix}.html" in names
    page = (lesson_reports / f"lesson{suffix}.html").read_text()
    assert f'<html lang="{lang}">' in page
    for part in story.PARTS:
        assert f'id="{part.id}"' in page
    # noop-stable (the real ones, then the mutant on its own axis), finalizer-ordered-delete
    assert page.count('<svg class="swimlane"') == 3
    assert 'data-impl="always-update"' in page  # the mutant's lane beside the real ones
    assert f'href="lesson/comparison{suffix}.html#check-noop-stable"' in page
    assert "external-effect-once" in page  # part 6 says which check its evidence needs
    back = (lesson_reports / "lesson" / f"comparison{suffix}.html").read_text()
    assert f'href="../lesson{suffix}.html"' in back
    md = (lesson_reports / f"lesson{suffix}.md").read_text()
    assert md.count("```mermaid") >= 3 and "## 6." in md
    if lang == "zh-CN":
        assert "通知携带的是地址，不是指令" in page and "两个最糟的时刻" in md
        assert "每次 reconcile 都把完整的期望子对象写一遍" in page  # the mutant's title
    problems = run.verdict(ev)
    assert "noop-stable [python]: failed" in problems  # the fixtures' python run failed it
    assert "noop-stable: mutant always-update not caught (passed)" in problems


def test_from_junit_without_a_run_is_exit_2(tmp_path: Path) -> None:
    assert run.main(["--from-junit", "--reports", str(tmp_path)]) == 2


def test_lesson_links_to_the_report(tmp_path: Path) -> None:
    model = report.build([DATA / "junit-go.xml"])
    html = render.render_html(evidence.Evidence(model), "en")
    assert 'href="comparison.html"' in html


def test_lanes_far_apart_in_time_get_axes_of_their_own() -> None:
    def lane(who: str, last: float, wrong: bool = False) -> evidence.Lane:
        timeline = f'[[0, "get", "modelservices", "web", 200], [{last}, "get", "x", "", 200]]'
        return evidence.Lane(
            who, who, wrong, report.Result("passed", evidence={"timeline": timeline})
        )

    near = [lane("go", 2.0), lane("python", 5.0), lane("m", 80.0, wrong=True)]
    assert [[x.who for x in g] for g in render.axes(near)] == [["go", "python"], ["m"]]
    far = [lane("go", 1.0), lane("python", 50.0)]
    assert [[x.who for x in g] for g in render.axes(far)] == [["go"], ["python"]]


def test_deciding_values_are_shown_in_full() -> None:
    conditions = (
        '[{"type": "Ready", "status": "False", "reason": "ReplicasUnavailable", '
        '"message": "Deployment \\"web\\" has 0/1 available replicas", "observedGeneration": 1}]'
    )
    result = report.Result(
        "passed",
        evidence={
            "conditions_first": conditions,
            "deployment_resourceVersion": '{"after": "263", "before": "260"}',
            "note": "not json",
            "at_crash": '{"deployments": [], "finalizers": ["modeldock.io/cleanup"]}',
        },
    )
    lane = evidence.Lane("go", "go", False, result)
    keys = ("deployment_resourceVersion", "conditions_first", "note", "absent")
    assert render.deciding_values(lane, keys) == (
        "deployment_resourceVersion: before 260, after 263 · "
        "conditions_first: Ready=False (ReplicasUnavailable) · note: not json"
    )
    assert render.deciding_values(lane, ("at_crash",)) == (
        "at_crash: deployments [], finalizers [modeldock.io/cleanup]"
    )
    assert render.deciding_values(lane, ()) == ""
    figures = {f.case: f for p in story.PARTS for f in p.figures}
    assert figures["noop-stable"].shows and figures["progressing-without-kubelet"].shows
