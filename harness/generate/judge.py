"""The generator judged against mutants (``python -m harness generate-judge``, ``make
generate-mutants``), and the shipped case files replayed as a regression step
(``python -m harness generate-cases``, part of ``make generate-ci``).

``generate-judge`` runs ``python -m harness generate`` once per target, each a process with a
control plane of its own (ready in seconds), the same fixed seed, sequences and steps for
every target, so that each mutant meets the same drawn sequences until one fails. A target is
one lane of a mutant beside one lane of the reference of its language (``python`` or ``go``),
so the differential oracle compares the two; the mutant is *killed* when an oracle failed for
its lane. The targets (``targets``):

- ``exploration``: the hand-made mutants of harness/mutants/mutants.toml declared with
  ``explore`` (the exploration-only ones, and those a check catches now but only exploration
  did once: status-after-writes, remembers-status, blind-create);
- ``gap`` and ``dead-code``: the tool mutants of harness/mutants/survivors.toml so classified
  (they survive the suite);
- ``control``: the first ``--controls`` mutants classified ``equivalent`` there, per language
  in file order: an oracle that kills one of them is unsound (or the mutant is not
  equivalent), and the run says so (exit 1).

A tool mutant is built as ``python -m harness mutation-score`` builds it
(``harness.mutscore.score.prepare``: a copy of python_operator/ with the one file mutated, or
``go build -overlay``) and declared to ``generate`` in an implementations file
(``score.implementations_toml``).

``reports/generated-mutants.json``: the run's settings and one row per target (``Row``);
``--update`` keeps the rows of an earlier run for the targets not run this time.
``reports/generated-mutants/<target>/``: each run's generated.json, its log and its shrunk
case files.

A target the drawn sequences do not kill is judged by the shipped case files that name it
(``shipped_cases``, e.g. ``cases/step-annotation-skipped-rollout.yaml``): replayed beside the
reference, a failure is a kill by ``shipped case``.

``generate-cases`` replays every case file of harness/generate/cases/ that says ``ci: true``
(it holds on today's operators: a finding since fixed, or a hand-written case) on go and
python, one sequence each, on one control plane and one set of lanes; exit 1 naming the case
and the oracle when one fails again.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness import exitcodes, runs, say
from harness.paths import REPO_ROOT, REPORTS_DIR

_say = say.to("generate-judge")
_say_cases = say.to("generate-cases")

#: The fixed sample ``make generate-mutants`` draws for every target: the seed, the sequences
#: and their steps, and the seconds of shrinking after a target's first failure.
SEED, SEQUENCES, STEPS, SHRINK_SECONDS = 20261206, 6, 12, 90.0

#: Where the shipped case files are; ``generate-cases`` replays those marked ``ci: true``.
CASES_DIR = Path(__file__).parent / "cases"

GROUPS = ("exploration", "gap", "dead-code", "control")


@dataclass(frozen=True)
class Target:
    """One mutant to judge: ``id`` (a mutants.toml name, or a tool mutant's stable id),
    ``group`` (one of ``GROUPS``), ``reference`` (``python`` or ``go``, the lane beside it),
    ``note`` (its title, or survivors.toml's reason)."""

    id: str
    group: str
    reference: str
    note: str


@dataclass
class Row:
    """One target's verdict: ``killed`` (an oracle failed for the mutant's lane), ``oracle``
    and ``message`` (the shrunk case's, or the first of the mutant's oracles), ``case_steps``
    (steps of the shrunk case), ``steps_to_kill`` (steps drawn up to the end of the first
    failing sequence, shrinking not counted; None when not killed or not read), ``steps`` and
    ``sequences`` (run on the mutant's lane, shrinking tries included), ``seconds`` (wall
    time of its run), ``case`` (path), ``reference_failures`` (oracle failures of the
    reference lane: a killed verdict is not the mutant's alone then), ``error`` (the run
    could not judge: its last line), ``replayed`` and ``flaky`` (below)."""

    id: str
    group: str
    reference: str
    note: str
    impl: str = ""
    killed: bool = False
    oracle: str | None = None
    message: str | None = None
    case_steps: int | None = None
    steps_to_kill: int | None = None
    steps: int = 0
    sequences: int = 0
    seconds: float = 0.0
    case: str | None = None
    reference_failures: int = 0
    #: the shrunk case replayed (``replay --impl <reference> --impl <mutant>``): "fails"
    #: (the kill stands), "holds" (the failure was not the mutant's: not a kill), or None
    replayed: str | None = None
    #: sequences that failed once and passed when hypothesis ran them again
    flaky: int = 0
    #: what killed it: "draws" (a generated sequence) or "shipped case" (a case file that
    #: names it, replayed when the draws did not kill it); None when not killed
    by: str | None = None
    error: str | None = None


# --------------------------------------------------------------------------- targets
def exploration_targets() -> list[Target]:
    """The mutants of mutants.toml declared with ``explore``, in file order."""
    from harness.mutants import declared

    return [
        Target(name, "exploration", "go" if name.endswith("-go") else "python", t["title"])
        for name, t in declared().items()
        if "explore" in t
    ]


def tool_mutants(lang: str) -> list[Any]:
    """The tool mutants (``generate.ToolMutant``) of ``lang`` (``python`` or ``go``) that
    ``python -m harness mutation-score`` generates now: cosmic-ray's selected list or
    gremlins' list, both cached in ``~/.cache/modeldock/mutscore/`` by a hash of the sources.
    Raises ValueError when the tool's list cannot be made."""
    from harness.mutscore import generate
    from harness.mutscore.selection import python_selected
    from harness.paths import cache_root

    listings = cache_root() / "mutscore"
    listings.mkdir(parents=True, exist_ok=True)
    try:
        found = (
            python_selected(generate.python_listing(listings)) if lang == "python"
            else generate.go_mutants(generate.gremlins_listing(listings))
        )  # fmt: skip
    except generate.GenerationError as exc:
        raise ValueError(f"{lang} tool mutants: {exc}") from exc
    return list(found)


def tool_ids(lang: str) -> set[str]:
    """The stable ids of ``tool_mutants(lang)``. Raises ValueError as it does."""
    return {m.id for m in tool_mutants(lang)}


def survivor_targets(
    controls: int, generated: Callable[[str], set[str]] = tool_ids
) -> list[Target]:
    """survivors.toml's per-id entries of kind gap and dead-code, in file order, then
    ``controls`` equivalent ones of each language, those in the reconciler's file
    (controller.go, controller.py) first: a control the generated steps never execute tells
    nothing. A control is chosen only among the ids ``generated(lang)`` returns (the tool's
    list of today: an id survivors.toml still names but no tool makes any more would be an
    error, not a verdict). Raises ValueError naming the language and the fix when none of its
    equivalent entries is generated now."""
    from harness.mutscore.survivors import load_survivors

    entries = load_survivors().mutants.items()
    out = [Target(i, e["kind"], i.split(":", 1)[0], e["reason"]) for i, e in entries
           if e["kind"] != "equivalent"]  # fmt: skip
    equivalent = [(i, e) for i, e in entries if e["kind"] == "equivalent"]
    equivalent.sort(key=lambda ie: ie[0].split(":")[1].rsplit("/", 1)[-1] != "controller.go"
                    and ie[0].split(":")[1] != "python_operator/controller.py")  # fmt: skip
    for lang in ("go", "python") if controls else ():
        now = generated(lang)
        mine = [(i, e) for i, e in equivalent if i.startswith(lang + ":") and i in now]
        if not mine:
            raise ValueError(
                f"--controls {controls}: no {lang} entry of kind equivalent in "
                "harness/mutants/survivors.toml is generated by its tool now; classify one "
                f"(python -m harness mutation-score --lang {lang} --list) or give --controls 0"
            )
        out += [Target(i, "control", lang, e["reason"]) for i, e in mine[:controls]]
    return out


def targets(controls: int = 1, generated: Callable[[str], set[str]] = tool_ids) -> list[Target]:
    """Every target (module docstring): exploration mutants, then survivors and controls
    (``survivor_targets``)."""
    return [*exploration_targets(), *survivor_targets(controls, generated)]


def wants_controls(names: Sequence[str]) -> bool:
    """Whether a ``--mutant`` selection (``names``; all targets when empty) may include a
    control: all targets, the ``control`` group or a tool mutant's id (``python:...``,
    ``go:...``). Only then are the tools' lists made to choose the controls from."""
    return not names or any(n == "control" or n.startswith(("python:", "go:")) for n in names)


def select(all_targets: Sequence[Target], names: Sequence[str]) -> list[Target]:
    """The targets named (a mutant's name or stable id, or a group), all when none; raises
    ValueError naming the unknown ones and what is known."""
    if not names:
        return list(all_targets)
    known = {t.id for t in all_targets} | set(GROUPS)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(
            f"--mutant {', '.join(unknown)}: not a target; give a group ({', '.join(GROUPS)}), "
            "a mutants.toml name with explore, or a survivors.toml id (--list prints them)"
        )
    return [t for t in all_targets if t.id in names or t.group in names]


# --------------------------------------------------------------------------- one run
def _tool_impl(t: Target, folder: Path) -> tuple[str, list[str]]:
    """A tool mutant built (``score.prepare``) and declared in ``folder/impl.toml``: its
    implementation id and the ``--impl-file`` arguments. Raises ValueError when no tool
    generates the id any more or its build fails."""
    from harness.mutscore import score

    found = tool_mutants(t.reference)
    m = next((m for m in found if m.id == t.id), None)
    if m is None:
        raise ValueError(f"{t.id}: no tool generates it any more; update survivors.toml")
    problem = score.prepare(m)
    if problem:
        raise ValueError(f"{t.id}: {problem}")
    (folder / "impl.toml").write_text(score.implementations_toml([m]))
    return m.impl_id, ["--impl-file", str(folder / "impl.toml")]


def generate_argv(
    impl: str, reference: str, extra: list[str], args: argparse.Namespace, folder: Path
) -> list[str]:
    """The ``python -m harness generate`` command line of one target's run."""
    return [
        sys.executable, "-m", "harness", "generate", "--impl", reference, "--impl", impl,
        *extra, "--seed", str(args.seed), "--sequences", str(args.sequences),
        "--steps", str(args.steps), "--shrink-seconds", str(args.shrink_seconds),
        "--reports", str(folder),
    ]  # fmt: skip


_SEQUENCE = re.compile(r"sequence \[([^\]]*)\]: (ok|FAIL)")


def steps_to_kill(log: str) -> int | None:
    """Steps drawn up to the end of the first failing sequence, from ``generate``'s progress
    lines (``sequence [create quiet ...]: ok|FAIL ...``); None when no sequence failed."""
    total = 0
    for m in _SEQUENCE.finditer(log):
        total += len(m.group(1).split())
        if m.group(2) == "FAIL":
            return total
    return None


def verdict(row: Row, data: dict[str, Any], log: str) -> Row:
    """``row`` filled from the run's generated.json (``data``) and its output (``log``)."""
    impls = data.get("implementations") or {}
    mine, ref = impls.get(row.impl) or {}, impls.get(row.reference) or {}
    row.steps, row.sequences = int(mine.get("steps") or 0), int(mine.get("sequences") or 0)
    row.reference_failures = int(ref.get("failures") or 0)
    row.flaky = int(data.get("flaky") or 0)
    row.killed = int(mine.get("failures") or 0) > 0
    if not row.killed:
        return row
    row.by = "draws"
    f = data.get("failure") or {}
    ours = f.get("implementation") == row.impl
    oracles = mine.get("oracles") or {}
    row.oracle = f.get("oracle") if ours else (sorted(oracles)[0] if oracles else None)
    row.message = str(f.get("message") or "")[:400] if ours else None
    row.case_steps, row.case = f.get("steps"), f.get("case")
    row.steps_to_kill = steps_to_kill(log)
    return row


def shipped_cases(target: str, folder: Path = CASES_DIR) -> list[Path]:
    """The case files of ``folder`` that name ``target`` among their implementations: written
    (or found) for it, replayed when the drawn sequences did not kill it."""
    import yaml

    from harness.generate.machine import case_implementations

    return [
        f for f in sorted(folder.glob("*.yaml"))
        if target in case_implementations(yaml.safe_load(f.read_text()) or {})
    ]  # fmt: skip


def read_failure(log: Path) -> str | None:
    """The first ``FAILED [impl] oracle: message`` line of a replay's output, or None."""
    text = log.read_text() if log.exists() else ""
    found = re.search(r"FAILED (\[.*)", text)
    return found.group(1)[:400] if found else None


def replay_oracle(failure: str | None, impl: str) -> str | None:
    """The oracle of a ``read_failure`` line (``[impl] oracle: message``) when it is
    ``impl``'s, else None."""
    found = re.match(r"\[([^\]]+)\] ([\w-]+):", failure or "")
    return found.group(2) if found and found.group(1) == impl else None


def replay_case(row: Row, extra: list[str], folder: Path, case: Path | None = None) -> str:
    """Replay ``case`` (default: the row's shrunk case) on the row's reference and mutant:
    "fails" (exit 1), "holds" (exit 0: a shrunk case's failure does not come back, so it is
    not counted as a kill), or "error <code>"; the output goes to ``folder/replay.log``."""
    case = case or Path(str(row.case))
    argv = [sys.executable, "-m", "harness", "replay", str(case), "--impl", row.reference]
    argv += ["--impl", row.impl, *extra]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=REPO_ROOT)
    (folder / "replay.log").write_text(proc.stdout + proc.stderr)
    return {0: "holds", 1: "fails"}.get(proc.returncode, f"error {proc.returncode}")


def judge_one(t: Target, args: argparse.Namespace, reports: Path) -> Row:
    """Run ``generate`` on ``t`` beside its reference; its ``Row``."""
    folder = reports / "generated-mutants" / re.sub(r"[^A-Za-z0-9._-]+", "_", t.id)[-80:]
    folder.mkdir(parents=True, exist_ok=True)
    row = Row(t.id, t.group, t.reference, t.note, impl=t.id)
    started = time.monotonic()
    try:
        extra: list[str] = []
        if t.group in ("gap", "dead-code", "control"):
            row.impl, extra = _tool_impl(t, folder)
        argv = generate_argv(row.impl, t.reference, extra, args, folder)
        _say(f"{t.id}: {' '.join(argv[3:])}")
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=REPO_ROOT)
        log = proc.stdout + proc.stderr
        (folder / "generate.log").write_text(log)
        if proc.returncode not in (0, 1) or not (folder / "generated.json").exists():
            row.error = (
                f"generate exit {proc.returncode}: " + (log.strip().splitlines() or [""])[-1]
            )
        else:
            verdict(row, json.loads((folder / "generated.json").read_text()), log)
        if row.killed and row.case:
            row.replayed = replay_case(row, extra, folder)
            row.killed = row.replayed == "fails"
            row.by = "draws" if row.killed else None
            if row.killed:  # the replay's failure is the one that stands
                row.message = read_failure(folder / "replay.log") or row.message
                row.oracle = replay_oracle(row.message, row.impl) or row.oracle
            else:  # the run's failure did not come back: nothing of it is a verdict
                row.oracle = row.message = row.case_steps = row.steps_to_kill = None
        for case in [] if row.killed or row.error else shipped_cases(t.id):
            if replay_case(row, extra, folder, case) == "fails":
                row.killed, row.case, row.by, row.replayed = (
                    True,
                    str(case),
                    "shipped case",
                    "fails",
                )
                row.message = read_failure(folder / "replay.log")
                row.oracle = replay_oracle(row.message, row.impl)
                from harness.generate.machine import read_case

                row.case_steps, row.steps_to_kill = len(read_case(case)["steps"]), None
                break
    except ValueError as exc:
        row.error = str(exc)
    row.seconds = round(time.monotonic() - started, 1)
    said = f"killed by {row.oracle} ({row.case_steps}-step case)" if row.killed else "survived"
    said += f", shrunk case on replay: {row.replayed}" if row.replayed else ""
    _say(f"{t.id}: {row.error or said} in {row.seconds:.0f}s")
    return row


def line(row: Row) -> str:
    """One Markdown table row of a verdict."""
    kill = f"yes ({row.by})" if row.killed else ("error" if row.error else "no")
    return (
        f"| {row.id} | {row.group} | {kill} | {row.oracle or '-'} | {row.steps_to_kill or '-'} "
        f"| {row.case_steps or '-'} | {row.seconds:.0f} |"
    )


def run_judge(args: argparse.Namespace, chosen: Iterable[Target]) -> int:
    """Judge ``chosen`` (``--jobs`` at a time), write reports/generated-mutants.json; exit 0,
    1 when a control was killed, 3 when a target could not be judged."""
    reports = Path(args.reports)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(lambda t: judge_one(t, args, reports), chosen))
    if args.update and (reports / "generated-mutants.json").exists():
        earlier = json.loads((reports / "generated-mutants.json").read_text())
        mine = {r.id for r in rows}
        kept = [Row(**t) for t in earlier.get("targets") or [] if t.get("id") not in mine]
        rows = kept + rows
    data = {
        "seed": args.seed,
        "sequences": args.sequences,
        "max_steps": args.steps,
        "shrink_seconds": args.shrink_seconds,
        "seconds": round(time.monotonic() - started, 1),
        "targets": [asdict(r) for r in rows],
    }
    runs.write_text_atomic(reports / "generated-mutants.json", json.dumps(data, indent=1) + "\n")
    print("| mutant | group | killed (by) | oracle | steps to kill | case steps | seconds |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(line(r))
    killed = sum(r.killed for r in rows if r.group != "control")
    _say(
        f"{killed} of {sum(r.group != 'control' for r in rows)} killed; wrote "
        f"{reports / 'generated-mutants.json'} in {data['seconds']:.0f}s"
    )
    if any(r.killed for r in rows if r.group == "control"):
        _say("an equivalent control mutant was killed: an oracle is unsound, or it is no control")
        return 1
    return 3 if any(r.error for r in rows) else 0


def judge_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m harness generate-judge",
        description="Generated workloads against the mutants the suite misses: each mutant of "
        "mutants.toml declared with explore and each non-equivalent survivor of "
        "survivors.toml (plus equivalent controls), beside its language's reference, the "
        "same seed for all; writes reports/generated-mutants.json.",
    )
    p.add_argument(
        "--mutant", action="append", default=[],
        help=f"a target's name or id, or a group ({', '.join(GROUPS)}); repeatable; default all",
    )  # fmt: skip
    p.add_argument("--controls", type=int, default=1, help="equivalent controls per language")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--sequences", type=int, default=SEQUENCES)
    p.add_argument("--steps", type=int, default=STEPS)
    p.add_argument("--shrink-seconds", type=float, default=SHRINK_SECONDS)
    p.add_argument("--jobs", type=int, default=1, help="targets at a time (default 1)")
    p.add_argument("--reports", default=str(REPORTS_DIR))
    p.add_argument(
        "--update",
        action="store_true",
        help="keep the rows of the existing generated-mutants.json for the targets not run now",
    )
    p.add_argument("--list", action="store_true", help="print the targets, run nothing")
    return p


def judge_problem(args: argparse.Namespace) -> str | None:
    """A bad number, in one line naming the option and the fix; None when it can start."""
    for option, value, least in (
        ("--controls", args.controls, 0), ("--sequences", args.sequences, 1),
        ("--steps", args.steps, 1), ("--jobs", args.jobs, 1),
        ("--shrink-seconds", args.shrink_seconds, 0),
    ):  # fmt: skip
        if value < least:
            return f"{option} {value}: give a number of at least {least}"
    return None


def main(argv: list[str] | None = None) -> int:
    """``python -m harness generate-judge``: exit 0, 1 (a control killed), 2 (bad arguments),
    3 (a target not judged), 130, 143."""
    args = judge_parser().parse_args(argv)
    said = judge_problem(args)
    try:
        controls = args.controls if wants_controls(args.mutant) else 0
        chosen = select(targets(controls), args.mutant) if not said else []
    except ValueError as exc:
        said = str(exc)
    if said:
        _say(said)
        return exitcodes.BAD_ARGUMENT
    if args.list:
        for t in chosen:
            print(f"{t.group:12} {t.reference:7} {t.id}")
        return 0
    runs.own(_say)
    try:
        return run_judge(args, chosen)
    except KeyboardInterrupt as exc:
        _say("interrupted")
        return exitcodes.for_interrupt(exc)


# --------------------------------------------------------------------------- generate-cases
def ci_cases(folder: Path = CASES_DIR) -> list[Path]:
    """The case files of ``folder`` that say ``ci: true``, sorted by name."""
    import yaml

    return [
        f for f in sorted(folder.glob("*.yaml")) if (yaml.safe_load(f.read_text()) or {}).get("ci")
    ]


def run_cases(files: Sequence[Path], impls: Sequence[str]) -> int:
    """Replay ``files`` on ``impls``, one World on one control plane; exit 1 when an oracle
    fails for one (each failure said, naming the case), else 0."""
    from harness.envtest.controlplane import ControlPlane
    from harness.generate.cli import QUIET_TIMEOUT, _impls
    from harness.generate.lane import Settings
    from harness.generate.machine import World, read_case, replay

    cases = [(f, read_case(f)) for f in files]
    chosen = _impls(list(impls), [])
    failed = 0
    started = time.monotonic()
    with ControlPlane() as cp, tempfile.TemporaryDirectory(prefix="modeldock-cases-") as tmp:
        world = World(
            Settings(cp, Path(tmp), quiet_timeout=QUIET_TIMEOUT["envtest"]),
            chosen,
            progress=_say_cases,
        )
        world.open()
        try:
            for f, case in cases:
                failure = replay(world, case["steps"])
                for e in (failure, *failure.also) if failure else ():
                    _say_cases(f"FAILED {f.name} [{e.impl}] {e.oracle}: {e.message}")
                failed += failure is not None
        finally:
            world.close()
    _say_cases(
        f"{len(cases) - failed} of {len(cases)} shipped cases held on {', '.join(impls)} "
        f"in {time.monotonic() - started:.0f}s"
    )
    return 1 if failed else 0


def cases_main(argv: list[str] | None = None) -> int:
    """``python -m harness generate-cases [FILE ...] [--impl ID]``: the ``ci: true`` case
    files (or those given) replayed on go and python (or ``--impl``); exit 0, 1 (an oracle
    failed), 2 (a case file or an implementation that cannot run), 130, 143."""
    p = argparse.ArgumentParser(
        prog="python -m harness generate-cases",
        description="Replay the shipped case files marked ci: true (harness/generate/cases/) "
        "on go and python in one control plane; exit 1 if an oracle fails again.",
    )
    p.add_argument("files", nargs="*", help="case files (default: the ci: true ones)")
    p.add_argument("--impl", action="append", help="implementation id (default go, python)")
    args = p.parse_args(argv)
    from harness.generate.cli import impls_problem
    from harness.generate.machine import CaseError, read_case
    from harness.operators import ImplementationError

    files = [Path(f) for f in args.files] or ci_cases()
    impls = args.impl or ["go", "python"]
    try:
        for f in files:
            read_case(f)
    except CaseError as exc:
        _say_cases(str(exc))
        return exitcodes.BAD_ARGUMENT
    said = impls_problem(impls, [], None) or (
        "" if files else f"no case in {CASES_DIR} says ci: true"
    )
    if said:
        _say_cases(said)
        return exitcodes.BAD_ARGUMENT
    runs.own(_say_cases)
    try:
        return run_cases(files, impls)
    except ImplementationError as exc:
        _say_cases(str(exc))
        return exitcodes.BAD_ARGUMENT
    except KeyboardInterrupt as exc:
        _say_cases("interrupted")
        return exitcodes.for_interrupt(exc)
