"""``python -m harness generate`` (``make generate``) and ``python -m harness replay FILE``.

``generate`` starts one control plane, a lane per implementation (its namespace, API proxy and
operator), and runs ``--sequences`` sequences of at most ``--steps`` steps drawn from
``--seed``; a failing sequence is shrunk and written to ``reports/generated/<id>.yaml``.
``reports/generated.json``: the seed, the settings, and per implementation the seed, the
integer counts ``sequences`` and ``steps`` (run, hypothesis's shrinking tries included) and
``failures`` (sequences in which an oracle failed for it, shrinking tries included), and the
case files. Exit 1 when an oracle failed, 3 when a sequence failed once and passed when
hypothesis ran it again (``flaky`` in the JSON: not judged, so not green).

``replay FILE`` runs a case file's steps again (on the implementations it names, or
``--impl``), without hypothesis; exit 1 when an oracle still fails, printing its message.

Both exit 2, in one line naming the option (or the case file and its step) and the fix, for
what would otherwise fail once a control plane is up (``generate_problem``,
``replay_problem``, checked first), and for a build that failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import exitcodes, report, runs, say
from harness.envtest.controlplane import TIERS, ControlPlane
from harness.generate.casefile import smallest_failure
from harness.generate.lane import Settings
from harness.generate.machine import (
    CaseError,
    World,
    case_implementations,
    read_case,
    replay,
)
from harness.generate.slots import Slot, run_slots, save_round
from harness.generate.timing import Clock
from harness.operators import Implementation, ImplementationError, load_implementations
from harness.paths import BUILD_DIR, REPORTS_DIR

#: The fixed sample ``make generate-ci`` runs (within ``make test``). Its 4 sequences draw every step
#: but ``foreign`` and neither finding of the generator that was open when it was chosen (a
#: quantity in exponent form, ``cases/exponent-quantity-spelling.yaml``, still open; a create
#: refused for two resources at once, ``cases/refusal-message-order.yaml``, fixed since),
#: which 20261206 drew: make test judges what is settled, ``make generate`` draws everything.
CI_SEED, CI_SEQUENCES, CI_STEPS = 20261211, 4, 10


_say = say.to("generate")


def rooted(impl: Implementation, root: Path) -> Implementation:
    """``impl`` (``go`` or ``python``, as harness/implementations.toml declares them) started
    from the operator sources under ``root`` (another checkout: ``root/go_reference``,
    ``root/python_operator``) instead of this one's; the Go binary is built into
    ``build/modeldock-go-<hash of root>``. Other ids are returned unchanged. Raises
    ImplementationError when ``root`` has no such folder."""
    folder = {"go": root / "go_reference", "python": root / "python_operator"}.get(impl.id)
    if folder is None:
        return impl
    if not folder.is_dir():
        raise ImplementationError(f"--operator-root {root}: no {folder.name}/ there")
    if impl.id == "python":
        # ``python -m python_operator`` imports from its working directory first.
        return dataclasses.replace(impl, workdir=root.resolve())
    tag = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]
    binary = str(BUILD_DIR / f"modeldock-go-{tag}")
    return dataclasses.replace(
        impl,
        workdir=folder.resolve(),
        build=("go", "build", "-o", binary, "."),
        command=(binary,),
    )


#: The implementations ``generate`` runs without ``--impl``.
DEFAULT_IMPLS = ["go", "python"]


def _known(files: list[str]) -> dict[str, Implementation]:
    """The implementations ``--impl`` may name: the declared ones, ``files``, the mutants."""
    from harness.mutants import MUTANTS_FILE

    return load_implementations([*files, MUTANTS_FILE])


def impls_problem(ids: list[str], files: list[str], root: str | None) -> str | None:
    """What is wrong with the implementations asked for, in one line (an unknown id, naming
    the known ones; an unreadable ``--impl-file``; an ``--operator-root`` that is not a
    folder), or None. Builds nothing."""
    try:
        known, declared = _known(files), load_implementations(files)
    except ImplementationError as exc:
        return str(exc)
    unknown = [i for i in ids if i not in known]
    if unknown:
        return (
            f"unknown implementation(s) {unknown}; known: {', '.join(sorted(declared))} and "
            f"the {len(known) - len(declared)} mutants of harness/mutants/mutants.toml (another "
            "implementation's file: --impl-file)"
        )
    if root is not None and not Path(root).is_dir():
        return f"--operator-root {root}: no such folder; give a checkout's root"
    return None


def generate_problem(args: argparse.Namespace) -> str | None:
    """What of ``generate``'s arguments would fail only once its control plane is up (or in
    hypothesis), in one line naming the option and the fix; None when it can start."""
    if not args.ci:
        for option, value in (("--sequences", args.sequences), ("--steps", args.steps)):
            if value < 1:
                return f"{option} {value}: give a number of at least 1"
    if args.jobs < 1:
        return f"--jobs {args.jobs}: give a number of at least 1"
    if args.parallel < 1:
        return f"--parallel {args.parallel}: give a number of sequences at once of at least 1"
    if args.shrink_seconds < 0:
        return f"--shrink-seconds {args.shrink_seconds}: give 0 (no shrinking) or more seconds"
    if args.quiet <= 0:
        return f"--quiet {args.quiet}: give a number of seconds above 0"
    return impls_problem(args.impl or DEFAULT_IMPLS, args.impl_file, args.operator_root)


def replay_problem(args: argparse.Namespace) -> str | None:
    """What of ``replay``'s arguments would fail only once its control plane is up: the case
    file (``read_case``: missing, a folder, not YAML, no steps, an unknown op, ...) and the
    implementations it names or ``--impl`` does; one line, or None."""
    if args.quiet <= 0:
        return f"--quiet {args.quiet}: give a number of seconds above 0"
    try:
        case = read_case(Path(args.file))
    except CaseError as exc:
        return str(exc)
    ids = args.impl or case_implementations(case)
    if not ids:
        return f"{args.file}: names no implementation; add implementation: <id> or give --impl"
    return impls_problem(ids, args.impl_file, args.operator_root)


def _impls(ids: list[str], files: list[str], root: str | None = None) -> list[Implementation]:
    known = _known(files)
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ImplementationError(f"unknown implementation(s) {unknown}")
    chosen = [rooted(known[i], Path(root)) if root else known[i] for i in ids]
    for impl in chosen:
        impl.run_build()
    return chosen


def _lane_options(p: argparse.ArgumentParser) -> None:
    """The options ``generate`` and ``replay`` share: what runs in the lanes and where."""
    p.add_argument("--impl-file", action="append", default=[], help="extra implementations TOML")
    p.add_argument(
        "--operator-root",
        metavar="PATH",
        help="run go and python from the operator sources of another checkout (PATH/go_reference, "
        "PATH/python_operator), e.g. a worktree of an older commit",
    )
    p.add_argument(
        "--quiet", type=float, default=2.0, help="seconds with no write that make an operator quiet"
    )
    p.add_argument(
        "--cluster",
        default="envtest",
        choices=TIERS,
        help="the tier: envtest (default; the harness plays the deployment controller and the "
        "garbage collector) or sim (kube-controller-manager, kube-scheduler and kwok act)",
    )
    p.add_argument("--keep", metavar="DIR", help="keep operator and proxy logs under DIR")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m harness generate",
        description="Generated workloads: sequences of steps drawn from the CRD's schema and "
        "from the cluster's other actors, applied to every implementation side by side, "
        "judged by oracles that need no expected value (docs/design.md, 'Generated "
        "workloads'). Writes reports/generated.json and, for a failure, the shrunk case "
        "reports/generated/<id>.yaml; exit 1 if an oracle failed.",
    )
    p.add_argument(
        "--impl", action="append", help="implementation id (repeatable; default go, python)"
    )
    p.add_argument("--sequences", type=int, default=20, help="sequences to draw (default 20)")
    p.add_argument(
        "--steps", type=int, default=20, help="at most this many steps each (default 20)"
    )
    p.add_argument("--seed", type=int, default=0, help="hypothesis seed (default: the time)")
    p.add_argument(
        "--no-shrink", action="store_true", help="save the first failing sequence as it is"
    )
    p.add_argument(
        "--shrink-seconds",
        type=float,
        default=600.0,
        help="seconds of shrinking after the first failure (default 600), each try a "
        "sequence on the cluster",
    )
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="after a failing sequence is shrunk and saved, go on with the sequences not drawn "
        "yet (a new round, a new seed) instead of ending the slot: every failure of a long "
        "run gets its case file (the nightly)",
    )
    p.add_argument(
        "--ci",
        action="store_true",
        help=f"the fixed sample make test runs: seed {CI_SEED}, {CI_SEQUENCES} sequences of "
        f"at most {CI_STEPS} steps",
    )
    p.add_argument("--reports", default=str(REPORTS_DIR), help="reports folder")
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="runs at once, each a process with a control plane and lanes of its own, seeds "
        "SEED, SEED+1, ...; the sequences are shared out and the counts summed (default 1)",
    )
    p.add_argument(
        "--parallel",
        type=int,
        default=1,
        metavar="K",
        help="sequences at once on the one control plane, each in lanes (namespaces, API "
        "proxies, operator processes) of its own, seeds SEED, SEED+1, ... (default 1)",
    )
    _lane_options(p)
    return p


def run_generate(args: argparse.Namespace) -> int:
    ids = args.impl or DEFAULT_IMPLS
    impls = _impls(ids, args.impl_file, args.operator_root)
    if args.ci:
        args.seed, args.sequences, args.steps = CI_SEED, CI_SEQUENCES, CI_STEPS
    seed_value = args.seed or int(time.time())
    reports = Path(args.reports)
    if args.jobs > 1:
        return _run_jobs(args, seed_value, reports)
    started = time.monotonic()
    with (
        ControlPlane(tier=args.cluster) as cp,
        tempfile.TemporaryDirectory(prefix="modeldock-generate-") as tmp,
    ):
        at_once = f", {min(args.parallel, args.sequences)} at once" if args.parallel > 1 else ""
        _say(
            f"{', '.join(ids)}: {args.sequences} sequences of at most {args.steps} steps, "
            f"seed {seed_value}{at_once}"
        )
        slots = run_slots(
            Settings(cp, Path(args.keep or tmp), quiet=args.quiet, quiet_timeout=_timeout(args)),
            impls,
            args.parallel,
            args.sequences,
            args.steps,
            seed_value,
            shrink=not args.no_shrink,
            shrink_seconds=args.shrink_seconds,
            keep_going=args.keep_going,
            cases=reports / "generated",
            progress=_say,
        )
    seconds = time.monotonic() - started
    parts = [_slot_data(args, s, reports, seconds) for s in slots]
    data = parts[0] if len(parts) == 1 else merge(parts, seed_value, seconds, reports / "generated")
    data["parallel"] = len(parts)
    data["sequences_asked"] = args.sequences  # the slots' parts are what each took
    reports.mkdir(parents=True, exist_ok=True)
    runs.write_text_atomic(reports / "generated.json", json.dumps(data, indent=1) + "\n")
    report.refresh(reports)  # the comparison's section, when a suite's report is there
    for i, e in data["implementations"].items():
        _say(
            f"{i}: {e['sequences']} sequences, {e['steps']} steps, {e['failures']} oracle failures"
        )
    for part in parts:
        for found in part["findings"]:
            for e in [found, *found["also"]]:
                _say(f"FAILED [{e['implementation']}] {e['oracle']}: {e['message']}")
            _say(f"shrunk case: {found['case']} (python -m harness replay {found['case']})")
        for other in part["other_cases"]:
            _say(f"smallest case of another oracle: {other}")
    _say(f"wrote {reports / 'generated.json'} in {data['seconds']:.0f}s")
    if data["flaky"] and not data["failure"]:
        _say(f"{data['flaky']} sequence(s) failed once and passed again: not judged (exit 3)")
        return 3
    return 1 if data["failure"] else 0


def _slot_data(
    args: argparse.Namespace, slot: Slot, reports: Path, seconds: float
) -> dict[str, Any]:
    """generated.json of one slot (``slots.Slot``): for each of its failing rounds the case
    files written under ``reports/generated/`` and a ``findings`` entry (the round's seed,
    the smallest failure, its steps and case); ``failure`` is the first finding (None: none);
    ``seconds`` the run's wall time. ``merge`` joins several."""
    world, folder = slot.world, reports / "generated"
    findings: list[dict[str, Any]] = []
    others: list[Path] = []
    for r in slot.rounds:
        save_round(folder, world, r)  # written as the round ended, or now
        others += r.other_cases
        world.failing = r.failing  # what smallest_failure reads
        smallest, case = smallest_failure(world), r.case
        if case is None or smallest is None:
            continue
        trace, failure = smallest
        findings.append(
            {
                "seed": r.seed,
                "round_size": r.size,
                "implementation": failure.impl,
                "oracle": failure.oracle,
                "message": failure.message,
                "also": [
                    {"implementation": e.impl, "oracle": e.oracle, "message": e.message}
                    for e in failure.also
                ],
                "steps": len(trace),
                "case": str(case),
            }
        )
    return {
        "seed": slot.seed,
        "sequences_asked": slot.sequences,
        # sequences hypothesis drew (its shrinking tries are not counted here)
        "sequences_drawn": world.drawn,
        "keep_going": bool(getattr(args, "keep_going", False)),
        "max_steps": args.steps,
        "quiet_seconds": args.quiet,
        "operator_root": args.operator_root,
        "cluster": args.cluster,
        "seconds": round(seconds, 1),
        "flaky": world.flaky,
        # wall seconds per phase of a step (timing.Clock): where the time goes
        "phases": world.clock.as_dict(),
        "other_cases": [str(c) for c in others],
        "implementations": {
            i: {
                "seed": slot.seed,
                "sequences": s.sequences,
                "steps": s.steps,
                "failures": s.failures,
                "oracles": s.oracles,
                "crashes": s.crashes,
                "cases": [
                    f["case"]
                    for f in findings
                    if i in {f["implementation"], *(e["implementation"] for e in f["also"])}
                ],
                "other_cases": [str(c) for c in others],
            }
            for i, s in world.stats.items()
        },
        "findings": findings,
        "failure": findings[0] if findings else None,
    }


#: Seconds for convergence and quiet together, per tier: on sim Pods start (kwok, a loaded
#: machine) before a Deployment of many replicas stops moving.
QUIET_TIMEOUT = {"envtest": 60.0, "sim": 180.0}


def _timeout(args: argparse.Namespace) -> float:
    """``QUIET_TIMEOUT`` of the run's tier."""
    return QUIET_TIMEOUT.get(args.cluster, 60.0)


def _child_argv(
    args: argparse.Namespace, seed_value: int, sequences: int, folder: Path
) -> list[str]:
    """The command line of one job of ``--jobs``: this run's options, its own seed, share of
    the sequences and reports folder."""
    argv = [sys.executable, "-m", "harness", "generate", "--jobs", "1"]
    for i in args.impl or DEFAULT_IMPLS:
        argv += ["--impl", i]
    for f in args.impl_file:
        argv += ["--impl-file", f]
    if args.operator_root:
        argv += ["--operator-root", args.operator_root]
    argv += ["--sequences", str(sequences), "--steps", str(args.steps), "--seed", str(seed_value)]
    argv += ["--quiet", str(args.quiet), "--shrink-seconds", str(args.shrink_seconds)]
    argv += ["--cluster", args.cluster, "--reports", str(folder)]
    if args.no_shrink:
        argv.append("--no-shrink")
    if args.keep_going:
        argv.append("--keep-going")
    if args.keep:
        argv += ["--keep", str(Path(args.keep) / folder.name)]
    return argv


def _run_jobs(args: argparse.Namespace, seed_value: int, reports: Path) -> int:
    """``--jobs N``: N runs at once (``_child_argv``), seeds ``seed_value + i``, the sequences
    shared out; their generated.json merged into ``reports/generated.json`` (counts summed,
    ``seeds`` listed, the first failing job's failure, every case file copied into
    ``reports/generated/``). Exit 1 when a job found a failure, 3 when one ended otherwise."""
    jobs = max(1, min(args.jobs, args.sequences))
    share = [args.sequences // jobs + (1 if i < args.sequences % jobs else 0) for i in range(jobs)]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="modeldock-generate-jobs-") as tmp:
        folders = [Path(tmp) / f"job-{i}" for i in range(jobs)]
        procs = [
            subprocess.Popen(_child_argv(args, seed_value + i, share[i], folders[i]))
            for i in range(jobs)
        ]
        _say(f"{jobs} jobs, seeds {seed_value}..{seed_value + jobs - 1}, sequences {share}")
        try:
            codes = [p.wait() for p in procs]
        finally:  # Ctrl-C or SIGTERM here: each job unwinds on SIGTERM as this run does
            for p in procs:
                if p.poll() is None:
                    p.terminate()
            for p in procs:
                p.wait()
        parts = [
            json.loads((f / "generated.json").read_text())
            for f in folders
            if (f / "generated.json").exists()
        ]
        (reports / "generated").mkdir(parents=True, exist_ok=True)
        for f in folders:
            for case in sorted((f / "generated").glob("*.yaml")):
                shutil.copy(case, reports / "generated" / case.name)
    data = merge(parts, seed_value, time.monotonic() - started, reports / "generated")
    runs.write_text_atomic(reports / "generated.json", json.dumps(data, indent=1) + "\n")
    report.refresh(reports)
    for i, e in data["implementations"].items():
        _say(
            f"{i}: {e['sequences']} sequences, {e['steps']} steps, {e['failures']} oracle failures"
        )
    _say(f"wrote {reports / 'generated.json'} in {data['seconds']:.0f}s ({jobs} jobs)")
    if data["failure"]:
        return 1  # a failure found outweighs a job that ended otherwise
    return 3 if any(c not in (0, 1) for c in codes) else 0


def merge(
    parts: list[dict[str, Any]], seed_value: int, seconds: float, cases: Path
) -> dict[str, Any]:
    """One generated.json from the jobs' (``parts``, in job order): the counts summed per
    implementation, oracles summed per oracle, the case paths moved under ``cases``, the first
    failure; ``seconds`` is the wall time of the whole, ``seeds`` each job's."""
    out: dict[str, Any] = {
        "seed": seed_value,
        "seeds": [p.get("seed") for p in parts],
        "jobs": len(parts),
        "seconds": round(seconds, 1),
        "implementations": {},
        "failure": None,
    }
    for key in ("max_steps", "quiet_seconds", "operator_root", "cluster"):
        out[key] = parts[0].get(key) if parts else None
    out["sequences_asked"] = sum(int(p.get("sequences_asked") or 0) for p in parts)
    out["sequences_drawn"] = sum(int(p.get("sequences_drawn") or 0) for p in parts)
    out["keep_going"] = any(p.get("keep_going") for p in parts)
    out["findings"] = [
        f | {"case": str(cases / Path(f.get("case") or "").name)}
        for p in parts
        for f in p.get("findings") or []
    ]
    out["flaky"] = sum(int(p.get("flaky") or 0) for p in parts)
    out["phases"] = _merged_phases([p.get("phases") or {} for p in parts])
    for p in parts:
        for impl, e in (p.get("implementations") or {}).items():
            m = out["implementations"].setdefault(
                impl,
                {"seed": seed_value, "sequences": 0, "steps": 0, "failures": 0, "crashes": 0}
                | {"oracles": {}, "cases": []},
            )
            for k in ("sequences", "steps", "failures", "crashes"):
                m[k] += int(e.get(k) or 0)
            for o, n in (e.get("oracles") or {}).items():
                m["oracles"][o] = m["oracles"].get(o, 0) + int(n)
            for key in ("cases", "other_cases"):
                m.setdefault(key, [])
                m[key] += [str(cases / Path(c).name) for c in e.get(key) or []]
        if p.get("failure") and out["failure"] is None:
            f = dict(p["failure"])
            f["case"] = str(cases / Path(f.get("case") or "").name)
            out["failure"] = f
    return out


def _merged_phases(parts: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The parts' ``phases`` (``timing.Clock.as_dict``) summed per phase."""
    clock = Clock()
    for phases in parts:
        for name, p in phases.items():
            clock.add(name, float(p.get("seconds") or 0), int(p.get("count") or 0))
    return clock.as_dict()


def replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m harness replay",
        description="Run a case file of python -m harness generate again (its steps, "
        "without hypothesis); exit 1 if an oracle still fails.",
    )
    p.add_argument("file", help="reports/generated/<id>.yaml")
    p.add_argument("--impl", action="append", help="implementation id (default: the file's)")
    _lane_options(p)
    return p


def run_replay(args: argparse.Namespace) -> int:
    case = read_case(Path(args.file))  # checked by replay_problem before the run began
    ids = args.impl or case_implementations(case)
    impls = _impls(ids, args.impl_file, args.operator_root)
    with (
        ControlPlane(tier=args.cluster) as cp,
        tempfile.TemporaryDirectory(prefix="modeldock-replay-") as tmp,
    ):
        world = World(
            Settings(cp, Path(args.keep or tmp), quiet=args.quiet, quiet_timeout=_timeout(args)),
            impls,
            progress=_say,
        )
        world.open()
        try:
            failure = replay(world, case["steps"])
        finally:
            world.close()
    if failure:
        for e in (failure, *failure.also):
            _say(f"FAILED [{e.impl}] {e.oracle}: {e.message}")
        return 1
    _say(f"{len(case['steps'])} steps on {', '.join(ids)}: every oracle held")
    return 0


def _owned(
    job: Callable[[argparse.Namespace], int],
    args: argparse.Namespace,
    problem: Callable[[argparse.Namespace], str | None],
) -> int:
    """Refuse what ``problem(args)`` finds (one line, exit 2) before anything starts; else own
    the run (``harness.runs``) and return ``job(args)``: 2 when a build fails (its output),
    130 after Ctrl-C, 143 after SIGTERM."""
    said = problem(args)
    if said:
        _say(said)
        return exitcodes.BAD_ARGUMENT
    runs.own(_say)
    try:
        return job(args)
    except ImplementationError as exc:  # a build failed: its output, not a traceback
        _say(str(exc))
        return exitcodes.BAD_ARGUMENT
    except KeyboardInterrupt as exc:
        _say("interrupted")
        return exitcodes.for_interrupt(exc)


def main(argv: list[str] | None = None) -> int:
    """``python -m harness generate``: parse, check the arguments, own the run, generate; exit
    0, 1, 2 (bad arguments), 3 (flaky), 130, 143."""
    return _owned(run_generate, build_parser().parse_args(argv), generate_problem)


def replay_main(argv: list[str] | None = None) -> int:
    """``python -m harness replay FILE``: parse, check the case file and the implementations,
    own the run, replay; exit 0, 1, 2 (bad arguments or case file), 130, 143."""
    return _owned(run_replay, replay_parser().parse_args(argv), replay_problem)
