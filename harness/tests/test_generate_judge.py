"""``generate-judge`` and ``generate-cases`` without a cluster (harness/generate/judge.py): the
targets, the verdict read from a run's generated.json and output, the arguments refused, the
shipped cases replayed in make generate-ci. The runs themselves are ``make generate-mutants``
and ``make generate-ci``."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from harness.generate import judge
from harness.generate.machine import read_case


def _every_id(lang: str) -> set[str]:
    """A stand-in for ``judge.tool_ids``: every id survivors.toml names, as if each were
    generated today."""
    from harness.mutscore.survivors import load_survivors

    return {i for i in load_survivors().mutants if i.startswith(lang + ":")}


def test_the_targets_are_the_exploration_mutants_the_survivors_and_controls() -> None:
    targets = judge.targets(controls=1, generated=_every_id)
    groups = {t.group for t in targets}
    assert groups <= set(judge.GROUPS) and {"exploration", "control"} <= groups
    names = {t.id for t in targets if t.group == "exploration"}
    assert {"step-annotation", "status-after-writes", "remembers-status"} <= names
    # one equivalent control per language, the reconciler's file first
    controls = [t for t in targets if t.group == "control"]
    assert sorted(t.reference for t in controls) == ["go", "python"]
    assert all("controller." in t.id.split(":")[1] for t in controls)
    assert all(t.reference == t.id.split(":")[0] for t in targets if t.group != "exploration")
    assert not [t for t in judge.targets(controls=0) if t.group == "control"]


def test_a_control_is_chosen_among_the_ids_a_tool_generates_now() -> None:
    first = {t.reference: t.id for t in judge.targets(1, _every_id) if t.group == "control"}

    def without_first(lang: str) -> set[str]:  # the first choice no longer generated
        return _every_id(lang) - {first[lang]}

    now = {t.reference: t.id for t in judge.targets(1, without_first) if t.group == "control"}
    assert set(now) == {"go", "python"}
    assert all(now[lang] != first[lang] and now[lang] in _every_id(lang) for lang in now)


def test_no_generated_equivalent_id_is_a_one_line_error_naming_the_fix() -> None:
    def no_python(lang: str) -> set[str]:
        return set() if lang == "python" else _every_id(lang)

    with pytest.raises(ValueError, match=r"--controls 1: no python entry .* --controls 0"):
        judge.targets(1, no_python)
    assert not [t for t in judge.targets(0, no_python) if t.group == "control"]


def test_the_tools_lists_are_made_only_when_a_control_may_be_chosen() -> None:
    assert judge.wants_controls([]) and judge.wants_controls(["control"])
    assert judge.wants_controls(["python:python_operator/controller.py:x:y#0"])
    assert not judge.wants_controls(["remembers-status", "exploration", "gap"])


def test_select_takes_names_and_groups_and_refuses_others() -> None:
    targets = judge.targets(generated=_every_id)
    assert [t.id for t in judge.select(targets, ["step-annotation"])] == ["step-annotation"]
    assert {t.group for t in judge.select(targets, ["control"])} == {"control"}
    assert judge.select(targets, []) == targets
    with pytest.raises(ValueError, match="--mutant nope: not a target; give a group"):
        judge.select(targets, ["nope"])


LOG = """\
[generate] sequence [create quiet]: ok in 3.0s
[generate] sequence [create metadata quiet]: FAIL [m] differential: differs
[generate] sequence [create quiet]: FAIL [m] differential: differs
"""


def test_steps_to_kill_counts_up_to_the_first_failing_sequence() -> None:
    assert judge.steps_to_kill(LOG) == 5
    assert judge.steps_to_kill("[generate] sequence [create]: ok in 1s\n") is None


def _row() -> judge.Row:
    return judge.Row("m", "exploration", "python", "a note", impl="m")


def test_the_verdict_is_the_mutant_lanes_and_names_the_shrunk_cases_oracle() -> None:
    data = {
        "flaky": 0,
        "implementations": {
            "python": {"steps": 30, "sequences": 3, "failures": 0},
            "m": {"steps": 30, "sequences": 3, "failures": 2, "oracles": {"differential": 2}},
        },
        "failure": {"implementation": "m", "oracle": "differential", "message": "differs",
                    "steps": 2, "case": "c.yaml"},
    }  # fmt: skip
    row = judge.verdict(_row(), data, LOG)
    assert (row.killed, row.oracle, row.case_steps, row.steps_to_kill) == (
        True, "differential", 2, 5,
    )  # fmt: skip
    assert row.case == "c.yaml" and row.reference_failures == 0
    data["implementations"]["m"]["failures"] = 0  # type: ignore[index]
    assert not judge.verdict(_row(), data, LOG).killed


def test_a_failure_of_the_reference_alone_is_no_kill() -> None:
    data = {
        "implementations": {"python": {"failures": 1}, "m": {"failures": 0}},
        "failure": {"implementation": "python", "oracle": "quiet", "steps": 3, "case": "c"},
    }
    row = judge.verdict(_row(), data, "")
    assert not row.killed and row.reference_failures == 1 and row.oracle is None


def _args(**kw: float) -> argparse.Namespace:
    base = {"controls": 1, "sequences": 6, "steps": 12, "jobs": 1, "shrink_seconds": 90.0}
    return argparse.Namespace(**(base | kw))


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("controls", -1, "--controls -1: give a number of at least 0"),
        ("sequences", 0, "--sequences 0: give a number of at least 1"),
        ("jobs", 0, "--jobs 0: give a number of at least 1"),
        ("shrink_seconds", -1.0, "--shrink-seconds -1.0: give a number of at least 0"),
    ],
)
def test_bad_numbers_are_refused_naming_the_option(field: str, value: float, said: str) -> None:
    assert judge.judge_problem(_args()) is None
    assert judge.judge_problem(_args(**{field: value})) == said


def test_bad_arguments_exit_2_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    assert judge.main(["--mutant", "nope"]) == 2
    assert "--mutant nope: not a target" in capsys.readouterr().err
    assert judge.main(["--steps", "0"]) == 2
    assert judge.cases_main([str(Path("no-such.yaml"))]) == 2


def test_the_ci_cases_are_shipped_cases_on_go_and_python() -> None:
    """Every case make generate-ci replays is one of harness/generate/cases/, readable, and
    about the reference operators (not a mutant's case, which fails by design)."""
    files = judge.ci_cases()
    assert len(files) >= 4
    for f in files:
        case = read_case(f)
        assert set(case.get("implementations") or [case["implementation"]]) <= {"go", "python"}


def test_a_table_line_per_verdict() -> None:
    row = _row()
    assert judge.line(row) == "| m | exploration | no | - | - | - | 0 |"
    row.error = "generate exit 2: x"
    assert "| error |" in judge.line(row)
    row.killed, row.by, row.oracle, row.case_steps = True, "shipped case", "differential", 5
    assert judge.line(row).startswith(
        "| m | exploration | yes (shipped case) | differential | - | 5 |"
    )


def test_a_target_the_draws_miss_is_judged_by_the_cases_naming_it(tmp_path: Path) -> None:
    assert [f.name for f in judge.shipped_cases("step-annotation")] == [
        "step-annotation-skipped-rollout.yaml"
    ]
    assert judge.shipped_cases("no-such-mutant") == []
    log = tmp_path / "replay.log"
    log.write_text("[generate] x\n[generate] FAILED [m] differential: differs from python\n")
    assert judge.read_failure(log) == "[m] differential: differs from python"
    assert judge.read_failure(tmp_path / "missing.log") is None


def test_a_row_round_trips_through_the_json_for_update() -> None:
    import dataclasses

    row = _row()
    assert judge.Row(**dataclasses.asdict(row)) == row


def test_the_oracle_of_a_replayed_failure_is_the_mutants() -> None:
    assert judge.replay_oracle("[m] level-triggered: the world differs", "m") == "level-triggered"
    assert judge.replay_oracle("[python] quiet: still writing", "m") is None
    assert judge.replay_oracle(None, "m") is None
