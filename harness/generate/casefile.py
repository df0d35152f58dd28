"""Case files of generated workloads as ``replay`` reads them: ``read_case`` checks one whole
(``CaseError``, one line naming the file and the fix) before a control plane starts;
``case_implementations`` names the implementations it runs on. ``machine.write_case`` writes
them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.generate.world import step_problem


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
