"""The CI subset of the kill matrix (``python -m harness mutants --ci``): which of a mutant's
``caught_by`` entries run in CI, and in which order the mutants' suites start.

The full run (``make mutants``) runs every check against every mutant and holds every
``caught_by``. CI keeps what the kill matrix is for and drops only repetitions:
``ci_choice`` picks, per mutant, a subset of its ``caught_by`` such that every distinct entry
of any ``caught_by`` (``child-repaired``, ``watch-recovers[connection-cut]``) is chosen for at
least one mutant: every check and case named in a ``caught_by`` still has to kill a mutant in
CI, while an entry several mutants declare (five declare ``noop-stable``) runs against one of
them. A mutant none of whose entries is chosen does not run in CI: every pair CI leaves out,
its pairs included, runs in ``make mutants-pairs`` (``rest_choice``), a regular job of its own,
so every mutant is still shown killed by each check that must catch it.

It is a small weighted set cover, solved greedily and deterministically: each entry, those
with the fewest declaring mutants first, goes to a declaring mutant that already runs something
(one start, one build fewer), then the cheapest, the one with the fewest alternatives, the
first declared. Cost is the seconds of the test functions an entry runs (``CHECK_SECONDS``,
measured), each function counted once per mutant, and ``BUILD_SECONDS`` for starting a mutant
that is built first (a Go mutant), so an entry a Python twin declares too goes to the twin. The verdict is unchanged: a kill is a
``fail`` verdict, and every chosen entry must kill its mutant, as every ``caught_by`` entry
must in the full run.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness import mutants
from harness.checks import NEEDS_MARKER
from harness.paths import CONFORMANCE_DIR
from harness.tiers import OFFERS

#: Seconds one test function takes against a mutant it kills, measured in a CI run (2 cores
#: shared with other work, load 7-13; a mutant's checks one or two at a time): the typical
#: time, and under "<mutant> <function>" where a mutant differs, for a kill that waits out a
#: bound (CONVERGE_TIMEOUT: the operator never converges). Only the order matters: the cover
#: prefers the cheaper entry, the suites start longest first.
CHECK_SECONDS: dict[str, float] = {
    "test_apiserver_restart": 100.0,
    # + about 10 s since stop 39: it waits for the conflict to be judged again twice (5 s each)
    "test_child_conflict": 77.0,
    "test_child_repaired": 11.0,
    "no-owns test_child_repaired": 66.0,
    "remembers-created test_child_repaired": 67.0,
    "polls-children test_child_repaired": 84.0,
    "polls-children-go test_child_repaired": 84.0,
    "test_cleanup_confirmed_live": 5.0,
    "test_cleanup_waits_for_held_child": 5.0,
    "test_connection_cut": 41.0,
    "test_connection_stall": 82.0,
    "keeps-dead-connections test_connection_stall": 45.0,
    "test_create_converges": 4.0,
    "test_deletion_policy_foreground": 6.0,
    "test_deletion_policy_orphan": 6.0,
    "test_events_recorded": 6.0,
    "no-events test_events_recorded": 64.0,
    "test_finalizer_ordered_delete": 8.0,
    "test_foreign_conditions_kept": 8.0,
    # issue 23 §2 (conformance/test_owners.py), measured with the suite's 60 s bound
    "test_foreign_fields_kept": 13.0,
    "test_gone_before_the_cleanup_read": 10.0,
    "test_replaced_before_the_cleanup_read": 15.0,
    "test_spec_change_while_deleting": 10.0,
    "test_status_follows_deployment_status": 16.0,
    "status-after-writes test_status_follows_deployment_status": 70.0,
    "status-from-memory test_status_follows_deployment_status": 73.0,
    "status-from-memory-go test_status_follows_deployment_status": 65.0,
    "test_status_rebuilt": 13.0,
    "remembers-status test_status_rebuilt": 73.0,
    "remembers-status-go test_status_rebuilt": 65.0,
    "status-after-writes test_status_rebuilt": 70.0,
    "test_user_object_kept": 15.0,
    "test_garbage_collected": 61.0,
    "test_invalid_rejected": 64.0,
    "test_leader_failover": 87.0,
    "test_namespace_deleted": 92.0,
    "test_noop_stable": 14.0,
    "test_noop_stable_exponent_spelling": 15.0,
    "test_noop_stable_long_quiet": 40.0,
    "no-owns test_noop_stable": 43.0,
    "test_operator_conflict_is_recomputed": 10.0,
    "test_parity": 68.0,
    "test_partitioned_leader_steps_down": 21.0,
    "replay-event test_partitioned_leader_steps_down": 35.0,
    # measured 2026-12-06, load 14, both operators side by side: go 10.3 s, python 19.7 s
    # (events-recorded 5.8 s and 17.4 s in the same run); the 6 s of before predates its steps
    "test_progressing_without_kubelet": 15.0,
    "test_release_survives_a_conflict": 5.0,
    # stop 40 (conformance/test_lease.py): ten renewals, a hand edit, a SIGTERM hand-over
    "test_lease_record": 22.0,
    "test_release_refused_is_reported": 5.0,
    "test_stalled_renewal_steps_down": 25.0,
    "test_rbac_least_privilege": 9.0,
    "test_ready_with_kwok": 91.0,
    "test_replaced_child_kept": 10.0,
    "test_restart_after_finalizer": 3.0,
    "test_stops_while_refused": 4.0,
    # stop 40: three refused watches per resource, 0.8 + 1.6 + 3.2 s of backoff at least
    "test_refused_watches_back_off": 12.0,
    "replay-event test_restart_after_finalizer": 8.0,
    "test_restart_reconverges": 70.0,
    "test_stale_update_conflict": 76.0,
    # + about 10 s since stop 40: the Service watch, then the ModelService watch, expired alone
    "test_watch_expired_after_compaction": 87.0,
    # issue 23 §2, errors-retried (conformance/test_errors.py), its kills measured on 2 cores
    "test_retry_after_is_honoured": 9.0,
    "test_child_conflict_is_retried_quietly": 7.0,
    "test_webhook_answer_reported_as_sent": 8.0,
    # + about 2 s since stop 40: one more 500 once converged (never-forgets)
    "test_server_errors_are_retried_with_backoff": 13.0,
    "gives-up-on-server-errors test_server_errors_are_retried_with_backoff": 73.0,
    "gives-up-on-server-errors-go test_server_errors_are_retried_with_backoff": 64.0,
    # issue 23 §2 (ownership by UID, the CRD after the operator), measured with the CI bound
    "test_child_of_another_modelservice": 12.0,
    "test_waits_for_crd": 25.0,
    "test_signal_while_waiting_for_crd": 25.0,
    # refused-write-reported[two-causes], measured on the loaded 2 cores (go 9 s, python 10 s)
    "test_refused_two_causes_reported": 10.0,
    # stop 40 (pyquant), measured side by side on the loaded 2 cores: noop-stable[respelled]
    # go 17.5 s, python 23.0 s; refused-write-reported[three-causes] go 5.4 s, python 16.9 s
    "test_noop_stable_respelled": 20.0,
    "test_refused_three_causes_sorted": 11.0,
    # [two-causes-reversed] (stop 40), the same body with two causes
    "test_refused_two_causes_reversed": 11.0,
    # refused-write-reported[refusal-lifted] and [status-refused], measured at load 25-45 on
    # 2 cores (go 9 s, python 12 s); a kill waits out REACT_TIMEOUT (30 s) for the retries
    "test_refusal_lifted_converges": 12.0,
    "test_refused_status_write_retried": 15.0,
    "gives-up-after-refusal test_refusal_lifted_converges": 45.0,
    "gives-up-after-refusal-go test_refusal_lifted_converges": 45.0,
    "drops-status-errors test_refused_status_write_retried": 45.0,
    "drops-status-errors-go test_refused_status_write_retried": 45.0,
    # events-recorded[refused-event], measured on the loaded 2 cores (go 9 s, python 10 s);
    # the Python mutant's kill took 53 s (its suite's start included)
    "test_refused_event_is_counted": 10.0,
    # events-recorded[refused-patch] (stop 43), at load 10 on 2 cores: go 4.6 s, python 5.9 s;
    # its mutants' kills 40 s (Go) and 27 s (Python), the suite's start included
    "test_refused_patch_is_not_a_create": 8.0,
    # events-recorded[burst] (stop 40), measured at load 18 on 2 cores: go 14 s, python 14 s
    # alone, 15 s and 29 s beside the other events cases (7 s and 8 s at a lower load, with
    # the ModelService created again); a kill of forgets-gone-event-go or spam-key-by-name-go
    # waits out EVENT_TIMEOUT for an Event (100-111 s with its suite's start)
    "test_event_burst": 16.0,
    "forgets-gone-event test_event_burst": 110.0,
    "forgets-gone-event-go test_event_burst": 110.0,
    "spam-key-by-name test_event_burst": 100.0,
    "spam-key-by-name-go test_event_burst": 100.0,
    # refused-write-reported[service-refused], measured at high load on 2 cores (go 15 s,
    # python 18 s); a kill waits out REACT_TIMEOUT (30 s) for the report
    "test_service_refusal_reported_and_lifted": 18.0,
    "swallows-service-refusal test_service_refusal_reported_and_lifted": 45.0,
    "swallows-service-refusal-go test_service_refusal_reported_and_lifted": 45.0,
    # finalizer-ordered-delete[delete-refused], measured at high load (go 6 s, python 7 s)
    "test_refused_child_delete_keeps_finalizer": 8.0,
    # stop 39 (issue 25), measured at load 10-20 on 2 cores: replaced-child-kept
    # [foreign-deployment] go 4 s, python 34 s; child-conflict[other-group] go 7 s, python 28 s;
    # vanished-owner[refused-delete] go 5 s, python 23 s (the Python runs of that batch were all
    # slow: child-conflict[adopt-ownerless] took 28 s). A mutant that fails a wait takes 30 s+.
    "test_foreign_deployment_our_service": 20.0,
    "test_child_of_another_group": 20.0,
    "test_refused_delete_of_dead_owner_child": 15.0,
    # issue 25 (start-up with a configuration the operator cannot use); measured: go 3 s,
    # python 32 s on 2 cores at load 16 (its seven starts side by side), a mutant 30 s+
    "test_config_refused": 35.0,
    # kills measured in a fresh clone's make test (692a258, mutants-ci, jobs 4, 2 cores shared)
    "test_finalizer_race": 7.0,
    "test_dead_owner_child": 6.0,
    "test_answer_lost": 12.0,
    "test_before_call": 13.0,
    "test_status_lost": 13.0,
    "test_status_conflict": 12.0,
    "test_slow_neighbour": 36.0,
    "test_lost_answer": 24.0,
    # stop 40 (pyown), measured at load 20-28 on 2 cores (go, python): child-conflict
    # [adopt-recheck] 4 s, 6 s; leader-failover[lost-while-busy] 9 s, 13 s (a mutant waits out
    # TAKEOVER_WAIT_S, 42 s); finalizer-ordered-delete[delete-not-found] 5 s, 8 s;
    # vanished-owner[foreign-held] as [finalizer-race]
    "test_adopt_recheck": 6.0,
    "test_lost_lease_while_busy": 13.0,
    "test_child_delete_not_found_counts_gone": 8.0,
    "test_finalizer_race_foreign_held": 9.0,
}

#: The cost of a test function not in ``CHECK_SECONDS``.
DEFAULT_SECONDS = 30.0

#: Seconds a mutant with a ``build`` (the Go mutants: ``harness.mutants.gobuild``, a compile
#: and a link of the whole operator) spends before its first check, on top of the start a
#: Python mutant pays too: measured in a fresh clone's make test (692a258, 2 cores shared,
#: jobs 4), never-adopts-go and updates-immutable-go 27.6 s and remembers-status-go 31.0 s
#: between their suite's start and its one case, against 3 to 7 s for a Python mutant; about
#: 8 CPU-seconds of link each. The cover gives an entry a Python twin declares to the twin.
BUILD_SECONDS = 25.0


#: Seconds a mutant's suite must stand to gain from pytest-xdist before it gets workers: a
#: worker is a Python process that starts, collects the suite and sets its session up (about
#: 2 CPU-seconds, 3 to 5 s before its first check on the loaded 2 cores), for each suite. In
#: a fresh clone's mutants-ci (692a258) children-first took 11.9 s for 4.7 s of checks on two
#: workers, clears-finalizers 10.3 s for 7.6 s. What workers can save is every function but
#: the longest (``parallel_gain``).
XDIST_MIN_GAIN = 15.0


def parallel_gain(
    entries: Iterable[str],
    functions: Mapping[str, Sequence[str]],
    seconds: Mapping[str, float] | None = None,
    mutant: str = "",
) -> float:
    """Seconds that running the test functions of ``entries`` side by side could save over
    running them one after another: their ``entry_seconds`` but the longest one's."""
    table = CHECK_SECONDS if seconds is None else seconds
    names = {f for e in entries for f in functions.get(e, ())}
    each = [table.get(f"{mutant} {f}", table.get(f, DEFAULT_SECONDS)) for f in names]
    return sum(each) - max(each, default=0.0)


def entry_seconds(
    entries: Iterable[str],
    functions: Mapping[str, Sequence[str]],
    seconds: Mapping[str, float] | None = None,
    mutant: str = "",
) -> float:
    """Seconds to run ``entries`` (check ids or ``id[case]``) in one suite of ``mutant``: the
    sum over the distinct test functions they select (``functions``:
    ``harness.checks.check_functions``), each from ``seconds`` (default ``CHECK_SECONDS``)
    under ``"<mutant> <function>"``, else ``"<function>"``, else ``DEFAULT_SECONDS``. Unknown
    entries cost nothing here (the runner refuses them before anything runs)."""
    table = CHECK_SECONDS if seconds is None else seconds
    names = {f for e in entries for f in functions.get(e, ())}
    return sum(table.get(f"{mutant} {f}", table.get(f, DEFAULT_SECONDS)) for f in names)


def function_needs(conformance_dir: Path = CONFORMANCE_DIR) -> dict[str, set[str]]:
    """Test function name -> the capabilities its ``@pytest.mark.modeldock_needs(...)`` names
    (none: not listed), read from ``<conformance_dir>/test_*.py`` without importing them."""
    found: dict[str, set[str]] = {}
    for path in sorted(conformance_dir.glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                if (
                    isinstance(dec, ast.Call)
                    and isinstance(dec.func, ast.Attribute)
                    and dec.func.attr == NEEDS_MARKER
                ):
                    names = {str(a.value) for a in dec.args if isinstance(a, ast.Constant)}
                    found.setdefault(node.name, set()).update(names)
    return found


#: What a conformance module says when its checks may judge a process that never became
#: ready: it starts an operator without waiting for its ``/readyz`` (``OperatorPool.start``'s
#: keyword), or it catches the error of a start that did wait (``harness.process``'s
#: ``ProcessError``, "exited before /readyz": external-effect-once makes that its own fail, so
#: that refuses-http-catalog is killed).
UNREADY_STARTS = ("wait_ready=False", "ProcessError")


def unready_functions(conformance_dir: Path = CONFORMANCE_DIR) -> set[str]:
    """The test functions of the ``<conformance_dir>/test_*.py`` modules whose source says
    one of ``UNREADY_STARTS`` anywhere (a helper included): a whole module counts, so a helper
    that starts one unready cannot hide (and no other conformance module may say either:
    ``test_unready_starts_are_only_in_test_modules``). Their checks can fail against a mutant that crashes at
    start, which is no kill, so a mutant judged by one is started on its own first
    (``runner.preflight``); every other check's operators are started waiting for
    ``/readyz``, and one that never answers is a harness error, never a ``fail``."""
    found: set[str] = set()
    for path in sorted(conformance_dir.glob("test_*.py")):
        text = path.read_text()
        if not any(marker in text for marker in UNREADY_STARTS):
            continue
        found.update(
            n.name
            for n in ast.parse(text).body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
        )
    return found


def preflight_first(
    entries: Iterable[str] | None, functions: Mapping[str, list[str]], unready: Iterable[str]
) -> bool:
    """Whether a mutant's suite of ``entries`` (None or empty: the whole suite, as the full
    run) needs ``runner.preflight`` before it starts: yes when one of their test functions is in
    ``unready`` (``unready_functions``: a check that may judge an operator it did not
    wait for, which would score a crash at start as a kill). The other checks start every
    operator waiting for ``/readyz``, a harness error when it never answers, so a CI or
    --rest suite of those runs at once and the probe runs only after a chosen entry missed,
    to say why (one operator start and a namespace fewer per mutant)."""
    if not entries:
        return True
    names = set(unready)
    return any(f in names for e in entries for f in functions.get(e, ()))


def on_tier(
    caught_by: Mapping[str, Sequence[str]],
    functions: Mapping[str, Sequence[str]],
    needs: Mapping[str, Iterable[str]],
    offers: Iterable[str],
) -> dict[str, list[str]]:
    """``caught_by`` without the entries none of whose test functions can run on a tier that
    offers ``offers`` (their ``needs`` unmet: skipped there, so they cannot kill anything)."""
    have = set(offers)

    def runs(entry: str) -> bool:
        return any(set(needs.get(f, ())) <= have for f in functions.get(entry, ()))

    return {m: [e for e in entries if runs(e)] for m, entries in caught_by.items()}


def ci_choice(
    caught_by: Mapping[str, Sequence[str]],
    functions: Mapping[str, Sequence[str]],
    seconds: Mapping[str, float] | None = None,
    built: Collection[str] = (),
) -> dict[str, list[str]]:
    """Per mutant (``caught_by``: mutant id -> its declared entries, in declaration order), the
    entries CI runs, in declared order (see the module docstring); an empty list for a mutant
    whose entries all run against others (it is left to ``rest_choice``) and for one that
    declares none (the runner then runs the whole suite for it). ``built``: the mutants that
    are built before they start (a ``build`` in mutants.toml); starting one costs
    ``BUILD_SECONDS`` more, so an entry its Python twin declares goes to the twin."""
    chosen: dict[str, list[str]] = {m: [] for m in caught_by}
    order = {m: i for i, m in enumerate(caught_by)}
    declarers: dict[str, list[str]] = {}
    for m, entries in caught_by.items():
        for e in entries:
            declarers.setdefault(e, []).append(m)

    def added(m: str, e: str) -> float:
        build = BUILD_SECONDS if m in built and not chosen[m] else 0.0
        return (
            build
            + entry_seconds([*chosen[m], e], functions, seconds, m)
            - entry_seconds(chosen[m], functions, seconds, m)
        )

    # Each entry once, the entries with fewest declarers first (one declarer: no choice). It
    # goes to a mutant that already runs something (no start or build of its own), then the
    # cheapest, the one with the fewest alternatives, the first declared.
    for e in sorted(declarers, key=lambda e: len(declarers[e])):
        if any(e in chosen[m] for m in declarers[e]):
            continue
        m = min(
            declarers[e],
            key=lambda m: (not chosen[m], added(m, e), len(caught_by[m]), order[m]),
        )
        chosen[m].append(e)
    return {m: [e for e in caught_by[m] if e in chosen[m]] for m in caught_by}


def rest_choice(
    caught_by: Mapping[str, Sequence[str]],
    functions: Mapping[str, Sequence[str]],
    seconds: Mapping[str, float] | None = None,
    built: Collection[str] = (),
) -> dict[str, list[str]]:
    """Per mutant, the ``caught_by`` entries ``ci_choice`` leaves out, in declared order:
    what ``python -m harness mutants --rest`` (``make mutants-pairs``) runs, so that the CI
    subset and this rest together hold every declared pair (mutant, entry) at least once,
    each in a regular job. A mutant ``ci_choice`` runs wholly gets an empty list."""
    ci = ci_choice(caught_by, functions, seconds, built)
    return {m: [e for e in entries if e not in ci[m]] for m, entries in caught_by.items()}


def subset_entries(
    chosen: Iterable[str],
    cluster: str,
    functions: Mapping[str, Sequence[str]],
    *,
    rest: bool = False,
) -> dict[str, list[str]]:
    """Per mutant of ``chosen``, the ``caught_by`` entries (mutants.toml) the CI subset runs on
    tier ``cluster`` (``ci_choice`` over ``chosen``; a mutant none of whose entries runs there
    keeps them all, to be skipped; one whose entries all run against others gets none and is
    not run), or with ``rest`` those it leaves out (``rest_choice`` over
    every mutant ``make mutants-ci`` runs on that tier, so that the two runs hold every pair).
    ``functions``: ``harness.checks.case_functions``."""
    table = mutants.declared()

    def caught_by(m: str) -> list[str]:
        return list(table.get(m, {}).get("caught_by", []))

    built = built_mutants(table)

    def here(ms: Iterable[str]) -> dict[str, list[str]]:
        return on_tier({m: caught_by(m) for m in ms}, functions, function_needs(), OFFERS[cluster])

    if not rest:
        declared = here(chosen)
        picked = ci_choice(declared, functions, built=built)
        return {m: picked[m] if declared[m] else caught_by(m) for m in chosen}
    pool = [
        m
        for m, t in table.items()
        # exploration-only mutants (``explore`` and no ``caught_by``) are make explore's
        if not ("explore" in t and not t.get("caught_by"))
        and (not t.get("tiers") or cluster in t["tiers"])
    ]
    left = rest_choice(here(pool), functions, built=built)
    return {m: left.get(m, []) for m in chosen}


def built_mutants(table: Mapping[str, Mapping[str, Any]] | None = None) -> set[str]:
    """The mutants of ``table`` (default: mutants.toml's) that have a ``build`` command (the
    Go mutants): each run of one starts with a compile and a link (``BUILD_SECONDS``)."""
    declared = mutants.declared() if table is None else table
    return {m for m, t in declared.items() if t.get("build")}


def longest_first(
    plan: Mapping[str, Sequence[str]],
    functions: Mapping[str, Sequence[str]],
    seconds: Mapping[str, float] | None = None,
    built: Collection[str] = (),
) -> list[str]:
    """The mutants of ``plan`` (mutant -> entries it runs; none: the whole suite) ordered by
    their suite's expected seconds (``BUILD_SECONDS`` more for one of ``built``), longest
    first, so that running them some at a time ends soonest (the longest-processing-time
    rule); ties keep the plan's order."""
    everything = list(functions)

    def cost(m: str) -> float:
        build = BUILD_SECONDS if m in built else 0.0
        return build + entry_seconds(plan[m] or everything, functions, seconds, m)

    return sorted(plan, key=lambda m: -cost(m))
