"""Case files of generated workloads as ``replay`` reads them: ``read_case`` checks one whole
(``CaseError``, one line naming the file and the fix) before a control plane starts;
``case_implementations`` names the implementations it runs on. ``write_case`` writes
them, and ``save_case`` (its smallest failing sequence) and ``save_other_cases`` (the
smallest of each other oracle's) write a run's."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Protocol

import yaml

from harness.generate.lane import OracleFailure
from harness.generate.world import step_problem
from harness.operators import Implementation


class CaseError(ValueError):
    """A case file ``replay`` cannot run; the message names the file, what is wrong and the
    fix, in one line."""


#: A case file to copy from, named in ``read_case``'s messages.
EXAMPLE_CASE = "harness/generate/cases/clobbers-foreign-sidecar.yaml"


def read_case(path: Path) -> dict[str, Any]:
    """The case file at ``path`` (``write_case``'s format), checked whole so that replay can
    refuse it before anything starts: a YAML mapping whose ``implementation`` is an id (or
    ``implementations`` a list of ids) when present, and whose ``steps`` are a non-empty list
    of steps ``step_problem`` accepts. Raises CaseError."""

    def bad(what: str) -> CaseError:
        return CaseError(f"{path}: {what}")

    if path.is_dir():
        raise bad("is a folder; give one case file, e.g. reports/generated/<id>.yaml")
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise bad(
            "no such file; give a case file of generate, e.g. reports/generated/<id>.yaml"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise bad(f"cannot be read ({exc}); give a case file of generate") from exc
    try:
        case = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise bad(f"not YAML ({where}{what}); fix it or draw it again") from exc
    shape = f"a YAML mapping with implementation and steps, like {EXAMPLE_CASE}"
    if case is None:
        raise bad(f"is empty; a case file is {shape}")
    if not isinstance(case, dict) or not case:
        raise bad(f"not a case file; a case file is {shape}")
    impl, impls = case.get("implementation"), case.get("implementations")
    if impl is not None and not isinstance(impl, str):
        raise bad(f"implementation {impl!r} is not an implementation id (e.g. go)")
    if impls is not None and not (
        isinstance(impls, list) and all(isinstance(i, str) for i in impls)
    ):
        raise bad(f"implementations {impls!r} is not a list of implementation ids (e.g. [go])")
    steps = case.get("steps")
    if not isinstance(steps, list) or not steps:
        raise bad(f"no steps; a case file lists them under steps:, like {EXAMPLE_CASE}")
    for n, step in enumerate(steps, 1):
        problem = step_problem(step)
        if problem:
            raise bad(f"step {n}: {problem}")
    return case


def case_implementations(case: dict[str, Any]) -> list[str]:
    """The implementations a case file (``read_case``) runs on: its ``implementations``, else
    its ``implementation``; empty when it names none."""
    return list(
        case.get("implementations")
        or ([case["implementation"]] if case.get("implementation") else [])
    )


class Failures(Protocol):
    """What the writers below read of a run (``machine.World``): the failing sequences'
    traces and failures in the order hypothesis ran them, and the implementations run."""

    failing: list[tuple[list[dict[str, Any]], OracleFailure]]
    impls: list[Implementation]


def smallest_failure(world: Failures) -> tuple[list[dict[str, Any]], OracleFailure] | None:
    """The smallest failing sequence of the run (``world.failing``) and its failure (of
    equal ones the last hypothesis ran), the one ``save_case`` writes; None when nothing
    failed."""
    failing = world.failing
    if not failing:
        return None
    return min(failing, key=lambda f: (len(f[0]), failing.index(f) * -1))


def case_id(trace: list[dict[str, Any]], impl: str) -> str:
    """A stable id for a failing sequence: the implementation and a hash of its steps."""
    digest = hashlib.sha256(yaml.safe_dump(trace, sort_keys=True).encode()).hexdigest()[:10]
    return f"{impl}-{digest}"


def save_case(folder: Path, world: Failures, seed_value: int) -> Path | None:
    """Write the smallest failing sequence (the last one hypothesis ran) as
    ``<folder>/<id>.yaml`` (``write_case``). None when nothing failed."""
    smallest = smallest_failure(world)
    if smallest is None:
        return None
    return write_case(folder, world, seed_value, *smallest)


def save_other_cases(folder: Path, world: Failures, seed_value: int) -> list[Path]:
    """Besides ``save_case``'s: for every other oracle that failed first in some sequence,
    the smallest such sequence, written the same way. Hypothesis shrinks towards the smallest
    failing sequence of any kind, so a second kind found on the way (a 3-step stalled
    rollout while a 1-step refused create is the smallest) would otherwise be lost."""
    if not world.failing:
        return []
    best = smallest_failure(world)
    assert best is not None
    smallest: dict[str, tuple[list[dict[str, Any]], OracleFailure]] = {}
    for trace, exc in world.failing:
        if exc.oracle == best[1].oracle:
            continue
        if exc.oracle not in smallest or len(trace) < len(smallest[exc.oracle][0]):
            smallest[exc.oracle] = (trace, exc)
    return [write_case(folder, world, seed_value, t, e) for t, e in smallest.values()]


def write_case(
    folder: Path,
    world: Failures,
    seed_value: int,
    trace: list[dict[str, Any]],
    exc: OracleFailure,
) -> Path:
    """Write ``trace`` and its failure as ``<folder>/<id>.yaml``: ``steps``, ``seed``,
    ``implementation``, ``oracle``, ``message``, ``also`` (the other lanes' failures at the
    same point), ``tries`` (the failing sequences seen while shrinking)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{case_id(trace, exc.impl)}.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "implementation": exc.impl,
                "implementations": [i.id for i in world.impls],
                "seed": seed_value,
                "oracle": exc.oracle,
                "message": exc.message,
                "also": [
                    {"implementation": e.impl, "oracle": e.oracle, "message": e.message}
                    for e in exc.also
                ],
                "tries": len(world.failing),
                "steps": trace,
            },
            sort_keys=False,
            allow_unicode=True,
        )
    )
    return path
