"""The kill matrix: run the conformance suite against every mutant, on one control plane.

``python -m harness mutants`` (``make mutants``; the options in ``harness.mutants.cli``) starts
one control plane, runs the whole suite once per mutant (``harness/mutants/``, declared in
``harness/mutants/mutants.toml``) with the same pytest invocation ``python -m harness
conformance`` uses, and writes:

- ``reports/mutants/junit-<mutant>.xml``: one JUnit file per mutant (artifacts of the failed
  checks under ``reports/mutants/artifacts/<mutant>/``);
- ``reports/mutants.json`` (and, when ``reports/junit-*.xml`` of the real implementations
  are there, ``comparison.md`` and ``comparison.html`` again, now with the kill matrix)::

    {"mutants": {"<mutant>": {"failed_checks": ["noop-stable", "watch-recovers[cut]", ...],
                              "killed_by": [base check ids], "doc": "...", ...}},
     "checks": {"<check id>": {"killed": ["<mutant>", ...]}},
     "verdict": {"ok": true, "survivors": [], "idle_checks": []}}

  ``failed_checks`` are JUnit testcase names, which are check ids, with the case of a check
  made of several (``watch-recovers[connection-cut]``); the ``checks`` side is keyed by the
  base check id, with every case that ran and the mutants it killed.

What counts as a kill: a check whose own oracle failed, that is a testcase whose ``verdict``
property (recorded by harness/plugin/hooks.py) is ``fail``: an assertion about the operator.
A set-up error, an unmet premise (``conformance.support.premise``), an error of the harness's
own requests or a fixture error is verdict ``error``: listed under ``errors``, never a kill.

The verdict: the run fails (exit 1) if a mutant survives every check, if a case of a check
that ran catches no mutant (a check no broken controller can fail proves nothing, and one
case's kills do not vouch for its siblings), or if a testcase named in a mutant's
``caught_by`` ("catches it by design, every time") did not catch it. A ``caught_by`` name is
one testcase (a bare id: the base case, ``harness.checks.case_functions``): neither a sibling
failing nor an error there holds it. Before its suite, each mutant must
start and answer ``/readyz``: one that cannot is a broken mutant, not a caught one; it fails
the run at once instead of making every check wait for it. In ``--ci`` and ``--rest`` only
a mutant judged by a check that may start an operator without waiting for ``/readyz``
(``plan.unready_functions``) is started so first; the others' suites start at once (every
start there waits for ``/readyz``: a stillborn mutant is errors, not kills), and the probe
runs after a chosen entry missed, to say whether the start was why
(``plan.preflight_first``).

``--ci`` runs the CI subset, which keeps ``make test`` within CI's time: each mutant only
against some of the checks that catch it by design (``caught_by`` in mutants.toml), chosen by
``harness.mutants.plan.ci_choice`` so that every distinct ``caught_by`` entry still runs
against a mutant it must kill (a mutant all of whose entries run against others is left to
``--rest``); a mutant that declares none runs
against every check but the slowest cases (``CI_SLOW``). In CI a chosen entry that did not
kill its mutant fails the run, as any ``caught_by`` entry does in the full run. ``--rest``
runs the entries ``--ci`` leaves out (``plan.rest_choice``; also under ``ci_checks``).

``--jobs N`` runs N mutants' suites at a time on the one control plane (each mutant has its
own namespaces and user), longest first; each suite gets at most ``--workers`` pytest-xdist
workers, and no more than it has test functions (one: none, the checks run in pytest itself);
in ``--ci`` and ``--rest`` none either where side by side would save less than
``plan.XDIST_MIN_GAIN`` seconds (``suite_workers``).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import junit, mutants, runs, say, tiers
from harness.checks import (
    base_check,
    case_functions,
    check_sort_key,
    converge_timeout_override,
)
from harness.envtest import binaries
from harness.envtest.controlplane import ControlPlane
from harness.kube import Kube
from harness.lab.namespaces import create_namespace
from harness.mutants import plan
from harness.mutants.matrix_text import format_matrix
from harness.operators import ImplementationError, OperatorProcess, load_implementations
from harness.paths import REPORTS_DIR
from harness.process import ProcessError, log_tail
from harness.suite import run_suite, stop_suites
from harness.verdicts import VERDICT_ERROR

DEFAULT_REPORTS = REPORTS_DIR

#: The cases ``--ci`` leaves out for a mutant that declares no ``caught_by`` (so runs the
#: whole suite): the slowest, 35 s (a private control plane whose API server restarts),
#: which catches no such mutant. (connection-stall-defaults runs only with ``--full``.)
CI_SLOW = ("watch-recovers[apiserver-restart]",)

#: Seconds a mutant has to answer /readyz before its suite (as the checks allow).
READY_TIMEOUT = 60.0
#: The folder under the reports folder that `--exploration-only` writes (its own mutants.json
#: and JUnit files), apart from the kill matrix.
EXPLORATION_ONLY_DIR = "exploration-only"


_say = say.to("mutants")


# --------------------------------------------------------------------------- results
@dataclass
class SuiteResult:
    """What one mutant's JUnit file says: testcase names by outcome, and the failure
    message of each failed or errored case."""

    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    messages: dict[str, str] = field(default_factory=dict)

    @property
    def ran(self) -> list[str]:
        return sorted({*self.passed, *self.failed, *self.errors}, key=check_sort_key)

    @property
    def killed_by(self) -> list[str]:
        """The testcases whose oracle failed (verdict ``fail``), check order. Errors are not
        kills."""
        return sorted(set(self.failed), key=check_sort_key)


def read_junit(path: Path) -> SuiteResult:
    """Read one JUnit file (testcase names are check ids, ``harness.junit``). A failure whose
    ``verdict`` property is ``error`` (set-up, premise, harness) counts as an error, like a
    JUnit error; only a failure of the check's oracle is in ``failed``. Messages are cut to
    400 characters."""
    result = SuiteResult()
    for case in junit.read_cases(path):
        if case.outcome in (junit.SKIPPED, junit.XFAILED):
            result.skipped.append(case.name)
            continue
        if case.outcome == junit.PASSED:
            result.passed.append(case.name)
            continue
        if case.outcome == junit.ERROR or case.verdict == VERDICT_ERROR:
            result.errors.append(case.name)
        else:
            result.failed.append(case.name)
        result.messages[case.name] = case.summary[:400]
    return result


def build_matrix(
    results: Mapping[str, SuiteResult | None], info: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The dict of ``reports/mutants.json`` from each mutant's suite result (None: the suite
    did not run or left no JUnit file). ``info``: extra keys per mutant (title, doc, times,
    exit codes), copied in. The verdict is included (see ``verdict``)."""
    info = info or {}
    out_mutants: dict[str, Any] = {}
    ran: set[str] = set()
    ran_cases: set[str] = set()
    for mutant, res in results.items():
        entry: dict[str, Any] = dict(info.get(mutant) or {})
        if res is None:
            entry.update(failed_checks=[], killed_by=[], errors=[], passed_checks=[], ran=False)
        else:
            ran.update(base_check(c) for c in res.ran)
            ran_cases.update(res.ran)
            entry.update(
                failed_checks=res.killed_by,
                killed_by=sorted({base_check(c) for c in res.killed_by}, key=check_sort_key),
                errors=sorted(res.errors, key=check_sort_key),
                passed_checks=sorted(res.passed, key=check_sort_key),
                failures={c: res.messages[c] for c in res.killed_by if c in res.messages},
                ran=True,
            )
        if "caught_by" in entry:
            # In CI the entries chosen for it (``ci_checks``), else every caught_by entry.
            declared = entry.get("ci_checks") or entry["caught_by"]
            expected = runnable(declared, res.skipped, res.ran) if res else []
            entry["missed"] = missed(expected, entry["failed_checks"]) if res else []
        out_mutants[mutant] = entry
    checks: dict[str, Any] = {}
    for check in sorted(ran, key=check_sort_key):
        killed = [m for m, e in out_mutants.items() if check in e["killed_by"]]
        cases: dict[str, list[str]] = {c: [] for c in ran_cases if base_check(c) == check}
        for m, e in out_mutants.items():
            for c in e["failed_checks"]:
                if base_check(c) == check:
                    cases.setdefault(c, []).append(m)
        checks[check] = {"killed": killed, "cases": dict(sorted(cases.items()))}
    data: dict[str, Any] = {"mutants": out_mutants, "checks": checks}
    data["verdict"] = verdict(data)
    return data


def verdict(data: Mapping[str, Any]) -> dict[str, Any]:
    """``survivors``: mutants no check killed (a mutant whose suite did not run is one);
    ``idle_checks``: checks that ran and killed no mutant; ``idle_cases``: cases (testcase
    names) that ran and killed no mutant, each case on its own (a sibling's kill does not
    count); ``expected_missed``: per mutant, the ``caught_by`` checks that did not catch it
    this time (the check has grown blind to it, or a kill depended on timing). ``ok`` if all
    four are empty."""
    survivors = [m for m, e in data["mutants"].items() if not e.get("failed_checks")]
    idle = [c for c, e in data["checks"].items() if not e.get("killed")]
    idle_cases = [
        case
        for e in data["checks"].values()
        for case, killers in e.get("cases", {}).items()
        if not killers
    ]
    expected_missed = {m: e["missed"] for m, e in data["mutants"].items() if e.get("missed")}
    ok = not survivors and not idle and not idle_cases and not expected_missed
    return {
        "ok": ok,
        "survivors": survivors,
        "idle_checks": idle,
        "idle_cases": idle_cases,
        "expected_missed": expected_missed,
    }


def only_selected(
    data: dict[str, Any], results: Mapping[str, SuiteResult | None]
) -> dict[str, Any]:
    """``build_matrix``'s dict of a run narrowed by ``-k``: a ``caught_by`` entry the filter
    left out (it neither ran nor was skipped) cannot have missed its mutant, so it leaves
    ``missed``, and the verdict is recomputed. Without ``-k`` such an entry stays missed."""
    for m, e in data["mutants"].items():
        ran = set(r.ran) if (r := results.get(m)) else set()
        e["missed"] = [c for c in e.get("missed", []) if c in ran]
    data["verdict"] = verdict(data)
    return data


def exploration_only() -> list[str]:
    """The mutants declared with ``explore`` and no ``caught_by`` in mutants.toml: found by
    exploration, and by design by no check of the suite (one with both, remembers-status, is
    caught by a check too: an ordinary mutant that exploration also kills)."""
    return [
        m
        for m, table in mutants.declared().items()
        if "explore" in table and not table.get("caught_by")
    ]


def survival_verdict(
    data: Mapping[str, Any],
    results: Mapping[str, SuiteResult | None] | None = None,
    cluster: str = tiers.DEFAULT,
    checks_filter: str | None = None,
) -> dict[str, Any]:
    """The verdict of a run of exploration-only mutants against the suite (``build_matrix``'s
    dict; ``results``: the same run's suite results, for the cases skipped on ``cluster``).
    Each must have been judged and survived, or it is not exploration-only (declare the checks
    that kill it as ``caught_by`` instead). Where a kill matrix counts an error (set-up,
    premise not met) as no kill, this verdict counts it as no judgement: a case that errored,
    or a suite in which no case passed, proves no survival. Keys: ``ok``; ``killed``: mutant
    -> the cases that failed against it; ``unjudged``: mutant -> why (its suite did not run,
    cases that errored, no case passed); ``survived``: the others; ``cluster``,
    ``checks_filter`` and ``skipped`` (the cases skipped on that tier), which bound what
    "every check" means."""
    killed = {m: e["failed_checks"] for m, e in data["mutants"].items() if e.get("failed_checks")}
    unjudged: dict[str, str] = {}
    for m, e in data["mutants"].items():
        if m in killed:
            continue
        if not e.get("ran", True):
            unjudged[m] = "its suite did not run"
        elif e.get("errors"):
            unjudged[m] = f"errors, not judgements: {', '.join(e['errors'])}"
        elif not e.get("passed_checks"):
            unjudged[m] = "no case passed (none selected?)"
    survived = [m for m in data["mutants"] if m not in killed and m not in unjudged]
    skipped = sorted(
        {c for r in (results or {}).values() if r for c in r.skipped}, key=check_sort_key
    )
    return {
        "expect_survival": True,
        "ok": bool(data["mutants"]) and not killed and not unjudged,
        "killed": killed,
        "unjudged": unjudged,
        "survived": survived,
        "cluster": cluster,
        "checks_filter": checks_filter,
        "skipped": skipped,
    }


# --------------------------------------------------------------------------- running
def mutant_info(mutant_id: str) -> dict[str, Any]:
    """title, doc (the module docstring), its three paragraphs and the checks expected to
    catch it, for mutants.json."""
    table = mutants.declared().get(mutant_id, {})
    doc = mutants.docstring(mutant_id)
    return {
        "title": str(table.get("title", mutant_id)),
        "doc": doc,
        "explanation": mutants.sections(doc),
        "caught_by": list(table.get("caught_by", [])),
    }


def caught_by(mutant_id: str) -> list[str]:
    """The checks that catch the mutant by design (``caught_by`` in mutants.toml)."""
    return list(mutants.declared().get(mutant_id, {}).get("caught_by", []))


def select_checks(check_ids: Iterable[str], functions: Mapping[str, list[str]]) -> str:
    """A ``-k`` expression selecting exactly the test functions of ``check_ids`` (testcase
    names, looked up in ``functions``: ``harness.checks.case_functions`` for ``caught_by``),
    and no function whose name merely contains one of theirs. A name not there:
    ImplementationError naming it and the names there are."""
    names: set[str] = set()
    for check in check_ids:
        if check not in functions:
            cases = sorted(n for n in functions if base_check(n) == base_check(check))
            hint = (
                f"; {check!r} has no base case, name one of its cases: {', '.join(cases)}"
                if cases and "[" not in check
                else ""
            )
            raise ImplementationError(
                f"no conformance testcase {check!r}{hint} (a bare check id names the "
                f"check's base case; known: {', '.join(sorted(functions))})"
            )
        names.update(functions[check])
    # -k matches substrings: test_noop_stable would select test_noop_stable_long_quiet too.
    every = {f for fs in functions.values() for f in fs}

    def exact(f: str) -> str:
        longer = sorted(g for g in every if g != f and f in g)
        return f"({' and not '.join([f, *longer])})" if longer else f

    return " or ".join(exact(f) for f in sorted(names))


def ci_filter(
    mutant_id: str,
    checks_filter: str | None = None,
    functions: Mapping[str, list[str]] | None = None,
    chosen: Iterable[str] | None = None,
) -> str | None:
    """The ``-k`` expression of the CI subset for one mutant, combined with ``checks_filter``:
    the entries ``chosen`` for it (``plan.ci_choice``; default: its whole ``caught_by``), or,
    when it declares none, every check but ``CI_SLOW``."""
    functions = functions if functions is not None else case_functions()
    expected = list(chosen) if chosen else caught_by(mutant_id)
    if expected:
        parts = [f"({select_checks(expected, functions)})"]
    else:
        parts = [f"not ({select_checks(CI_SLOW, functions)})"]
    if checks_filter:
        parts.append(f"({checks_filter})")
    return " and ".join(parts)


def runnable(expected: Iterable[str], skipped: Iterable[str], ran: Iterable[str]) -> list[str]:
    """The expected testcases (``caught_by`` names, one testcase each) not skipped on this
    run's tier (one skipped for a need the tier lacks cannot have missed); a sibling skipped
    or run says nothing of a name. ``ran``: kept for the callers."""
    skipped = set(skipped) - set(ran)
    return [c for c in expected if c not in skipped]


def tiers_of(mutant_id: str) -> list[str]:
    """The tiers a mutant is run on (``tiers`` in mutants.toml; default: every tier). A mutant
    only a cluster's controllers can expose (its every ``caught_by`` check needs one) names
    them, so a run on envtest does not count it as surviving."""
    return list(mutants.declared().get(mutant_id, {}).get("tiers", []))


def missed(expected: Iterable[str], failed: Iterable[str]) -> list[str]:
    """The expected testcases (``caught_by`` names) whose own verdict was not ``fail``: a
    sibling failing (``stale-update-conflict[operator-409]``) does not hold a bare id."""
    killed = set(failed)
    return [c for c in expected if c not in killed]


def build_only(impl: Any) -> str:
    """``preflight``'s build alone (a Go mutant's ``build``, once, before its pytest-xdist
    workers could each start one): "" or the build's error."""
    try:
        impl.run_build()
    except ImplementationError as exc:
        return str(exc)
    return ""


def preflight(cp: ControlPlane, impl_id: str, impls: Mapping[str, Any], logs: Path) -> str:
    """Build the mutant (a Go mutant's ``build``; the pytest session would build it only
    after this start), start it once and wait for /readyz; return "" or what went wrong."""
    impl = impls[impl_id]
    built = build_only(impl)
    if built:
        return built
    admin = Kube(cp.admin_kubeconfig)
    namespace = create_namespace(admin, "preflight", impl.user)
    op = OperatorProcess(
        impl=impl,
        kubeconfig=cp.kubeconfig_for(impl.user),
        namespace=namespace,
        log_path=logs / f"preflight-{impl_id}.log",
    )
    try:
        op.start(timeout=READY_TIMEOUT)
        return ""
    except (ProcessError, AssertionError, TimeoutError) as exc:
        return f"{exc}; log tail:\n{log_tail(op.log_path)}"
    finally:
        op.terminate(timeout=10)
        admin.delete("namespaces", None, namespace)
        admin.close()


def suite_workers(
    entries: Iterable[str] | None,
    functions: Mapping[str, list[str]],
    most: int,
    mutant: str = "",
    seconds: Mapping[str, float] | None = None,
) -> int:
    """pytest-xdist workers for one mutant's suite: ``most``, but no more than the test
    functions ``entries`` select (None or empty: the whole suite); 0 (no xdist) for one, and
    for functions whose side-by-side run would save less than ``plan.XDIST_MIN_GAIN`` seconds
    (``plan.parallel_gain`` with ``seconds``, default ``plan.CHECK_SECONDS``, for ``mutant``)."""
    if not entries:
        return most
    chosen = list(entries)
    n = len({f for e in chosen for f in functions.get(e, ())})
    if plan.parallel_gain(chosen, functions, seconds, mutant) < plan.XDIST_MIN_GAIN:
        return 0
    return 0 if min(n, most) <= 1 else min(n, most)


def run_mutants(
    mutant_ids: Iterable[str] | None,
    reports_dir: Path,
    workers: int,
    checks_filter: str | None = None,
    *,
    ci: bool = False,
    cluster: str = tiers.DEFAULT,
    jobs: int = 1,
    expect_survival: bool = False,
    rest: bool = False,
) -> dict[str, Any]:
    """Run the suite against each mutant (all declared ones when ``mutant_ids`` is empty) on
    one control plane of tier ``cluster`` (envtest, sim), ``jobs`` mutants at a time (longest
    first), each with at most ``workers`` pytest-xdist workers; ``checks_filter`` is passed to
    pytest as ``-k``; ``ci`` runs the CI subset (``plan.ci_choice``), ``rest`` the
    ``caught_by`` entries that subset leaves out (``plan.rest_choice``; a mutant with none
    left is not run). Mutants whose ``tiers``
    do not include ``cluster`` are left out (said once). Writes the JUnit files and
    ``reports_dir/mutants.json``, prints the kill matrix, and returns the mutants.json dict."""
    declared = mutants.declared()
    # Mutants declared with ``explore`` are found by exploration (python -m harness explore),
    # never by a check: the suite runs them only when they are named.
    chosen = list(mutant_ids or [m for m in declared if m not in exploration_only()])
    elsewhere = [m for m in chosen if m in declared and tiers_of(m) and cluster not in tiers_of(m)]
    if elsewhere:
        _say(
            f"not run on {cluster} (their checks need another tier): "
            + ", ".join(f"{m} ({'/'.join(tiers_of(m))})" for m in elsewhere)
        )
        chosen = [m for m in chosen if m not in elsewhere]
    unknown = [m for m in chosen if m not in declared]
    if unknown:
        raise ImplementationError(
            f"unknown mutant(s) {unknown}; declared in "
            f"{mutants.MUTANTS_FILE}: {', '.join(declared)}"
        )
    functions = case_functions()  # caught_by names testcases: a bare id is its base case
    for m in chosen:
        select_checks(caught_by(m), functions)  # every name one testcase, before anything runs
    picked: dict[str, list[str]] = {}
    if ci:
        picked = plan.subset_entries(chosen, cluster, functions)
        spared = [m for m in chosen if caught_by(m) and not picked[m]]
        if spared:
            _say(
                f"--ci: {len(spared)} mutants whose every entry runs against another are left "
                f"to make mutants-pairs (--rest): {', '.join(spared)}"
            )
        chosen = [m for m in chosen if m not in spared]
    if rest:
        left = plan.subset_entries(chosen, cluster, functions, rest=True)
        done = [m for m in chosen if not left[m]]
        if done:
            _say(f"--rest: nothing left for {', '.join(done)} (--ci runs all their caught_by)")
        chosen = [m for m in chosen if left[m]]
    impls = load_implementations([mutants.MUTANTS_FILE])
    out = reports_dir / "mutants"
    out.mkdir(parents=True, exist_ok=True)
    for m in chosen:
        junit.suite_file(out, m).unlink(missing_ok=True)
        shutil.rmtree(out / "artifacts" / m, ignore_errors=True)

    binaries.ensure(tiers.spec(cluster).binaries)
    impls["go"].run_build()  # the parity check's reference, built once here
    started = time.monotonic()
    results: dict[str, SuiteResult | None] = {}
    info = {m: mutant_info(m) for m in chosen}
    entries: dict[str, list[str]] = {m: [] for m in chosen}
    if ci or rest:
        entries = (
            {m: picked[m] for m in chosen}
            if ci
            else plan.subset_entries(chosen, cluster, functions, rest=rest)
        )
        for m in chosen:
            info[m]["ci_checks"] = entries[m]
    filters = {
        m: ci_filter(m, checks_filter, functions, entries[m]) if ci or rest else checks_filter
        for m in chosen
    }
    order = plan.longest_first(entries, functions, built=plan.built_mutants())
    unready = plan.unready_functions()
    with ControlPlane(tier=cluster) as cp:

        def one(m: str) -> None:
            t0 = time.monotonic()
            n = order.index(m) + 1
            _say(f"{n}/{len(chosen)} {m}: {info[m]['title']}")
            first = plan.preflight_first(entries[m] if ci or rest else None, functions, unready)
            problem = preflight(cp, m, impls, out) if first else build_only(impls[m])
            if problem:
                _say(f"{m} did not become ready; its suite is not run:\n{problem}")
                info[m].update(
                    problem=f"did not become ready: {problem}",
                    exit_code=None,
                    seconds=round(time.monotonic() - t0, 1),
                )
                results[m] = None
                return
            k = filters[m]
            n_workers = suite_workers(entries[m], functions, workers, m) if ci or rest else workers
            extra = ["-n", str(n_workers), "--tb=line", f"--modeldock-cluster={cluster}"]
            code = run_suite(
                m,
                cp.state_path,
                out,
                [*extra, *(["-k", k] if k else [])],
                [str(mutants.MUTANTS_FILE)],
            )
            junit_file = junit.suite_file(out, m)
            results[m] = read_junit(junit_file) if junit_file.exists() else None
            seconds = round(time.monotonic() - t0, 1)
            info[m].update(
                exit_code=code, seconds=seconds, junit=str(junit_file.relative_to(reports_dir))
            )
            res = results[m]
            if not first and res is not None and missed(entries[m], res.killed_by):
                why = preflight(cp, m, impls, out)  # a chosen entry not held: was it the start?
                if why:
                    _say(f"{m} does not become ready on its own either:\n{why}")
                    info[m]["problem"] = f"did not become ready: {why}"
            if res is None:
                # no JUnit file: the suite was stopped (Ctrl-C, SIGTERM) or broke; no verdict
                _say(
                    f"{n}/{len(chosen)} {m}: no verdict, its suite wrote no report ({seconds:.0f}s)"
                )
                return
            killed = ", ".join(res.killed_by) if res.killed_by else "nothing: SURVIVED"
            _say(f"{n}/{len(chosen)} {m}: killed by {killed} ({seconds:.0f}s)")

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            try:
                list(pool.map(one, order))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                stop_suites()
                raise
    results = {m: results.get(m) for m in chosen}
    data = build_matrix(results, info)
    if checks_filter:
        data = only_selected(data, results)
    if expect_survival:
        data["verdict"] = survival_verdict(data, results, cluster, checks_filter)
    data["run"] = {
        "subset": "exploration-only"
        if expect_survival
        else "ci"
        if ci
        else "rest"
        if rest
        else "full",
        "checks_filter": checks_filter,
        "cluster": cluster,
        "workers": workers,
        "jobs": jobs,
        "converge_timeout_s": converge_timeout_override() or "60 (the suite's own)",
        "seconds": round(time.monotonic() - started, 1),
    }
    path = reports_dir / "mutants.json"
    runs.write_text_atomic(path, json.dumps(data, indent=2) + "\n")
    print(format_matrix(data))
    _say(f"wrote {path} and {out}/junit-*.xml in {data['run']['seconds']:.0f}s")
    if not expect_survival:  # a folder of its own, not the comparison's kill matrix
        refresh_comparison(reports_dir)
    return data


def rebuild(mutant_ids: Iterable[str] | None, reports_dir: Path) -> dict[str, Any]:
    """Write ``reports_dir/mutants.json`` again from the JUnit files a run left in
    ``reports_dir/mutants/`` (after editing a mutant's docstring, say), without running
    anything; print the kill matrix and return the dict."""
    chosen = list(mutant_ids or mutants.declared())
    out = reports_dir / "mutants"
    results = {
        m: read_junit(junit.suite_file(out, m)) if junit.suite_file(out, m).exists() else None
        for m in chosen
    }
    previous = load_previous(reports_dir / "mutants.json")
    info = {
        m: {
            **{
                k: v
                for k, v in previous.get(m, {}).items()
                if k in ("exit_code", "seconds", "junit", "problem")
            },
            **mutant_info(m),
        }
        for m in chosen
    }
    data = build_matrix(results, info)
    data["run"] = {**previous.get("<run>", {}), "rebuilt": True}
    runs.write_text_atomic(reports_dir / "mutants.json", json.dumps(data, indent=2) + "\n")
    print(format_matrix(data))
    refresh_comparison(reports_dir)
    return data


def load_previous(path: Path) -> dict[str, Any]:
    """The mutants of an earlier mutants.json by id, and its "run" under ``<run>``."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {**data.get("mutants", {}), "<run>": data.get("run", {})}


def refresh_comparison(reports_dir: Path) -> list[Path]:
    """Rewrite the comparison report (Markdown and HTML) so that it shows the new kill
    matrix, if the real implementations' JUnit files are there to build it from."""
    from harness import report

    paths = report.refresh(reports_dir, load_implementations())
    if not paths:
        _say(
            f"no junit-*.xml in {reports_dir}: `make conformance` writes them, and then the "
            "comparison report shows the kill matrix too"
        )
        return []
    _say(f"kill matrix added to {', '.join(str(p) for p in paths)}")
    return paths


if __name__ == "__main__":
    sys.exit("the command line moved: python -m harness mutants (harness/mutants/cli.py)")
