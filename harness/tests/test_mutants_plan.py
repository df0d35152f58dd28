"""The CI subset of the kill matrix (harness/mutants/plan.py): which caught_by entries each
mutant runs in CI, on which tier, with how many workers, in which order."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from harness import checks, mutants
from harness.mutants import plan, runner
from harness.paths import REPO_ROOT
from harness.tiers import OFFERS

FUNCTIONS = {
    "noop-stable": ["test_noop_stable"],
    "child-repaired": ["test_child_repaired"],
    "events-recorded": ["test_events_recorded"],
    "leader-failover": ["test_leader_failover", "test_partitioned"],
    "leader-failover[partitioned-leader]": ["test_partitioned"],
    "garbage-collected": ["test_garbage_collected"],
}
SECONDS = {
    "test_noop_stable": 10.0,
    "test_child_repaired": 20.0,
    "test_events_recorded": 15.0,
    "test_leader_failover": 40.0,
    "test_partitioned": 30.0,
    "test_garbage_collected": 12.0,
}


def test_every_entry_runs_once_against_as_few_mutants_as_cover_them() -> None:
    caught_by = {
        "always-update": ["noop-stable", "child-repaired"],
        "no-owns": ["noop-stable", "child-repaired"],
        "event-every-reconcile": ["noop-stable", "events-recorded"],
        "no-events": ["events-recorded"],
    }
    chosen = plan.ci_choice(caught_by, FUNCTIONS, SECONDS)
    # child-repaired goes to the first of its two declarers, events-recorded to no-events (no
    # alternatives), and noop-stable then to always-update, which runs anyway: each entry once,
    # two mutants started instead of four; no-owns and event-every-reconcile are left to the
    # rest (make mutants-pairs).
    assert chosen == {
        "always-update": ["noop-stable", "child-repaired"],
        "no-owns": [],
        "event-every-reconcile": [],
        "no-events": ["events-recorded"],
    }
    rest = plan.rest_choice(caught_by, FUNCTIONS, SECONDS)
    assert rest["no-owns"] == caught_by["no-owns"] and rest["always-update"] == []
    assert sum(plan.entry_seconds(v, FUNCTIONS, SECONDS) for v in chosen.values()) < sum(
        plan.entry_seconds(v, FUNCTIONS, SECONDS) for v in caught_by.values()
    )


def test_an_entry_only_one_mutant_declares_is_kept_however_dear() -> None:
    caught_by = {
        "replay-event": ["child-repaired", "leader-failover"],
        "zombie-leader": ["leader-failover[partitioned-leader]"],
    }
    chosen = plan.ci_choice(caught_by, FUNCTIONS, SECONDS)
    assert chosen == {
        "replay-event": ["child-repaired", "leader-failover"],
        "zombie-leader": ["leader-failover[partitioned-leader]"],
    }
    # its two functions once, though the case is one of them
    assert (
        plan.entry_seconds(
            ["leader-failover", "leader-failover[partitioned-leader]"], FUNCTIONS, SECONDS
        )
        == 70.0
    )


def test_a_mutant_with_no_entries_gets_none() -> None:
    assert plan.ci_choice({"x": [], "y": ["noop-stable"]}, FUNCTIONS, SECONDS) == {
        "x": [],
        "y": ["noop-stable"],
    }


def test_entries_a_tier_skips_are_not_chosen() -> None:
    needs = {"test_garbage_collected": {"garbage-collector"}}
    caught_by = {"remembers-created": ["child-repaired", "garbage-collected"]}
    assert plan.on_tier(caught_by, FUNCTIONS, needs, OFFERS["envtest"]) == {
        "remembers-created": ["child-repaired"]
    }
    assert plan.on_tier(caught_by, FUNCTIONS, needs, OFFERS["sim"]) == caught_by


def test_needs_are_read_from_the_suite() -> None:
    needs = plan.function_needs()
    assert needs["test_garbage_collected"] == {"garbage-collector"}
    assert "test_noop_stable" not in needs


def test_suites_start_longest_first_and_get_workers_only_where_they_save_time() -> None:
    order = plan.longest_first(
        {"a": ["noop-stable"], "b": ["leader-failover"], "c": ["child-repaired"]},
        FUNCTIONS,
        SECONDS,
    )
    assert order == ["b", "c", "a"]
    assert runner.suite_workers(["noop-stable"], FUNCTIONS, 4) == 0
    assert runner.suite_workers(["leader-failover"], FUNCTIONS, 4) == 2
    assert runner.suite_workers([], FUNCTIONS, 4) == 4
    # Workers only where running side by side could save XDIST_MIN_GAIN: leader-failover's
    # two functions save test_partitioned's 30 s, noop-stable beside child-repaired 10 s.
    two = ["noop-stable", "child-repaired"]
    assert plan.parallel_gain(two, FUNCTIONS, SECONDS) == 10.0
    assert runner.suite_workers(["leader-failover"], FUNCTIONS, 4, seconds=SECONDS) == 2
    assert runner.suite_workers(two, FUNCTIONS, 4, seconds=SECONDS) == 0
    slow = {**SECONDS, "a test_noop_stable": 60.0, "a test_child_repaired": 40.0}
    assert runner.suite_workers(two, FUNCTIONS, 4, "a", slow) == 2


def test_a_built_mutant_cedes_an_entry_its_python_twin_declares() -> None:
    """A Go mutant pays a compile and a link before its first check (plan.BUILD_SECONDS): an
    entry its Python twin declares as well goes to the twin (the Go one runs it in make
    mutants-pairs); an entry only a built mutant declares still runs against it."""
    twins = {"never-adopts-go": ["child-repaired"], "never-adopts": ["child-repaired"]}
    assert plan.ci_choice(twins, FUNCTIONS, SECONDS)["never-adopts-go"] == ["child-repaired"]
    chosen = plan.ci_choice(twins, FUNCTIONS, SECONDS, built={"never-adopts-go"})
    assert chosen == {"never-adopts-go": [], "never-adopts": ["child-repaired"]}
    rest = plan.rest_choice(twins, FUNCTIONS, SECONDS, built={"never-adopts-go"})
    assert rest == {"never-adopts-go": ["child-repaired"], "never-adopts": []}
    alone = {"only-go": ["garbage-collected"]}
    assert plan.ci_choice(alone, FUNCTIONS, SECONDS, built={"only-go"}) == alone
    order = plan.longest_first(
        {"a": ["noop-stable"], "b-go": ["noop-stable"]}, FUNCTIONS, SECONDS, built={"b-go"}
    )
    assert order == ["b-go", "a"]


def test_the_real_ci_subset_keeps_every_entry_on_each_tier() -> None:
    """On envtest and on sim, over the mutants `make mutants-ci` / `mutants-sim-ci` run: every
    entry the tier can run is chosen for some mutant, the sim mutants (each with entries only
    sim can run) all run, and CI runs fewer (mutant, test function) pairs than the whole
    caught_by. (The mutants left out run in make mutants-pairs: test_every_caught_by_pair_runs_in_some_regular_job.)"""
    functions = checks.case_functions()
    needs = plan.function_needs()
    for tier, mutant_ids in (
        ("envtest", [m for m in mutants.declared() if m not in runner.exploration_only()]),
        ("sim", ["generation-predicate", "tombstone-event", "remembers-created"]),
    ):
        here = [m for m in mutant_ids if not runner.tiers_of(m) or tier in runner.tiers_of(m)]
        declared = plan.on_tier(
            {m: runner.caught_by(m) for m in here}, functions, needs, OFFERS[tier]
        )
        chosen = plan.ci_choice(declared, functions, built=plan.built_mutants())
        if tier == "sim":
            assert all(chosen[m] for m in here), tier
        assert {e for v in declared.values() for e in v} == {e for v in chosen.values() for e in v}

        def pairs(table: dict[str, list[str]]) -> int:
            return sum(len({f for e in v for f in functions[e]}) for v in table.values())

        assert pairs(chosen) <= pairs(declared)
        if tier == "envtest":
            assert pairs(chosen) < pairs(declared)
        # No Go mutant is built for an entry a Python mutant of the tier declares too.
        built = plan.built_mutants()
        python_entries = {e for m, v in declared.items() if m not in built for e in v}
        assert not [(m, e) for m in built & set(chosen) for e in chosen[m] if e in python_entries]


def _make_target(name: str) -> list[str]:
    """The words of the command line of Makefile target ``name`` that runs the harness."""
    text = (REPO_ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(name)}:.*\n\t(.*-m harness mutants.*)$", text, re.M)
    assert match, f"no Makefile target {name} running python -m harness mutants"
    return shlex.split(match.group(1))


def test_every_caught_by_pair_runs_in_some_regular_job() -> None:
    """Every declared (mutant, caught_by entry) runs in a regular job: make test's mutants-ci
    (envtest) and mutants-sim-ci (sim), or make mutants-pairs (the rest of envtest's pairs),
    which .github/workflows runs as a job of its own, outside make test. A pair that none of
    them runs (a new mutant only the full make mutants would hold to its claim) fails here."""
    makefile = (REPO_ROOT / "Makefile").read_text()
    steps = re.search(r"^TEST_STEPS := (.*)$", makefile, re.M)
    assert steps and {"mutants-ci", "mutants-sim-ci"} <= set(steps.group(1).split())
    assert "mutants-pairs" not in steps.group(1).split(), "make test's time would grow"
    assert "--ci" in _make_target("mutants-ci")
    assert "--rest" in _make_target("mutants-pairs")
    sim = _make_target("mutants-sim-ci")
    assert "--ci" in sim and sim[sim.index("--cluster") + 1] == "sim"
    sim_mutants = [sim[i + 1] for i, w in enumerate(sim) if w == "--mutant"]
    workflow = (REPO_ROOT / ".github" / "workflows" / "conformance.yml").read_text()
    assert "run: make mutants-pairs" in workflow and "run: bash .ci/run" in workflow

    functions = checks.case_functions()
    needs = plan.function_needs()
    envtest = [
        m
        for m, t in mutants.declared().items()
        if m not in runner.exploration_only()
        and (not runner.tiers_of(m) or "envtest" in runner.tiers_of(m))
    ]
    ran: set[tuple[str, str]] = set()
    for m, entries in plan.subset_entries(envtest, "envtest", functions).items():
        ran |= {(m, e) for e in entries}
    for m, entries in plan.subset_entries(envtest, "envtest", functions, rest=True).items():
        ran |= {(m, e) for e in entries}
    for m, entries in plan.subset_entries(sim_mutants, "sim", functions).items():
        ran |= {(m, e) for e in entries}

    def runs_on(tier: str, entry: str) -> bool:
        return any(needs.get(f, set()) <= set(OFFERS[tier]) for f in functions[entry])

    missing = []
    for m, table in mutants.declared().items():
        for e in table.get("caught_by", []):
            where = [
                t
                for t, ms in (("envtest", envtest), ("sim", sim_mutants))
                if m in ms and runs_on(t, e)
            ]
            if not where or (m, e) not in ran:
                missing.append(f"{m}: {e}")
    assert not missing, f"caught_by pairs no regular job runs: {missing}"
    # The rest and the CI subset do not overlap: nothing runs twice.
    ci = plan.subset_entries(envtest, "envtest", functions)
    left = plan.subset_entries(envtest, "envtest", functions, rest=True)
    assert all(not set(ci[m]) & set(left[m]) for m in envtest)


def test_in_ci_only_the_chosen_entries_must_kill(tmp_path: object) -> None:
    results = {"always-update": runner.SuiteResult(failed=["noop-stable"])}
    info = {"always-update": {"caught_by": ["noop-stable", "child-repaired"]}}
    full = runner.build_matrix(results, info)
    assert full["mutants"]["always-update"]["missed"] == ["child-repaired"]
    info["always-update"]["ci_checks"] = ["noop-stable"]
    ci = runner.build_matrix(results, info)
    assert ci["mutants"]["always-update"]["missed"] == []
    assert ci["verdict"]["ok"] is True


def test_stop_suites_terminates_the_pytest_groups_this_process_started() -> None:
    """Ctrl-C during a parallel run: the suites still running in other threads are SIGTERMed
    (their process groups), other children are left alone."""
    import signal
    import subprocess
    import sys

    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    suite = subprocess.Popen([*sleeper, "pytest"], start_new_session=True)
    other = subprocess.Popen([*sleeper, "etcd"], start_new_session=True)
    try:
        from harness.suite import stop_suites

        stop_suites()
        assert suite.wait(10) == -signal.SIGTERM
        assert other.poll() is None
    finally:
        for p in (suite, other):
            p.kill()
            p.wait()


def test_unready_functions_are_every_test_of_a_module_that_starts_one_unready(
    tmp_path: Path,
) -> None:
    """A module that says ``wait_ready=False`` anywhere (a helper too) gives all its tests;
    one that does not gives none."""
    (tmp_path / "test_start.py").write_text(
        "def helper(ops):\n    return ops.start(wait_ready=False)\n\n"
        "def test_waits(ops):\n    helper(ops)\n\ndef test_other():\n    pass\n"
    )
    (tmp_path / "test_plain.py").write_text("def test_plain(ops):\n    ops.start()\n")
    assert plan.unready_functions(tmp_path) == {"test_waits", "test_other"}


def test_the_suites_unready_checks_include_the_start_up_and_rbac_ones() -> None:
    """The start-up and RBAC checks start operators without waiting; external-effect-once
    waits, but makes an exit before /readyz its own fail (ProcessError caught): a mutant
    that exits at start is probed before either, never scored killed by them."""
    unready = plan.unready_functions()
    assert {"test_waits_for_crd", "test_config_refused", "test_stops_while_refused"} <= unready
    assert {"test_answer_lost", "test_before_call", "test_server_error_id"} <= unready
    assert "test_noop_stable" not in unready


def test_unready_starts_are_only_in_test_modules() -> None:
    """unready_functions reads only conformance/test_*.py: a helper module that starts an
    operator without waiting, or catches a start's ProcessError, would hide its checks from
    it (a mutant that exits at start scored killed), so none may."""
    from harness.paths import REPO_ROOT

    helpers = [
        p.name
        for p in sorted((REPO_ROOT / "conformance").glob("*.py"))
        if not p.name.startswith("test_")
        and any(marker in p.read_text() for marker in plan.UNREADY_STARTS)
    ]
    assert helpers == [], (
        f"{helpers} start an operator without waiting for /readyz or catch its ProcessError: "
        "move that into the test_*.py module that uses it (harness.mutants.plan.unready_functions)"
    )


def test_preflight_comes_first_only_for_the_whole_suite_or_an_unready_check() -> None:
    """The full run (no entries) and a mutant judged by a check that may start an operator
    without waiting for /readyz are probed first; a CI suite of other checks is not."""
    unready = {"test_partitioned"}
    assert plan.preflight_first(None, FUNCTIONS, unready)
    assert plan.preflight_first([], FUNCTIONS, unready)
    assert plan.preflight_first(["leader-failover[partitioned-leader]"], FUNCTIONS, unready)
    assert plan.preflight_first(["noop-stable", "leader-failover"], FUNCTIONS, unready)
    assert not plan.preflight_first(["noop-stable", "child-repaired"], FUNCTIONS, unready)
