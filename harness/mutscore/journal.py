"""The verdict journal of a mutation-score run (``<reports>/verdicts.jsonl``).

A full run judges hundreds of mutants for one to two hours on a shared machine; a run stopped
part way (the machine rebooted, a session's end, a Ctrl-C) used to lose every verdict, because
the report is written once, at the end. The journal keeps them: one JSON object per line,
appended and flushed as soon as a mutant's verdict is reached::

    {"id": "<stable id>", "key": "<judging key>", "result": {"status": "killed", ...}}

``python -m harness mutation-score --resume`` reads it back and judges only the mutants
without a verdict. A verdict is taken only when its ``key`` is the key of the run resuming it
(``judging_key``): the same operator sources, the same judging checks and their files, the
same ``--max-checks`` and first-kill setting. Change any of them and every mutant is judged
again: a verdict of other code, or of other checks, is no verdict of this one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.mutscore import cover


def judging_key(lang: str, checks: Sequence[str], max_checks: int, first_kill: bool) -> str:
    """The key a verdict of ``lang`` is recorded under: ``cover.coverage_key`` (the operator's
    sources, the judging checks and their test files, how coverage is taken) plus the
    per-mutant check budget and the first-kill setting, e.g. ``"3f2a...e1/max8/first"``."""
    how = "first" if first_kill else "together"
    return f"{cover.coverage_key(lang, checks)}/max{max_checks}/{how}"


class Journal:
    """Append-only verdicts of one run, safe to call from the judging threads.

    ``path``: the JSON-lines file; ``keys``: lang -> ``judging_key`` of this run. A mutant's
    lang is the part of its id before the first ``:`` (``go:...``, ``python:...``)."""

    def __init__(self, path: Path, keys: Mapping[str, str]) -> None:
        self.path = path
        self.keys = dict(keys)
        self._lock = threading.Lock()

    def start(self, resume: bool) -> dict[str, dict[str, Any]]:
        """Begin the run: with ``resume``, return the verdicts already journaled under this
        run's keys (id -> result; a later line wins) and keep the file; without, empty the
        file and return {}. A line that is not JSON (a run killed mid-write) is skipped."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not resume:
            self.path.write_text("")
            return {}
        done: dict[str, dict[str, Any]] = {}
        if not self.path.exists():
            return done
        for line in self.path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            mutant_id = str(entry.get("id", ""))
            if entry.get("key") == self.keys.get(mutant_id.split(":", 1)[0]):
                done[mutant_id] = dict(entry["result"])
        return done

    def record(self, mutant_id: str, result: Mapping[str, Any]) -> None:
        """Append one verdict and flush it to disk before returning."""
        line = json.dumps(
            {
                "id": mutant_id,
                "key": self.keys.get(mutant_id.split(":", 1)[0], ""),
                "result": result,
            }
        )
        with self._lock, self.path.open("a") as f:
            f.write(line + "\n")
            f.flush()
