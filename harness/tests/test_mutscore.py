"""Unit tests of the mutation score (harness/mutscore): stable ids, the Go token swap, the
per-check coverage's namespace mapping, survivors.toml, the sample and the tally. No control
plane: the tools' lists and the score's arithmetic only."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.mutscore import cover, generate, order, score
from harness.mutscore import sample as msample
from harness.mutscore import survivors as msurv
from harness.mutscore import tally as mtally
from harness.mutscore.generate import ToolMutant
from harness.mutscore.selection import python_selected
from harness.paths import REPO_ROOT
from harness.report import html_sections, markdown, mutation_score

LISTING = """Starting...
 NOT COVERED CONDITIONALS_NEGATION at catalog.go:55:9
    RUNNABLE INVERT_LOGICAL at controller.go:10:3
 NOT COVERED ARITHMETIC_BASE at main_test.go:1:1
"""


@functools.cache
def every_python_mutant() -> tuple[ToolMutant, ...]:
    """cosmic-ray's whole list of the Python operator's mutants, made once for this module:
    each making takes about 4 CPU-seconds, and five tests here read it."""
    return tuple(generate.python_mutants(every=True))


def test_parse_gremlins_keeps_type_and_position() -> None:
    assert generate.parse_gremlins(LISTING) == [
        ("CONDITIONALS_NEGATION", "catalog.go", 55, 9),
        ("INVERT_LOGICAL", "controller.go", 10, 3),
        ("ARITHMETIC_BASE", "main_test.go", 1, 1),
    ]


def test_go_token_is_the_longest_at_the_column() -> None:
    src = "package main\nfunc f(a, b int) bool { return a <= b && a != 0 }\n"
    assert generate.go_token_at(src, 2, 34, "CONDITIONALS_BOUNDARY") == "<="
    with pytest.raises(generate.GenerationError):
        generate.go_token_at(src, 2, 1, "CONDITIONALS_BOUNDARY")


def test_go_function_names_receiver_and_method() -> None:
    src = "package main\n\nfunc (r *Rec) Reconcile(x int) {\n\tx++\n}\n\nvar y = 1\n"
    assert generate.go_function(src, 4) == "Rec.Reconcile"
    assert generate.go_function(src, 7) == "<package>"


def test_a_go_mutant_swaps_its_token() -> None:
    assert generate.go_mutants("") == []
    src = (generate.GO_DIR / "catalog.go").read_text()
    # a listing made here from the first comparison of catalog.go
    line_no, col = next(
        (i, t.index("!=") + 1) for i, t in enumerate(src.splitlines(), 1) if "!=" in t
    )
    [m] = generate.go_mutants(f" NOT COVERED CONDITIONALS_NEGATION at catalog.go:{line_no}:{col}\n")
    assert (m.original, m.replacement, m.occurrence) == ("!=", "==", 0)
    mutated = generate.go_source(m)
    assert mutated != src and mutated.replace("==", "!=").count("!=") >= src.count("!=")


def test_python_ids_are_stable_and_unique() -> None:
    first = generate.python_mutants(["python_operator/runtime/workqueue.py"], every=True)
    again = generate.python_mutants(["python_operator/runtime/workqueue.py"], every=True)
    assert [m.id for m in first] == [m.id for m in again]
    assert len({m.id for m in first}) == len(first) > 50
    m = next(m for m in first if m.operator == "core/ReplaceTrueWithFalse")
    assert (m.original, m.replacement) == ("True", "False")
    assert m.id.startswith("python:python_operator/runtime/workqueue.py:")
    mutated = generate.python_source(m)
    assert mutated != (REPO_ROOT / m.file).read_text()


def test_annotations_are_tagged() -> None:
    ms = generate.python_mutants(["python_operator/runtime/workqueue.py"], every=True)
    tagged = [m for m in ms if m.context == "annotation"]
    assert tagged and all(m.operator.startswith("core/ReplaceBinaryOperator_BitOr") for m in tagged)


def test_namespace_names_its_check() -> None:
    checks = ["create-converges", "noop-stable", "finalizer-ordered-delete"]
    assert cover.check_of("md-noop-stable-0a1b2c", checks) == "noop-stable"
    assert cover.check_of("md-preflight-0a1b2c", checks) is None
    assert cover.check_of("kube-system", checks) is None
    by_check = {"noop-stable": {"f.py": [3, 4]}, "create-converges": {"f.py": [4]}}
    assert cover.checks_at(by_check, "f.py", 4) == ["create-converges", "noop-stable"]
    assert cover.checks_at(by_check, "f.py", 5) == []


def _m(op: str = "core/NumberReplacer", context: str = "", n: int = 0) -> ToolMutant:
    return ToolMutant("python", "a.py", "f", op, "a or b", "a and b", n, 3, context=context)


def test_survivors_file_is_valid_and_classes_match(tmp_path: Path) -> None:
    real = msurv.load_survivors()
    assert real.classify(_m(context="annotation"))[0] == "equivalent"  # type: ignore[index]
    assert real.classify(_m()) is None
    bad = tmp_path / "s.toml"
    bad.write_text('[mutant."x"]\nkind = "maybe"\nreason = "r"\n')
    with pytest.raises(ValueError, match="kind"):
        msurv.load_survivors(bad)


def test_choose_is_seeded_and_adds_each_class() -> None:
    ms = [_m(n=i) for i in range(30)] + [_m(context="annotation", n=99)]
    surv = msurv.Survivors(
        classes={"a": {"kind": "equivalent", "reason": "r", "context": "annotation"}}
    )
    one = score.choose(ms, 5, 7, surv)
    assert one == score.choose(ms, 5, 7, surv)
    assert any(m.context == "annotation" for m in one)
    extra = [_m(context="annotation", n=100)]
    assert len(msurv.assumed_equivalent(one + extra, surv)) == 1  # all but the first of a class


def test_tally_counts_and_scores() -> None:
    rows = [
        {"status": "killed"},
        {"status": "killed"},
        {"status": "survived", "kind": "equivalent"},
        {"status": "survived"},
        {"status": "not covered"},
        {"status": "stillborn"},
    ]
    t = mtally.tally(rows)
    assert (t["generated"], t["covered"], t["killed"], t["equivalent"]) == (6, 5, 2, 1)
    assert (t["unclassified"], t["stillborn"]) == (1, 1)
    assert t["score"] == round(2 / 3, 4)


def _one_survivor(m: ToolMutant, total: int) -> dict[str, Any]:
    """The report of one run in which ``m`` (of ``total`` generated) survived noop-stable."""
    run = {"sample": 1, "seed": 2, "checks": ["noop-stable"], "max_checks": 1}
    status = {m.id: {"status": "survived"}}
    return mtally.build_report(
        {"python": total}, [m], {m.id: ["noop-stable"]}, status, msurv.Survivors(), run
    )


def test_report_section_lists_counts_and_survivors() -> None:
    m = ToolMutant("python", "a.py", "f", "core/ReplaceOrWithAnd", "a||b", "x", 0, 3)
    assert "`python:a.py:f:core/ReplaceOrWithAnd:a\\|\\|b->x#0`" in "\n".join(
        markdown.mutation_score_markdown(
            mutation_score.mutation_score(
                mtally.build_report(
                    {}, [m], {m.id: ["x"]}, {m.id: {"status": "survived"}}, msurv.Survivors(), {}
                )
            )
        )
    )
    m = _m()
    data = _one_survivor(m, 10)
    assert data["languages"]["python"]["unclassified"] == 1
    assert data["unclassified"] == [m.id]
    text = "\n".join(markdown.mutation_score_markdown(mutation_score.mutation_score(data)))
    assert "UNCLASSIFIED" in text and "| python | 10 | 1 | 1 | 0 |" in text
    assert "`python:a.py:f:core/NumberReplacer:a or b->a and b#0`" in text
    assert 'id="mutation-score"' in html_sections.mutation_score_section(
        mutation_score.mutation_score(data)
    )


def test_every_classified_python_id_is_selected_now() -> None:
    """A survivors.toml entry whose id the selection does not judge is stale: the tool no
    longer generates it (the line was edited: classify the mutant again under its new id), or
    the selection (harness/mutscore/selection.py) drops its kind, and it classifies nothing a
    run judges. (Go ids need gremlins' listing, made by make mutation-score; they are checked
    there by --rescore dropping unknown ids.)"""
    ids = {m.id for m in python_selected(list(every_python_mutant()))}
    stale = [i for i in msurv.load_survivors().mutants if i.startswith("python:") and i not in ids]
    assert stale == []


def test_rescore_reclassifies_without_running() -> None:
    m = _m()
    before = _one_survivor(m, 5)
    assert before["unclassified"] == [m.id]
    now = msurv.Survivors(mutants={m.id: {"kind": "gap", "reason": "r"}})
    after = mtally.rescore(before, {"python": [m]}, now)
    assert after["unclassified"] == [] and after["mutants"][m.id]["kind"] == "gap"
    assert after["languages"]["python"]["generated_total"] == 5
    assert mtally.rescore(before, {"python": []}, now)["mutants"] == {}


def test_a_killed_gap_is_not_a_killed_equivalent() -> None:
    gap, eq = _m(n=1), _m(n=2)
    surv = msurv.Survivors(
        mutants={
            gap.id: {"kind": "gap", "reason": "r"},
            eq.id: {"kind": "equivalent", "reason": "r"},
        }
    )
    killed = {"status": "killed", "killed_by": ["noop-stable"]}
    data = mtally.build_report({}, [gap, eq], {}, {gap.id: killed, eq.id: killed}, surv, {})
    assert data["killed_equivalents"] == [eq.id]
    assert data["killed_classified"] == [gap.id]


def test_concepts_pair_go_and_python_functions() -> None:
    assert mtally.concept("computeStatus") == mtally.concept("compute_status") == "compute_status"
    assert mtally.concept("ModelServiceReconciler.ensureChild") == "ensure_child"
    go = ToolMutant("go", "c.go", "computeStatus", "X", "==", "!=", 0, 1)
    py = ToolMutant("python", "c.py", "compute_status", "Y", "==", "!=", 0, 1)
    data = mtally.build_report(
        {},
        [go, py],
        {},
        {go.id: {"status": "killed"}, py.id: {"status": "survived"}},
        msurv.Survivors(),
        {},
    )
    assert data["comparison"]["compute_status"]["go"]["killed"] == 1
    assert data["comparison"]["compute_status"]["python"]["killed"] == 0
    assert "| `compute_status` | 1 / 1 | 0 / 1 |" in "\n".join(
        markdown.mutation_score_markdown(mutation_score.mutation_score(data))
    )


def test_a_case_judges_where_its_check_ran() -> None:
    """Coverage is filed by check id (the namespace names the check); a judging entry that is
    a case (``child-repaired[immutable-selector]``) judges the lines its check executed."""
    m = _m()
    coverage = {"child-repaired": {"a.py": [3]}, "noop-stable": {"a.py": [4]}}
    wanted = ["child-repaired[immutable-selector]", "noop-stable"]
    assert order.judging_checks(m, coverage, 3, wanted) == ["child-repaired[immutable-selector]"]


def test_a_vanished_sample_id_is_an_error_naming_the_fix(tmp_path: Path) -> None:
    kept, other, gone = _m(n=0), _m(n=1), _m(n=2)
    path = tmp_path / "sample.toml"
    msample.write_sample(path, {"python": [kept.id, gone.id]})
    sample = msample.load_sample(path)
    assert sample == {"python": [kept.id, gone.id]}
    everything = {"python": [kept, other]}
    with pytest.raises(msample.SampleError, match="--refresh-sample") as err:
        msample.fixed_sample(everything, sample, path)
    assert gone.id in str(err.value) and str(path) in str(err.value)
    new, replaced = msample.refresh_sample(everything, sample, 25)
    assert new == {"python": [kept.id, other.id]}  # the same function's other mutant
    assert replaced == [(gone.id, other.id)]
    assert msample.fixed_sample(everything, new, path) == [kept, other]


def test_write_sample_keeps_the_review_notes(tmp_path: Path) -> None:
    path = tmp_path / "sample.toml"
    path.write_text("# reviewed by a human\n\n[go]\nids = []\n")
    msample.write_sample(path, {"go": ["go:x.go:f:OP:a->b#0"]})
    assert path.read_text().startswith("# reviewed by a human\n")
    assert msample.load_sample(path) == {"go": ["go:x.go:f:OP:a->b#0"]}


def test_the_fixed_sample_names_generated_python_mutants() -> None:
    """make test's sample (harness/mutscore/sample.toml) names only ids cosmic-ray generates
    now; Go's are checked by the make step itself (gremlins' listing)."""
    sample = msample.load_sample(msample.SAMPLE_FILE)
    assert 8 <= len(sample["go"]) <= 14 and 8 <= len(sample["python"]) <= 14
    ids = {m.id for m in python_selected(list(every_python_mutant()))}
    assert [i for i in sample["python"] if i not in ids] == []


def test_the_selection_keeps_ids_and_drops_redundant_kinds() -> None:
    """The selection (harness/mutscore/selection.py) is a subset of the tool's list with the
    same ids; per comparison site it keeps the sufficient three (``<``: ``<=``, ``!=``,
    ``>=``), per arithmetic site gremlins' one, and no annotation or duplicate ``not``."""
    from harness.mutscore import selection

    every = list(every_python_mutant())
    kept = generate.python_mutants()  # the default call: the selection, numbered as every
    assert kept == python_selected(every)
    assert {m.id for m in kept} <= {m.id for m in every} and 0 < len(kept) < len(every) / 3
    assert not [m for m in kept if m.context]
    ops = {m.operator.removeprefix("core/") for m in kept}
    assert (
        "ReplaceComparisonOperator_Lt_LtE" in ops and "ReplaceComparisonOperator_Lt_Gt" not in ops
    )
    assert "ReplaceBinaryOperator_Add_Sub" in ops and "ReplaceBinaryOperator_Add_Mul" not in ops
    assert "NumberReplacer" not in ops and "RemoveDecorator" not in ops
    s = selection.summary(every, [m.id for m in every[:5]])
    assert s["tool_total"] == len(every) and s["selected"] == len(kept)
    assert sum(s["dropped"].values()) == len(every) - len(kept)


def test_a_not_that_another_mutant_makes_is_a_duplicate() -> None:
    """``not a == b`` is ROR's ``a != b``; ``not not x`` is the removal of ``not``."""
    notes: list[tuple[tuple[int, int], tuple[int, int]]] = []
    ctx = generate._python_context
    assert ctx("core/AddNot", "a == b", (1, 0), notes) == "negated-comparison"
    assert ctx("core/AddNot", "x is None", (1, 0), notes) == "negated-comparison"
    assert ctx("core/AddNot", "not ready(x)", (1, 0), notes) == "double-negation"
    assert ctx("core/AddNot", "a < b < c", (1, 0), notes) == ""
    assert ctx("core/AddNot", "k in seen", (1, 0), notes) == ""
    assert ctx("core/AddNot", "a and b", (1, 0), notes) == ""
    assert ctx("core/NumberReplacer", "a == b", (1, 0), notes) == ""


def test_earlier_kills_of_the_function_come_first() -> None:
    """Without history the cheapest check goes first; a check that killed mutants of the same
    function in an earlier report goes before it (configFromEnv: config-refused)."""
    m = _m()
    coverage = {"noop-stable": {"a.py": [3]}, "config-refused": {"a.py": [3]}}
    wanted = ["config-refused", "noop-stable"]
    assert order.judging_checks(m, coverage, 1, wanted) == ["noop-stable"]
    earlier = {
        "mutants": {
            "x": {
                "status": "killed",
                "lang": "python",
                "file": "a.py",
                "function": "f",
                "killed_by": ["config-refused"],
            },
            "y": {"status": "survived", "lang": "python", "file": "a.py", "function": "f"},
        }
    }
    prior = order.prior_kills(earlier)
    assert prior["python:a.py:f"] == {"config-refused": 1}
    assert prior["id:x"] == {"config-refused": 1} and "id:y" not in prior
    assert order.judging_checks(m, coverage, 1, wanted, prior) == ["config-refused"]


def test_the_likeliest_cheap_killer_goes_first() -> None:
    """Without a kill of the same function, checks go by seconds per kill: CHECK_SECONDS over
    the check's kill rate (Laplace) among the language's mutants it ran against; this very
    mutant's earlier killer goes before everything."""
    m = _m()
    coverage = {"noop-stable": {"a.py": [3]}, "events-recorded": {"a.py": [3]}}
    wanted = ["events-recorded", "noop-stable"]
    cheap = order.judging_checks(m, coverage, 2, wanted)
    rows = {
        f"k{i}": {
            "status": "killed" if i < 9 else "survived",
            "lang": "python",
            "file": "b.py",
            "function": "g",
            "ran": [cheap[1]] if i < 9 else cheap,
            "killed_by": [cheap[1]] if i < 9 else [],
        }
        for i in range(10)
    }
    prior = order.prior_kills({"mutants": rows})
    assert prior["killed:python"] == {cheap[1]: 9}
    assert prior["ran:python"] == {cheap[1]: 10, cheap[0]: 1}
    assert order.judging_checks(m, coverage, 2, wanted, prior) == [cheap[1], cheap[0]]
    prior[f"id:{m.id}"] = {cheap[0]: 1}
    assert order.judging_checks(m, coverage, 2, wanted, prior)[0] == cheap[0]


def test_kills_of_the_same_concept_in_the_other_language_order_the_checks() -> None:
    """Go's kills in ``ensureChild`` put their killer first for Python's ``ensure_child``
    (after this mutant's own killer and its own function's), before the cheapest."""
    m = ToolMutant("python", "a.py", "Reconciler.ensure_child", "core/X", "a", "b", 0, 3)
    coverage = {"noop-stable": {"a.py": [3]}, "events-recorded": {"a.py": [3]}}
    wanted = ["events-recorded", "noop-stable"]
    cheap = order.judging_checks(m, coverage, 2, wanted)
    go_row = {
        "status": "killed",
        "lang": "go",
        "file": "c.go",
        "function": "ModelServiceReconciler.ensureChild",
        "killed_by": [cheap[1]],
    }
    prior = order.prior_kills({"mutants": {"g": go_row}})
    assert prior["concept:ensure_child"] == {cheap[1]: 1}
    assert order.judging_checks(m, coverage, 2, wanted, prior) == [cheap[1], cheap[0]]


def test_an_unknown_mutant_id_is_named_not_passed_over() -> None:
    ms = [_m(n=i) for i in range(3)]
    assert msample.unknown_ids([ms[1].id, "python:a.py:f:nosuch#0"], {"python": ms}) == [
        "python:a.py:f:nosuch#0"
    ]
    assert msample.unknown_ids([m.id for m in ms], {"python": ms}) == []


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--sample", "-3"], "--sample -3: give a number of mutants per language, 0 or more"),
        (["--jobs", "0"], "--jobs 0: give a number of at least 1"),
        (["--workers", "-1"], "--workers -1: give a number of at least 1"),
        (["--max-checks", "0"], "--max-checks 0: give a number of at least 1"),
    ],
)
def test_bad_numbers_are_refused_before_any_work(argv: list[str], says: str) -> None:
    """Refused right after parsing: --sample -3 used to be a ValueError from random.sample
    after 20 s of generating mutants."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "mutation-score", *argv],
        capture_output=True,
        text=True,
        timeout=600,  # judges what it says, not how fast a loaded machine starts Python
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"[mutation-score] {says}"]


def test_sample_zero_needs_mutant_ids() -> None:
    """--sample 0 draws none: only with --mutant does it judge anything."""
    import argparse

    def args(sample: int | None, mutant: list[str]) -> argparse.Namespace:
        return argparse.Namespace(sample=sample, mutant=mutant, max_checks=3, jobs=1, workers=1)

    assert "--sample 0: draws no mutant" in str(msample.arguments_problem(args(0, [])))
    assert msample.arguments_problem(args(0, ["some-id"])) is None
    assert msample.arguments_problem(args(None, [])) is None


def test_a_case_s_kill_orders_the_check_judged_whole() -> None:
    """A kill reported under a case of a check JUDGE_CHECKS holds whole counts for that check
    and for the case itself (what a --checks all run judges); a case judged on its own keeps
    its name."""
    from harness.mutscore.order import judged_as, prior_kills

    assert judged_as("status-follows-rollout[played-rollout]") == "status-follows-rollout"
    assert judged_as("status-rebuilt[deployment-status]") == "status-rebuilt[deployment-status]"
    assert judged_as("no-such-check[x]") == "no-such-check[x]"
    data = {
        "mutants": {
            "go:m": {
                "status": "killed",
                "lang": "go",
                "file": "f.go",
                "function": "judgeRollout",
                "killed_by": ["status-follows-rollout[played-rollout]"],
            }
        }
    }
    assert prior_kills(data)["go:f.go:judgeRollout"] == {
        "status-follows-rollout": 1,
        "status-follows-rollout[played-rollout]": 1,
    }


def test_not_judging_names_real_checks_and_leaves_the_judging_set() -> None:
    """--checks all drops NOT_JUDGING from the suite's checks: each entry names a check or case
    that exists (a renamed one would silently judge again), and none of JUDGE_CHECKS is
    dropped."""
    from harness.checks import check_functions
    from harness.mutscore.order import JUDGE_CHECKS, NOT_JUDGING

    assert set(check_functions()) >= NOT_JUDGING
    assert not NOT_JUDGING & set(JUDGE_CHECKS)


def test_judging_interleaves_the_languages_go_first() -> None:
    """order.interleaved: a Go build per mutant spread over the run, not queued at its end."""
    py = [ToolMutant("python", "a.py", "f", "o", "a", "b", n, 3) for n in range(3)]
    go = [ToolMutant("go", "a.go", "f", "o", "a", "b", n, 3) for n in range(2)]
    turns = order.interleaved([*py, *go])
    assert [(m.lang, m.occurrence) for m in turns] == [
        ("go", 0),
        ("python", 0),
        ("go", 1),
        ("python", 1),
        ("python", 2),
    ]


def test_coverage_is_keyed_by_the_judging_checks_files_only(tmp_path: Path) -> None:
    """cover.judging_files: the non-test modules and the test files that mark one of the
    checks; a test file of other checks only is not part of the coverage key."""
    (tmp_path / "support.py").write_text("x = 1\n")
    (tmp_path / "test_a.py").write_text('@pytest.mark.modeldock_check("noop-stable")\n')
    (tmp_path / "test_b.py").write_text('@pytest.mark.modeldock_check("leader-failover")\n')
    files = cover.judging_files(["noop-stable", "create-converges[names-itself]"], tmp_path)
    assert [p.name for p in files] == ["support.py", "test_a.py"]
    key = cover.coverage_key("python", ["noop-stable"])
    assert key == cover.coverage_key("python", ["noop-stable"]) and len(key) == 16
    assert cover.cached_coverage("python", ["noop-stable"]).parent == cover.cache_dir()


def test_the_cached_python_listing_is_the_tools_list(tmp_path: Path) -> None:
    """generate.python_listing: the first call makes and caches cosmic-ray's whole list, the
    second reads the cache; both equal python_mutants(every=True), ids and all."""
    made = generate.python_listing(tmp_path)
    assert len(list(tmp_path.glob("cosmic-ray-*.json"))) == 1
    read = generate.python_listing(tmp_path)
    assert read == made == list(every_python_mutant())
    assert [m.id for m in read] == [m.id for m in made]


def test_the_python_coverage_run_saves_its_data_before_os_exit(tmp_path: Path) -> None:
    """harness.mutscore.coverrun: a process under coverage.py that ends in os._exit (a lost
    Lease, a crash point) still leaves its data file, with the lines it ran before the exit;
    the coverage implementation starts the operator through it."""
    script = tmp_path / "exits.py"
    script.write_text(
        "import os\n"
        "from harness.mutscore.coverrun import saving_exit\n"
        "os._exit = saving_exit(os._exit)\n"
        "x = 1\n"
        "os._exit(3)\n"
    )
    data = tmp_path / "cov"
    done = subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--data-file={data}", str(script)],
        cwd=REPO_ROOT,
        check=False,
    )
    assert done.returncode == 3
    import coverage

    measured = coverage.CoverageData(basename=str(data))
    measured.read()
    assert {4, 5} <= set(measured.lines(str(script)) or ())
    assert "-m harness.mutscore.coverrun" in cover.implementations(tmp_path)


def test_remove_orphaned_takes_only_the_files_of_gone_processes(tmp_path: Path) -> None:
    """A run SIGKILLed leaves its ``mutants-<pid>.toml``; the next run removes it, and leaves
    those of live processes (its own, a run beside it) and names that are no pid."""
    import os
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    gone = tmp_path / f"mutants-{int(dead.stdout)}.toml"
    mine = tmp_path / f"mutants-{os.getpid()}.toml"
    parent = tmp_path / f"mutants-{os.getppid()}.toml"
    other = tmp_path / "mutants-sample.toml"
    for p in (gone, mine, parent, other):
        p.write_text("")
    gone_junit = tmp_path / f"junit-{int(dead.stdout)}"
    (gone_junit / "logs").mkdir(parents=True)
    (gone_junit / "junit-tm-py-1.xml").write_text("<testsuites/>")
    mine_junit = tmp_path / f"junit-{os.getpid()}"
    mine_junit.mkdir()
    assert sorted(score.remove_orphaned(tmp_path)) == sorted([gone, gone_junit])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (mine, parent, other, mine_junit)
    )


def test_a_coverage_run_that_recorded_no_line_is_an_error_and_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cover.ensure_coverage: a run whose operator processes left no coverage data (here the
    suite run does nothing; in life, an operator imported from another checkout through a
    shared virtualenv) raises CoverageError and caches nothing, so that the next run measures
    again; cached, ``{}`` made every mutant of the language "not covered" and the sample pass
    with no Python mutant judged."""
    import harness.suite

    monkeypatch.setattr(harness.suite, "run_suite", lambda *a, **k: None)
    monkeypatch.setattr(cover, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(cover, "COVER_DIR", tmp_path / "build" / "cover")
    with pytest.raises(cover.CoverageError, match=r"python coverage: .* recorded no line"):
        cover.ensure_coverage(["python"], ["noop-stable"], tmp_path / "state", 1)
    assert not list((tmp_path / "cache").glob("coverage-*"))
