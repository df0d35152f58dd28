"""The mutation score (``python -m harness mutation-score``, ``make mutation-score``): tool
mutants of both operators (``harness.mutscore.generate``) judged by the conformance suite on a
real API server.

1. Generate: cosmic-ray's and gremlins' lists, each mutant with a stable id.
2. Choose: every mutant, or a seeded sample (``--sample N --seed S`` per language), plus one
   mutant of each equivalent class of ``survivors.toml`` (so a run shows the class still
   survives, or reports that it is killed).
3. Coverage: the real operators once under coverage during a suite run of the judging checks
   (``harness.mutscore.cover``: per check, from each process's ``WATCH_NAMESPACE``), cached by
   source hash in ``build/mutscore/``. A mutant on a line no judging check executed is ``not
   covered``: not run, not killed.
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
import re
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import runs, say
from harness.checks import CONVERGE_TIMEOUT_ENV, base_check, case_functions, check_functions
from harness.mutants import plan
from harness.mutscore import cover, generate
from harness.mutscore.generate import ToolMutant
from harness.paths import BUILD_DIR, REPO_ROOT, REPORTS_DIR, cache_root

WORK_DIR = BUILD_DIR / "mutscore"
SURVIVORS_FILE = REPO_ROOT / "harness" / "mutants" / "survivors.toml"
#: The kinds a survivor may be classified as.
KINDS = ("equivalent", "gap", "dead-code")

#: The checks that judge by default: the envtest checks whose real-operator run is short,
#: one per behaviour the operators' code serves (convergence, no-op writes, status, repair,
#: deletion, events, foreign fields and conditions, the catalog). The slow fault checks
#: (watch-recovers, apiserver restarts, leader-failover) are left out of the default: a full
#: run names them with --checks.
JUDGE_CHECKS: tuple[str, ...] = (
    "create-converges",
    "noop-stable",
    "progressing-without-kubelet",
    "foreign-conditions-kept",
    "status-rebuilt",
    "child-repaired",
    "foreign-fields-kept",
    "finalizer-ordered-delete",
    "replaced-child-kept",
    "events-recorded",
    "status-follows-rollout",
    "user-object-kept",
    # added after the baseline: it kills a catalog mutant the others cannot see
    "external-effect-once",
)


_say = say.to("mutation-score")


# --------------------------------------------------------------------------- survivors.toml
@dataclass
class Survivors:
    """``survivors.toml``: ``mutants`` (stable id -> {kind, reason}) and ``classes`` (name ->
    {kind, reason, lang, context, operator (regex), file, function (regex)}): a class
    classifies every mutant that matches all the keys it gives."""

    mutants: dict[str, dict[str, str]] = field(default_factory=dict)
    classes: dict[str, dict[str, str]] = field(default_factory=dict)

    def classify(self, m: ToolMutant) -> tuple[str, str, str] | None:
        """``(kind, reason, source)`` for ``m`` (source: its id, or ``class:<name>``), or
        None when nothing classifies it."""
        if m.id in self.mutants:
            e = self.mutants[m.id]
            return e["kind"], e["reason"], m.id
        for name, c in self.classes.items():
            if class_matches(c, m):
                return c["kind"], c["reason"], f"class:{name}"
        return None


def class_matches(c: Mapping[str, str], m: ToolMutant) -> bool:
    """Whether the class ``c`` (survivors.toml ``[class.<name>]``) covers the mutant."""
    return (
        c.get("lang", m.lang) == m.lang
        and c.get("context", m.context) == m.context
        and c.get("file", m.file) == m.file
        and re.fullmatch(c.get("operator", ".*"), m.operator) is not None
        and re.fullmatch(c.get("function", ".*"), m.function) is not None
    )


def load_survivors(path: Path = SURVIVORS_FILE) -> Survivors:
    """Read ``survivors.toml``. Raises ValueError naming the entry for a kind not in
    ``KINDS`` or a missing or empty reason (every classification has its one-line reason)."""
    data = tomllib.loads(path.read_text()) if path.exists() else {}
    out = Survivors(dict(data.get("mutant", {})), dict(data.get("class", {})))
    for name, e in [*out.mutants.items(), *out.classes.items()]:
        if e.get("kind") not in KINDS or not str(e.get("reason", "")).strip():
            raise ValueError(
                f"{path}: {name!r} needs kind (one of {', '.join(KINDS)}) and a one-line reason"
            )
    return out


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


def unknown_ids(ids: Iterable[str], everything: Mapping[str, Sequence[ToolMutant]]) -> list[str]:
    """The ``--mutant`` ids none of the tools' lists (``everything``, by language) has, in the
    order given: ``choose`` would pass over them without a word."""
    known = {m.id for mutants in everything.values() for m in mutants}
    return [i for i in ids if i not in known]


def arguments_problem(args: argparse.Namespace) -> str | None:
    """What of the numbers on the command line would fail only after the mutants are generated
    or the control plane is up, in one line naming the option and the fix; else None."""
    if args.sample is not None and args.sample < 0:
        return f"--sample {args.sample}: give a number of mutants per language, 0 or more"
    for option, value in (
        ("--max-checks", args.max_checks),
        ("--jobs", args.jobs),
        ("--workers", args.workers),
    ):
        if value < 1:
            return f"{option} {value}: give a number of at least 1"
    return None


def assumed_equivalent(chosen: Sequence[ToolMutant], survivors: Survivors) -> set[str]:
    """The ids of ``chosen`` an equivalent class of survivors.toml covers, but the first (by id)
    of each class: those are not run (the class's representative is, and a kill of it is
    reported), and count as equivalent survivors."""
    out: set[str] = set()
    for c in survivors.classes.values():
        if c["kind"] != "equivalent":
            continue
        members = sorted(m.id for m in chosen if class_matches(c, m))
        out.update(members[1:])
    return out


def judging_checks(
    m: ToolMutant,
    coverage: Mapping[str, Mapping[str, Iterable[int]]],
    most: int,
    checks: Sequence[str],
) -> list[str]:
    """The judging ``checks`` (ids, or ``id[case]``) whose run executed the mutant's line
    (``coverage``: ``cover.lines_by_check``, keyed by check id: a namespace names the check,
    not the case), cheapest first by ``plan.CHECK_SECONDS`` of their functions, at most
    ``most``."""
    functions = {**check_functions(), **case_functions()}
    found = set(cover.checks_at(coverage, m.file, m.line))
    mine = [c for c in checks if base_check(c) in found]
    return sorted(mine, key=lambda c: (plan.entry_seconds([c], functions), c))[:most]


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
    proc = subprocess.run(
        ["go", "build", "-overlay", str(overlay), "-o", str(go_binary(m)), "."],
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


# --------------------------------------------------------------------------- coverage
def coverage_key(lang: str, checks: Sequence[str]) -> str:
    """A key of the coverage cache: the operator's sources and the judging checks."""
    import hashlib

    digest = hashlib.sha256(("base-cases:" + ",".join(sorted(checks))).encode())
    if lang == "go":
        digest.update(generate.go_sources_hash().encode())
    else:
        for path in sorted((REPO_ROOT / "python_operator").rglob("*.py")):
            digest.update(path.read_bytes())
    for path in sorted((REPO_ROOT / "conformance").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def ensure_coverage(
    langs: Sequence[str], checks: Sequence[str], state_path: Path, workers: int
) -> dict[str, dict[str, dict[str, list[int]]]]:
    """Per language, ``cover.lines_by_check`` of a suite run of ``checks`` (each its base
    case, the testcase ``judge`` runs) against the coverage implementation on the control plane in ``state_path``; from the cache when the
    key (``coverage_key``) matches."""
    from harness.mutants.runner import select_checks
    from harness.suite import run_suite

    out: dict[str, dict[str, dict[str, list[int]]]] = {}
    todo = []
    for lang in langs:
        cached = WORK_DIR / f"coverage-{lang}-{coverage_key(lang, checks)}.json"
        if cached.exists():
            out[lang] = json.loads(cached.read_text())
            _say(f"{lang} coverage from {cached.relative_to(REPO_ROOT)}")
        else:
            todo.append(lang)
    if not todo:
        return out
    data_dir = runs.temp_dir("mutscore-cover")
    impl_file = WORK_DIR / "cover-impls.toml"
    impl_file.write_text(cover.implementations(data_dir))
    if "go" in todo:
        cover.build_go_cover()
    # each check's base case, as judge() runs (a check without one: all its cases)
    table = {**check_functions(), **case_functions()}
    k = select_checks(checks, table)  # exact names: not test_noop_stable_long_quiet too
    logs = WORK_DIR / "cover-reports"
    logs.mkdir(parents=True, exist_ok=True)

    def one(lang: str) -> None:
        t0 = time.monotonic()
        run_suite(
            cover.COVER_IDS[lang],
            state_path,
            logs,
            ["-n", str(workers), "--tb=line", "-k", k],
            [str(impl_file)],
            log=logs / f"pytest-{lang}.log",
        )
        out[lang] = cover.lines_by_check(data_dir, lang)
        cached = WORK_DIR / f"coverage-{lang}-{coverage_key(lang, checks)}.json"
        runs.write_text_atomic(cached, json.dumps(out[lang]))
        _say(f"{lang} coverage: {len(out[lang])} checks, {time.monotonic() - t0:.0f}s")

    with ThreadPoolExecutor(max_workers=len(todo)) as pool:
        list(pool.map(one, todo))
    return out


# --------------------------------------------------------------------------- judging
def judge(
    chosen: Sequence[ToolMutant],
    checks_of: Mapping[str, list[str]],
    cp: Any,
    jobs: int,
) -> dict[str, dict[str, Any]]:
    """Run each covered mutant's checks (``checks_of``: id -> checks; none: not run) on the
    control plane ``cp``, ``jobs`` at a time; return id -> {status, killed_by, errors,
    seconds, problem}. status: ``killed``, ``survived``, ``not viable`` (does not compile),
    ``stillborn`` (did not become ready) or ``unjudged`` (every check errored: no verdict)."""
    from harness.junit import suite_file
    from harness.mutants.runner import preflight, read_junit, select_checks
    from harness.operators import load_implementations
    from harness.suite import run_suite

    impl_file = WORK_DIR / "mutants.toml"
    runnable = [m for m in chosen if checks_of.get(m.id)]
    impl_file.write_text(implementations_toml(runnable))
    impls = load_implementations([impl_file])
    out_dir = WORK_DIR / "junit"
    out_dir.mkdir(parents=True, exist_ok=True)
    functions = check_functions()
    cases = case_functions()
    results: dict[str, dict[str, Any]] = {}

    def one(m: ToolMutant) -> None:
        t0 = time.monotonic()
        problem = prepare(m)
        if problem:  # gremlins' NOT VIABLE: the Go compiler refuses it (a string's + made -)
            results[m.id] = {"status": "not viable", "problem": problem[:600]}
            _say(f"{m.id}: not viable")
            return
        problem = preflight(cp, m.impl_id, impls, out_dir)
        if problem:
            results[m.id] = {"status": "stillborn", "problem": problem[:600]}
            _say(f"{m.id}: stillborn")
            return
        junit = suite_file(out_dir, m.impl_id)
        junit.unlink(missing_ok=True)
        checks = checks_of[m.id]
        # each check's base case (its slow sibling cases are a full run's, --checks id[case])
        table = {**functions, **cases}
        n = len({f for c in checks for f in table.get(c, ())})
        k = select_checks(checks, table)
        run_suite(
            m.impl_id,
            cp.state_path,
            out_dir,
            ["-n", str(min(n, 2)) if n > 1 else "0", "--tb=line", "-k", k],
            [str(impl_file)],
            log=out_dir / f"pytest-{m.impl_id}.log",
        )
        res = read_junit(junit) if junit.exists() else None
        seconds = round(time.monotonic() - t0, 1)
        if res is None:
            results[m.id] = {"status": "unjudged", "problem": "no JUnit file", "seconds": seconds}
        elif res.killed_by:
            results[m.id] = {"status": "killed", "killed_by": res.killed_by, "seconds": seconds}
        elif res.passed:
            results[m.id] = {"status": "survived", "errors": res.errors, "seconds": seconds}
        else:
            results[m.id] = {"status": "unjudged", "errors": res.errors, "seconds": seconds}
        _say(f"{m.id}: {results[m.id]['status']} {res.killed_by if res else ''} ({seconds:.0f}s)")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, runnable))
    return results


# --------------------------------------------------------------------------- the score
COUNTS = (
    "generated",
    "covered",
    "killed",
    "equivalent",
    "not_viable",
    "stillborn",
    "unjudged",
    "unclassified",
)


def tally(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The integer counts of ``rows`` (mutant entries of the report) and the score: killed /
    (covered - equivalent - not viable - stillborn - unjudged), None when that is 0."""
    c = dict.fromkeys(COUNTS, 0)
    for r in rows:
        c["generated"] += 1
        c["covered"] += r["status"] != "not covered"
        c["killed"] += r["status"] == "killed"
        c["not_viable"] += r["status"] == "not viable"
        c["stillborn"] += r["status"] == "stillborn"
        c["unjudged"] += r["status"] == "unjudged"
        c["equivalent"] += r["status"] == "survived" and r.get("kind") == "equivalent"
        c["unclassified"] += r["status"] == "survived" and not r.get("kind")
    base = c["covered"] - c["equivalent"] - c["not_viable"] - c["stillborn"] - c["unjudged"]
    return {**c, "score": round(c["killed"] / base, 4) if base > 0 else None}


def concept(function: str) -> str:
    """The name a function has in both languages: the last dotted part, in snake case
    (``computeStatus`` and ``compute_status`` -> ``compute_status``;
    ``ModelServiceReconciler.ensureChild`` -> ``ensure_child``)."""
    last = function.rsplit(".", 1)[-1]
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", last).lower()


def comparison(rows: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """concept (``concept``) -> {"go": tally, "python": tally} for every concept with a covered
    mutant in both languages: the same function mutated in both, killed in one only shows as
    a difference of their scores."""
    out: dict[str, dict[str, Any]] = {}
    names = {concept(r["function"]) for r in rows.values()}
    for name in sorted(names):
        sides = {
            lang: tally(
                r for r in rows.values() if r["lang"] == lang and concept(r["function"]) == name
            )
            for lang in ("go", "python")
        }
        if all(t["covered"] for t in sides.values()):
            out[name] = sides
    return out


def build_report(
    generated: Mapping[str, int],
    chosen: Sequence[ToolMutant],
    checks_of: Mapping[str, list[str]],
    results: Mapping[str, Mapping[str, Any]],
    survivors: Survivors,
    run: Mapping[str, Any],
) -> dict[str, Any]:
    """The dict of ``reports/mutation-score.json``: ``languages`` (lang -> ``tally`` of the
    judged mutants, plus ``generated_total``, the tool's whole list, and ``files`` and
    ``functions``, each a tally), ``mutants`` (id -> status, checks, killed_by, kind,
    reason), ``comparison`` (``comparison``), ``killed_equivalents`` (classified equivalent, but killed), ``killed_classified``
    (classified a gap or dead code, but killed), ``unclassified``, ``run``."""
    rows: dict[str, dict[str, Any]] = {}
    for m in chosen:
        r: dict[str, Any] = {
            "lang": m.lang,
            "file": m.file,
            "function": m.function,
            "line": m.line,
            "operator": m.operator,
            "original": m.original,
            "replacement": m.replacement,
            "context": m.context,
            "checks": checks_of.get(m.id, []),
        }
        r.update(results.get(m.id) or {"status": "not covered"})
        cls = survivors.classify(m)
        if cls and r["status"] == "survived":
            r.update(kind=cls[0], reason=cls[1], classified_by=cls[2])
        elif cls:
            r["classified_as"] = cls[0]
        rows[m.id] = r
    langs: dict[str, Any] = {}
    for lang in ("go", "python"):
        mine = [r for r in rows.values() if r["lang"] == lang]
        entry = tally(mine)
        entry["generated_total"] = generated.get(lang, 0)
        entry["files"] = {
            f: tally(r for r in mine if r["file"] == f) for f in sorted({r["file"] for r in mine})
        }
        entry["functions"] = {
            f"{file}:{fn}": tally(r for r in mine if (r["file"], r["function"]) == (file, fn))
            for file, fn in sorted({(r["file"], r["function"]) for r in mine})
        }
        langs[lang] = entry
    return {
        "languages": langs,
        "comparison": comparison(rows),
        "mutants": rows,
        "killed_equivalents": sorted(
            i
            for i, r in rows.items()
            if r["status"] == "killed" and r.get("classified_as") == "equivalent"
        ),
        # a gap or dead code that a run killed: its entry can go (or the kill was timing's)
        "killed_classified": sorted(
            i
            for i, r in rows.items()
            if r["status"] == "killed" and r.get("classified_as") not in (None, "equivalent")
        ),
        "unclassified": sorted(
            i for i, r in rows.items() if r["status"] == "survived" and not r.get("kind")
        ),
        "run": dict(run),
    }


def rescore(
    data: Mapping[str, Any], everything: Mapping[str, Sequence[ToolMutant]], survivors: Survivors
) -> dict[str, Any]:
    """``build_report`` again from an earlier report's verdicts, without running anything:
    the mutants found again by stable id in ``everything`` (the tools' lists now; one whose
    id is gone is dropped), classified with ``survivors`` as it is now. A Go mutant an older
    report called stillborn for a failed build is ``not viable``."""
    by_id = {m.id: m for ms in everything.values() for m in ms}
    rows = data.get("mutants") or {}
    chosen = [by_id[i] for i in rows if i in by_id]
    keep = ("status", "killed_by", "errors", "seconds", "problem", "assumed")
    results: dict[str, dict[str, Any]] = {}
    for m in chosen:
        r = {k: v for k, v in rows[m.id].items() if k in keep}
        if r["status"] == "stillborn" and str(r.get("problem", "")).startswith("go build failed"):
            r["status"] = "not viable"
        if r["status"] != "not covered":
            results[m.id] = r
    totals = {
        lang: int(e.get("generated_total", 0)) for lang, e in (data.get("languages") or {}).items()
    }
    return build_report(
        totals,
        chosen,
        {m.id: list(rows[m.id].get("checks", [])) for m in chosen},
        results,
        survivors,
        {**(data.get("run") or {}), "rescored": True},
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m harness mutation-score``: see the module docstring. Exit 0, or 1 when a
    survivor is unclassified, 2 for bad arguments (checked before any control plane starts: a
    negative --sample, an unknown --mutant id, ...) or a tool that failed."""
    p = argparse.ArgumentParser(prog="python -m harness mutation-score", description=__doc__)
    p.add_argument("--lang", action="append", choices=("go", "python"), help="default: both")
    p.add_argument("--sample", type=int, help="mutants per language, seeded (default: all)")
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--mutant", action="append", default=[], help="a stable id, also run")
    p.add_argument("--checks", help="comma-separated judging checks (default: JUDGE_CHECKS)")
    p.add_argument("--max-checks", type=int, default=3, help="checks per mutant, cheapest first")
    p.add_argument("--jobs", type=int, default=3, help="mutants at a time")
    p.add_argument("--workers", type=int, default=3, help="pytest-xdist workers, coverage run")
    p.add_argument("--reports", default=str(REPORTS_DIR))
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
    unknown = [c for c in checks if c not in check_functions()]
    if unknown:
        _say(f"unknown checks: {', '.join(unknown)}")
        return 2
    os.environ.setdefault(CONVERGE_TIMEOUT_ENV, "20")
    started = time.monotonic()
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    try:
        survivors = load_survivors()
        everything: dict[str, list[ToolMutant]] = {}
        if "python" in langs:
            everything["python"] = generate.python_mutants()
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
    chosen = [
        m
        for lang in langs
        for m in choose(everything[lang], args.sample, args.seed, survivors, args.mutant)
    ]
    _say(
        ", ".join(f"{lang}: {len(everything[lang])} generated" for lang in langs)
        + f"; {len(chosen)} chosen (sample {args.sample}, seed {args.seed})"
    )
    if args.list:
        print("\n".join(m.id for m in chosen))
        return 0
    from harness.envtest import binaries
    from harness.envtest.controlplane import ControlPlane

    binaries.ensure(binaries.ENVTEST_BINARIES)
    with ControlPlane(tier="envtest") as cp:
        coverage = ensure_coverage(langs, checks, cp.state_path, args.workers)
        checks_of = {
            m.id: judging_checks(m, coverage[m.lang], args.max_checks, checks) for m in chosen
        }
        assumed = assumed_equivalent(chosen, survivors)
        run_these = [m for m in chosen if m.id not in assumed]
        covered = sum(1 for m in chosen if checks_of[m.id])
        _say(f"{covered} of {len(chosen)} covered by {', '.join(checks)}")
        results = judge(run_these, checks_of, cp, args.jobs)
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
            "seed": args.seed,
            "checks": checks,
            "max_checks": args.max_checks,
            "jobs": args.jobs,
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
