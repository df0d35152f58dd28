"""The fixed sample of tool mutants make test judges (``SAMPLE_FILE``, harness/mutscore/sample.toml): read, checked against the tools' lists, refreshed; and the command line's numbers and ids checked before anything runs (exit 2)."""

from __future__ import annotations

import argparse
import json
import random
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from harness import runs
from harness.mutscore.generate import ToolMutant
from harness.paths import REPO_ROOT

#: The fixed, reviewed sample ``make mutation-score-sample`` (make test) judges: stable ids per
#: language (``--sample-file``), so an operator change elsewhere does not move it.
SAMPLE_FILE = REPO_ROOT / "harness" / "mutscore" / "sample.toml"


class SampleError(ValueError):
    """A fixed sample file that cannot be used; the message names the file, the ids and the
    fix."""


def load_sample(path: Path) -> dict[str, list[str]]:
    """A fixed sample file (``SAMPLE_FILE``'s shape): language -> its ``ids``, in the file's
    order. Raises SampleError for a missing file or a table without ``ids``."""
    if not path.exists():
        raise SampleError(f"{path}: no such sample file (make one with --refresh-sample)")
    data = tomllib.loads(path.read_text())
    out: dict[str, list[str]] = {}
    for lang, table in data.items():
        ids = table.get("ids") if isinstance(table, dict) else None
        if lang not in ("go", "python") or not isinstance(ids, list):
            raise SampleError(f"{path}: [{lang}] must be [go] or [python] with ids = [...]")
        out[lang] = [str(i) for i in ids]
    return out


def fixed_sample(
    everything: Mapping[str, Sequence[ToolMutant]],
    sample: Mapping[str, Sequence[str]],
    path: Path,
) -> list[ToolMutant]:
    """The mutants the fixed ``sample`` (``load_sample`` of ``path``) names, for the languages
    of ``everything`` (the tools' lists now). Raises SampleError naming every id no tool
    generates any more (its line was edited or removed) and the command that replaces them."""
    by_id = {m.id: m for ms in everything.values() for m in ms}
    wanted = [i for lang in everything for i in sample.get(lang, [])]
    gone = [i for i in wanted if i not in by_id]
    if gone:
        raise SampleError(
            f"{path}: {len(gone)} sampled mutant(s) no longer generated (their line changed "
            "or went): " + ", ".join(gone) + ". Fix: `python -m harness mutation-score "
            f"--sample-file {_shown(path)} --refresh-sample` replaces them with seeded draws "
            "from the same functions; review the diff, run `make mutation-score-sample`, commit"
        )
    return [by_id[i] for i in wanted]


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def refresh_sample(
    everything: Mapping[str, Sequence[ToolMutant]],
    sample: Mapping[str, Sequence[str]],
    seed: int,
) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """``sample`` with each id no tool generates any more replaced by a mutant drawn with
    ``random.Random(seed)``: from the same file and function when it still has mutants not
    in the sample, else from the whole language. Returns the new sample and the (old, new)
    replacements; ids still generated stay, in their order."""
    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    replaced: list[tuple[str, str]] = []
    for lang, ids in sample.items():
        pool = sorted(everything.get(lang, ()), key=lambda m: m.id)
        known = {m.id for m in pool}
        kept = [i for i in ids if i in known]
        new: list[str] = []
        for i in ids:
            if i in known:
                new.append(i)
                continue
            parts = i.split(":")
            file, function = (parts[1], parts[2]) if len(parts) > 3 else ("", "")
            taken = set(kept) | set(new)
            same = [m.id for m in pool if (m.file, m.function) == (file, function)]
            choices = [x for x in same if x not in taken] or [
                m.id for m in pool if m.id not in taken
            ]
            if choices:
                pick = rng.choice(choices)
                new.append(pick)
                replaced.append((i, pick))
        out[lang] = new
    return out, replaced


def write_sample(path: Path, sample: Mapping[str, Sequence[str]]) -> None:
    """Write ``sample`` to ``path`` in ``SAMPLE_FILE``'s shape, keeping the file's leading
    comment block (its review notes) when it has one."""
    head = []
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            head.append(line)
    body = [*head, ""] if head else []
    for lang in ("go", "python"):
        if lang in sample:
            body += [f"[{lang}]", "ids = ["]
            body += [f"    {json.dumps(i)}," for i in sample[lang]]
            body += ["]", ""]
    runs.write_text_atomic(path, "\n".join(body))


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
    if args.sample == 0 and not args.mutant:
        return (
            "--sample 0: draws no mutant, so it judges only the --mutant ids; give --mutant ID "
            "or a --sample of at least 1"
        )
    for option, value in (
        ("--max-checks", args.max_checks),
        ("--jobs", args.jobs),
        ("--workers", args.workers),
    ):
        if value < 1:
            return f"{option} {value}: give a number of at least 1"
    return None
