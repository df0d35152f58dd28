"""The mutation score (``python -m harness mutation-score``, ``make mutation-score``): tool
mutants of both operators (``harness.mutscore.generate``) judged by the conformance suite on a
real API server.

1. Generate: cosmic-ray's and gremlins' lists, each mutant with a stable id.
2. Choose: every mutant, or a seeded sample (``--sample N --seed S`` per language), plus one
   mutant of each equivalent class of ``survivors.toml`` (so a run shows the class still
   survives, or reports that it is killed).
3. Coverage: the real operators once under coverage during a suite run of the judging checks
   (``harness.mutscore.cover``: per check, from each process's ``WATCH_NAMESPACE``), cached
   across clones in ``~/.cache/modeldock/mutscore/`` by a hash of the operator's sources and
   the judging checks' files (``cover.coverage_key``). A mutant on a line no judging check
   executed is ``not covered``: not run, not killed.
4. Judge: each covered mutant is an implementation (Python: a copy of python_operator/ with
   the one file mutated, first on sys.path; Go: go_reference/ built with that file replaced by
   ``go build -overlay``), started once (``harness.mutants.runner.preflight``: one that does
   not become ready is ``stillborn``), then the checks that executed its line, at most
   ``--max-checks`` of them, cheapest first (``harness.mutants.plan.CHECK_SECONDS``), several
   mutants at a time on one control plane. A kill is a ``fail`` verdict of a check's own oracle
   (``runner.read_junit``): a premise or harness error is not one. The per-mutant time bound is
   the suite's convergence bound, ``MODELDOCK_CONVERGE_TIMEOUT`` (20 s unless set).
5. Classify the survivors with ``harness/mutants/survivors.toml`` and write
   ``reports/mutation-score.json``. Exit 1 when a survivor is unclassified.

The score of a language, a file or a function is killed / (covered - equivalent - not viable
- stillborn - unjudged):
a mutant is counted under ``generated``, then ``covered`` if a judging check executes its line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness import exitcodes, runs, say
from harness.checks import CONVERGE_TIMEOUT_ENV, case_functions, check_functions
from harness.mutscore import cover, generate
from harness.mutscore.generate import ToolMutant
from harness.mutscore.journal import (
    Journal,
    check_keys,
    environment_key,
    incremental,
    judging_key,
    mutant_key,
)
from harness.mutscore.order import (
    JUDGE_CHECKS,
    NOT_JUDGING,
    interleaved,
    judging_checks,
    prior_kills,
)
from harness.mutscore.sample import (
    SampleError,
    _shown,
    arguments_problem,
    fixed_sample,
    load_sample,
    refresh_sample,
    unknown_ids,
    write_sample,
)
from harness.mutscore.selection import python_selected, summary
from harness.mutscore.survivors import (
    Survivors,
    assumed_equivalent,
    class_matches,
    load_survivors,
)
from harness.mutscore.tally import build_report, rescore
from harness.paths import BUILD_DIR, REPO_ROOT, REPORTS_DIR, cache_root

WORK_DIR = BUILD_DIR / "mutscore"

_say = say.to("mutation-score")


# --------------------------------------------------------------------------- choosing
def choose(
    mutants: Sequence[ToolMutant],
    sample: int | None,
    seed: int,
    survivors: Survivors,
    ids: Iterable[str] = (),
) -> list[ToolMutant]:
    """Every mutant (``sample`` None), or ``sample`` of them drawn with ``random.Random(seed)``
    from the list sorted by id, plus the first (by id) of each survivors.toml class of their
    language and the mutants named in ``ids``: the same choice for the same sources."""
    ordered = sorted(mutants, key=lambda m: m.id)
    if sample is None or sample >= len(ordered):
        return ordered
    picked = random.Random(seed).sample(ordered, sample)
    wanted = set(ids)
    for c in survivors.classes.values():
        first = next((m for m in ordered if class_matches(c, m)), None)
        if first is not None:
            wanted.add(first.id)
    picked += [m for m in ordered if m.id in wanted and m not in picked]
    return sorted(picked, key=lambda m: m.id)


# --------------------------------------------------------------------------- building
def python_dir(m: ToolMutant) -> Path:
    """The folder whose ``python_operator/`` is the mutant's copy."""
    return WORK_DIR / "py" / m.key


def go_binary(m: ToolMutant) -> Path:
    """The Go mutant's binary."""
    return WORK_DIR / "go" / m.key / "modeldock-go"


def prepare(m: ToolMutant) -> str:
    """Write the mutant's sources (Python: the overlay copy; Go: the mutated file and the
    overlay document, then ``go build -overlay``); return "" or why it cannot be built (a Go
    compile error: gremlins' "not viable")."""
    if m.lang == "python":
        generate.python_overlay(m, python_dir(m))
        return ""
    out = go_binary(m).parent
    out.mkdir(parents=True, exist_ok=True)
    mutated = out / Path(m.file).name
    mutated.write_text(generate.go_source(m))
    overlay = out / "overlay.json"
    overlay.write_text(json.dumps({"Replace": {str(REPO_ROOT / m.file): str(mutated)}}))
    # -s -w: no symbol table or DWARF, which the process never reads (its stack traces use
    # pclntab); the link takes about a fifth less CPU (docs/mutation-score.md)
    proc = subprocess.run(
        ["go", "build", "-ldflags=-s -w", "-overlay", str(overlay), "-o", str(go_binary(m)), "."],
        cwd=REPO_ROOT / "go_reference",
        capture_output=True,
        text=True,
        check=False,
    )
    return "" if proc.returncode == 0 else f"go build failed: {proc.stderr.strip()[:400]}"


def implementations_toml(chosen: Iterable[ToolMutant]) -> str:
    """The implementations file declaring each mutant (``ToolMutant.impl_id``)."""
    parts = []
    for m in chosen:
        title = json.dumps(f"tool mutant {m.id}")
        if m.lang == "python":
            parts.append(
                f"[{m.impl_id}]\ntitle = {title}\nworkdir = {json.dumps(str(python_dir(m)))}\n"
                'command = ["{python}", "-m", "python_operator"]\n'
            )
        else:
            parts.append(
                f'[{m.impl_id}]\ntitle = {title}\nworkdir = "{{repo}}/go_reference"\n'
                f"command = [{json.dumps(str(go_binary(m)))}]\n"
            )
    return "\n".join(parts)


# --------------------------------------------------------------------------- judging
def judge(
    chosen: Sequence[ToolMutant],
    checks_of: Mapping[str, list[str]],
    cp: Any,
    jobs: int,
    first_kill: bool = True,
    together: Iterable[str] = (),
    journal: Journal | None = None,
    mutant_keys: Mapping[str, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Run each covered mutant's checks (``checks_of``: id -> checks, in the order to try;
    none: not run) on the control plane ``cp``, ``jobs`` at a time, the languages taken in
    turn, Go first (``interleaved``); return id -> {status, killed_by, errors, seconds,
    problem, ran, phases}. status: ``killed``, ``survived``, ``not viable`` (does not
    compile), ``stillborn`` (did not become ready) or ``unjudged`` (every check errored: no
    verdict). With ``first_kill`` the checks run one pytest session each, in order, and the
    first kill ends the mutant's judging (``ran``: the checks that ran): a kill is a kill,
    and the others' minutes go to the next mutant. Without it, and for the ids in
    ``together`` (survivors.toml classifies them: expected to survive every check, so an
    order saves nothing), all of them run in one session, two pytest workers. Each verdict
    is also appended to ``journal`` (``harness.mutscore.journal``) as soon as it is reached,
    a ``not viable`` one too (the compiler's answer does not change on a resume); each carries
    its ``mutant_key`` from ``mutant_keys`` (id -> ``journal.mutant_key``) when given, which
    a later ``--incremental`` run compares."""
    from harness.junit import suite_file
    from harness.mutants.runner import SuiteResult, preflight, read_junit, select_checks
    from harness.operators import load_implementations
    from harness.suite import run_suite, stop_suites

    # per process: two runs of one clone sharing one file left the first's mutants unjudged
    impl_file = WORK_DIR / f"mutants-{os.getpid()}.toml"
    remove_orphaned(WORK_DIR)
    runnable = interleaved([m for m in chosen if checks_of.get(m.id)])
    together = set(together)
    impl_file.write_text(implementations_toml(runnable))
    impls = load_implementations([impl_file])
    # per process too: two runs judging one mutant at once read each other's JUnit file
    out_dir = WORK_DIR / f"junit-{os.getpid()}"
    out_dir.mkdir(parents=True, exist_ok=True)
    functions = check_functions()
    cases = case_functions()
    results: dict[str, dict[str, Any]] = {}
    # Set on Ctrl-C or SIGTERM: the mutants being judged stop at their next round, and one
    # whose suite was cut short records no verdict (it would read as a survivor).
    stopping = threading.Event()

    def one(m: ToolMutant) -> None:
        if stopping.is_set():
            return
        t0 = time.monotonic()
        keyed = {} if mutant_keys is None else {"mutant_key": mutant_keys[m.id]}
        problem = prepare(m)
        phases = {"build": round(time.monotonic() - t0, 1)}
        if problem and not generate.compile_refused(problem, m.file):  # a build that failed for
            # another reason: judged again on a resume, like a start that failed
            results[m.id] = {"status": "stillborn", "problem": problem[:600], **keyed}
            _say(f"{m.id}: stillborn (its build failed, not on its own file)")
            return
        if problem:  # gremlins' NOT VIABLE: the Go compiler refuses it (a string's + made -)
            results[m.id] = {"status": "not viable", "problem": problem[:600], **keyed}
            _say(f"{m.id}: not viable")
            if journal is not None:
                journal.record(m.id, results[m.id])
            return
        problem = preflight(cp, m.impl_id, impls, out_dir)
        phases["preflight"] = round(time.monotonic() - t0 - phases["build"], 1)
        if problem:  # not journaled: a start that timed out under load may start on a resume
            results[m.id] = {"status": "stillborn", "problem": problem[:600], **keyed}
            _say(f"{m.id}: stillborn")
            return
        junit = suite_file(out_dir, m.impl_id)
        checks = checks_of[m.id]
        # each check's base case (its slow sibling cases are a full run's, --checks id[case])
        table = {**functions, **cases}
        rounds = [[c] for c in checks] if first_kill and m.id not in together else [checks]
        res: SuiteResult | None = None
        ran: list[str] = []
        for group in rounds:
            if stopping.is_set():
                return
            junit.unlink(missing_ok=True)
            n = len({f for c in group for f in table.get(c, ())})
            run_suite(
                m.impl_id,
                cp.state_path,
                out_dir,
                [
                    "-n",
                    str(min(n, 2)) if n > 1 else "0",
                    "--tb=line",
                    "-k",
                    select_checks(group, table),
                ],
                [str(impl_file)],
                log=out_dir / f"pytest-{m.impl_id}.log",
            )
            ran += group
            if not junit.exists():
                continue
            one = read_junit(junit)
            res = res or SuiteResult()
            for name in ("passed", "failed", "errors", "skipped"):
                getattr(res, name).extend(getattr(one, name))
            res.messages.update(one.messages)
            if res.killed_by:
                break
        seconds = round(time.monotonic() - t0, 1)
        if stopping.is_set():
            return
        if res is None:
            results[m.id] = {"status": "unjudged", "problem": "no JUnit file", "seconds": seconds}
        elif res.killed_by:
            results[m.id] = {"status": "killed", "killed_by": res.killed_by, "seconds": seconds}
        elif res.passed:
            results[m.id] = {"status": "survived", "errors": res.errors, "seconds": seconds}
        else:
            results[m.id] = {"status": "unjudged", "errors": res.errors, "seconds": seconds}
        results[m.id]["ran"] = ran
        results[m.id]["phases"] = phases  # seconds: build, preflight; the checks are the rest
        results[m.id].update(keyed)
        _say(f"{m.id}: {results[m.id]['status']} {res.killed_by if res else ''} ({seconds:.0f}s)")
        if journal is not None:
            journal.record(m.id, results[m.id])

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            try:
                list(pool.map(one, runnable))
            except BaseException:  # Ctrl-C, SIGTERM: the running suites torn down at once
                stopping.set()
                pool.shutdown(wait=False, cancel_futures=True)
                stop_suites()
                raise
    finally:
        impl_file.unlink(missing_ok=True)
    return results


def remove_orphaned(work_dir: Path) -> list[Path]:
    """Delete what runs that are gone (SIGKILLed, or stopped by a failed load before their
    ``finally``) left in ``work_dir``: their ``mutants-<pid>.toml`` and their ``junit-<pid>/``
    folder of JUnit files and pytest logs; return the paths deleted. A path whose pid is
    alive, this process's, or not a number is left alone (a pid reused since only leaves a
    file behind)."""
    gone = []
    for path in [*work_dir.glob("mutants-*.toml"), *work_dir.glob("junit-*")]:
        pid = path.stem.split("-", 1)[1]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            gone.append(path)
        except PermissionError:  # alive, another user's
            pass
    return gone


def main(argv: list[str] | None = None) -> int:
    """``python -m harness mutation-score``: see the module docstring. Exit 0, or 1 when a
    survivor is unclassified, 2 for bad arguments (checked before any control plane starts: a
    negative --sample, an unknown --mutant id, ...) or a tool that failed, 130 after Ctrl-C
    and 143 after SIGTERM. It owns the run (``harness.runs.own``), so SIGINT and SIGTERM unwind
    (every control plane, operator and temp dir stopped or removed) also when it was started
    in the background with SIGINT ignored, once its arguments are known good (``--help`` and
    a bad argument touch nothing); the journal keeps what was judged (``--resume``), and a
    suite cut short records no verdict."""
    try:
        return _main(argv, lambda: runs.own(_say))
    except KeyboardInterrupt as exc:
        _say("interrupted; processes stopped")
        return exitcodes.for_interrupt(exc)


def _main(argv: list[str] | None, own: Callable[[], None]) -> int:
    """``main``; ``own()`` is called once the arguments are checked, before anything starts."""
    p = argparse.ArgumentParser(prog="python -m harness mutation-score", description=__doc__)
    p.add_argument("--lang", action="append", choices=("go", "python"), help="default: both")
    p.add_argument(
        "--sample",
        type=int,
        help="mutants per language, seeded (default: all; 0: none drawn, only the --mutant ids)",
    )
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--mutant", action="append", default=[], help="a stable id, also run")
    p.add_argument(
        "--checks",
        help="comma-separated judging checks (default: JUDGE_CHECKS); 'all': every check and "
        "case but NOT_JUDGING",
    )
    p.add_argument("--max-checks", type=int, default=3, help="checks per mutant, cheapest first")
    p.add_argument("--jobs", type=int, default=3, help="mutants at a time")
    p.add_argument("--workers", type=int, default=3, help="pytest-xdist workers, coverage run")
    p.add_argument("--reports", default=str(REPORTS_DIR))
    p.add_argument(
        "--sample-file",
        help="judge the fixed sample this file names (harness/mutscore/sample.toml) instead of "
        "a seeded draw; an id no tool generates any more is an error naming the fix",
    )
    p.add_argument(
        "--refresh-sample",
        action="store_true",
        help="with --sample-file: replace its vanished ids by seeded draws (--seed) from the "
        "same functions, write the file, run nothing",
    )
    p.add_argument(
        "--first-kill",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="judge a mutant one check at a time and stop at its first kill (default); "
        "--no-first-kill runs its checks together, two pytest workers",
    )
    p.add_argument(
        "--prior",
        action="append",
        default=[],
        help="an earlier mutation-score.json (repeatable): per function, the checks that killed "
        "most of its mutants there are tried first (default: cheapest first)",
    )
    p.add_argument(
        "--all-operators",
        action="store_true",
        help="judge cosmic-ray's whole list, not the selection (harness/mutscore/selection.py)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the verdicts of <reports>/verdicts.jsonl reached under the same sources, "
        "checks and --max-checks, and judge only the rest (default: start the journal anew)",
    )
    p.add_argument(
        "--incremental",
        metavar="REPORT",
        help="an earlier mutation-score.json: a mutant whose mutant_key (its file, its checks "
        "and their files) is the one it had there keeps that verdict, unjudged again "
        '(docs/mutation-score.md, "Incremental runs"); a missing file reuses nothing',
    )
    p.add_argument(
        "--full-every",
        type=float,
        default=7.0,
        metavar="DAYS",
        help="with --incremental: keep nothing when the last run that judged every mutant, "
        "as the earlier report records it (run.last_full_at), is older than this (default 7)",
    )
    p.add_argument("--list", action="store_true", help="print the chosen mutants' ids, run nothing")
    p.add_argument(
        "--rescore",
        action="store_true",
        help="rewrite the report from its own verdicts and survivors.toml as it is now: no run",
    )
    args = p.parse_args(argv)
    problem = arguments_problem(args)
    if problem:
        _say(problem)
        return 2
    langs = args.lang or ["go", "python"]
    checks = args.checks.split(",") if args.checks else list(JUDGE_CHECKS)
    if args.checks == "all":
        checks = [c for c in sorted(check_functions()) if c not in NOT_JUDGING]
    unknown = [c for c in checks if c not in check_functions()]
    if unknown:
        _say(f"unknown checks: {', '.join(unknown)}")
        return 2
    own()
    os.environ.setdefault(CONVERGE_TIMEOUT_ENV, "20")
    started = time.monotonic()
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    try:
        survivors = load_survivors()
        everything: dict[str, list[ToolMutant]] = {}
        selected: dict[str, Any] = {}
        if "python" in langs:
            whole = generate.python_listing(cache_root() / "mutscore")
            everything["python"] = whole if args.all_operators else python_selected(whole)
            selected = summary(whole, list(survivors.mutants))
            _say(
                f"python: {selected['selected']} of cosmic-ray's {selected['tool_total']} "
                f"selected (harness/mutscore/selection.py); survivors.toml entries of dropped "
                f"mutants: {len(selected['survivor_entries_dropped'])}"
            )
        if "go" in langs:
            listings = cache_root() / "mutscore"  # kept across clones: keyed by the sources
            listings.mkdir(parents=True, exist_ok=True)
            everything["go"] = generate.go_mutants(generate.gremlins_listing(listings))
    except (ValueError, generate.GenerationError) as exc:
        _say(str(exc))
        return 2
    unknown = unknown_ids(args.mutant, everything)
    if unknown:  # before any control plane: else it would run every mutant, for hours
        _say(
            f"unknown mutant id(s) {', '.join(unknown)} among the {' and '.join(langs)} "
            "mutants; --list (without --sample) prints every id"
        )
        return 2
    reports = Path(args.reports)
    if args.rescore:
        data = rescore(
            json.loads((reports / "mutation-score.json").read_text()), everything, survivors
        )
        return finish(data, reports, langs)
    if args.sample_file:
        sample_path = Path(args.sample_file)
        try:
            sample = load_sample(sample_path)
            if args.refresh_sample:
                sample, replaced = refresh_sample(everything, sample, args.seed)
                write_sample(sample_path, sample)
                for old, new in replaced:
                    _say(f"replaced {old} by {new}")
                _say(f"wrote {sample_path} ({len(replaced)} replaced): review it and commit")
                return 0
            chosen = fixed_sample(everything, sample, sample_path)
        except SampleError as exc:
            _say(str(exc))
            return 2
        chosen += [
            m
            for lang in langs
            for m in everything[lang]
            if m.id in set(args.mutant) and m not in chosen
        ]
        how = f"the fixed sample of {_shown(sample_path)}"
    else:
        chosen = [
            m
            for lang in langs
            for m in choose(everything[lang], args.sample, args.seed, survivors, args.mutant)
        ]
        how = f"sample {args.sample}, seed {args.seed}"
    _say(
        ", ".join(f"{lang}: {len(everything[lang])} generated" for lang in langs)
        + f"; {len(chosen)} chosen ({how})"
    )
    if args.list:
        print("\n".join(m.id for m in chosen))
        return 0
    from harness.envtest import binaries
    from harness.envtest.controlplane import ControlPlane

    binaries.ensure(binaries.ENVTEST_BINARIES)
    with ControlPlane(tier="envtest") as cp:
        try:
            coverage = cover.ensure_coverage(langs, checks, cp.state_path, args.workers)
        except cover.CoverageError as exc:
            _say(str(exc))
            return 2
        prior: dict[str, dict[str, int]] = {}
        for path in args.prior:
            for key, per in prior_kills(json.loads(Path(path).read_text())).items():
                for c, n in per.items():
                    prior.setdefault(key, {})[c] = prior.setdefault(key, {}).get(c, 0) + n
        checks_of = {
            m.id: judging_checks(m, coverage[m.lang], args.max_checks, checks, prior)
            for m in chosen
        }
        assumed = assumed_equivalent(chosen, survivors)
        run_these = [m for m in chosen if m.id not in assumed]
        covered = sum(1 for m in chosen if checks_of[m.id])
        _say(f"{covered} of {len(chosen)} covered by {', '.join(checks)}")
        expected = [m.id for m in run_these if survivors.classify(m)]
        keys = {lang: judging_key(lang, checks, args.max_checks, args.first_kill) for lang in langs}
        environment = environment_key(
            os.environ[CONVERGE_TIMEOUT_ENV], binaries.kubernetes_version()
        )
        mutant_keys = {
            m.id: mutant_key(m.id, m.file, args.max_checks, args.first_kill, environment)
            for m in run_these
            if checks_of[m.id]
        }
        checks_now = check_keys(sorted({c for cs in checks_of.values() for c in cs}))
        earlier, delta, last_full, said = incremental(
            args.incremental, args.full_every, mutant_keys, checks_of, checks_now
        )
        for line in said:
            _say(line)
        journal = Journal(reports / "verdicts.jsonl", keys)
        done = {i: r for i, r in journal.start(args.resume).items() if i in checks_of}
        if done:
            _say(f"resuming: {len(done)} verdicts from {journal.path}, judged before")
        for i, r in earlier.items():
            if i not in done:
                done[i] = r
                journal.record(i, r)
        run_these = [m for m in run_these if m.id not in done]
        results = done | judge(
            run_these,
            {**checks_of, **delta},
            cp,
            args.jobs,
            args.first_kill,
            expected,
            journal,
            mutant_keys,
        )
        for i, todo in delta.items():  # a survivor judged by its changed checks only
            if i in results and results[i]["status"] in ("survived", "killed"):
                again = results[i]
                again["rejudged_by"] = todo
                again["ran"] = [c for c in checks_of[i] if c not in todo] + list(
                    again.get("ran") or ()
                )
        for i in assumed:
            if checks_of[i]:
                results[i] = {"status": "survived", "assumed": True}
    data = build_report(
        {lang: len(ms) for lang, ms in everything.items()},
        chosen,
        checks_of,
        results,
        survivors,
        {
            "sample": args.sample,
            "sample_file": args.sample_file,
            "seed": args.seed,
            "checks": checks,
            "max_checks": args.max_checks,
            "first_kill": args.first_kill,
            "prior": args.prior,
            "incremental": args.incremental,
            "check_keys": checks_now,
            "last_full_at": round(last_full),
            "jobs": args.jobs,
            "python_selection": selected,
            "converge_timeout_s": os.environ[CONVERGE_TIMEOUT_ENV],
            "seconds": round(time.monotonic() - started, 1),
        },
    )
    return finish(data, reports, langs)


def finish(data: Mapping[str, Any], reports: Path, langs: Sequence[str]) -> int:
    """Write ``reports/mutation-score.json`` and refresh the comparison, print the counts,
    the killed equivalents and the unclassified survivors; return 1 if there is one, else 0."""
    reports.mkdir(parents=True, exist_ok=True)
    runs.write_text_atomic(reports / "mutation-score.json", json.dumps(data, indent=2) + "\n")
    for lang, e in data["languages"].items():
        if lang in langs:
            _say(
                f"{lang}: generated {e['generated_total']}, judged {e['generated']}, covered "
                f"{e['covered']}, killed {e['killed']}, equivalent {e['equivalent']}, "
                f"not viable {e['not_viable']}, stillborn {e['stillborn']}, unjudged "
                f"{e['unjudged']}, unclassified {e['unclassified']}, score {e['score']}"
            )
    for i in data["killed_equivalents"]:
        _say(f"classified equivalent, but killed: {i} (by {data['mutants'][i]['killed_by']})")
    for i in data.get("killed_classified", []):
        m = data["mutants"][i]
        _say(f"classified {m['classified_as']}, but killed: {i} (by {m['killed_by']})")
    for i in data["unclassified"]:
        _say(f"UNCLASSIFIED survivor: {i} (checks {data['mutants'][i]['checks']})")
    from harness import report
    from harness.operators import load_implementations

    report.refresh(reports, load_implementations())
    _say(f"wrote {reports / 'mutation-score.json'}")
    return 1 if data["unclassified"] else 0


if __name__ == "__main__":
    sys.exit(main())
