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

``--incremental REPORT`` is the finer reuse, across runs: each verdict carries its
``mutant_key`` (what that one mutant's verdict rests on: its file, its checks and their files),
and a mutant whose key is the one it had in an earlier report keeps that report's verdict
(``reusable``). The idea is Stryker's incremental mode; its blind spot is the same and is said
in docs/mutation-score.md ("Incremental runs").
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.mutscore import cover
from harness.paths import REPO_ROOT


def judging_key(lang: str, checks: Sequence[str], max_checks: int, first_kill: bool) -> str:
    """The key a verdict of ``lang`` is recorded under: ``cover.coverage_key`` (the operator's
    sources, the judging checks and their test files, how coverage is taken) plus the
    per-mutant check budget and the first-kill setting, e.g. ``"3f2a...e1/max8/first"``."""
    how = "first" if first_kill else "together"
    return f"{cover.coverage_key(lang, checks)}/max{max_checks}/{how}"


#: the statuses a later run may take over: a verdict of the mutant's code and checks. Not
#: ``stillborn`` (a start that timed out on a loaded machine may start the next time) or
#: ``unjudged`` (no verdict at all).
REUSABLE = ("killed", "survived", "not viable")


def mutant_key(
    mutant_id: str, file: str, checks: Sequence[str], max_checks: int, first_kill: bool
) -> str:
    """16 hex digits naming what one mutant's verdict rests on: its stable id (which holds the
    file, function, operator and changed text), the text of its repository-relative ``file``
    now, the set of ``checks`` chosen for it (ids or ``id[case]``; not their order, which the
    prior kills change from one night to the next and which cannot turn a kill into a
    survival: a survivor ran them all, a kill needs one), the conformance files
    those checks execute (``cover.judging_files``: the support modules and the checks' own
    test files), ``cover.py`` and this module, and the ``max_checks`` and ``first_kill``
    settings. Raises OSError when ``file`` cannot be read."""
    digest = hashlib.sha256(
        f"{mutant_id}\0{','.join(sorted(checks))}\0max{max_checks}\0{first_kill}".encode()
    )
    digest.update((REPO_ROOT / file).read_bytes())
    for path in [Path(cover.__file__), Path(__file__), *cover.judging_files(checks)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def reusable(report: Mapping[str, Any], keys: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The verdicts of an earlier ``mutation-score.json`` (``report``, its ``mutants`` rows)
    that this run may keep: id -> the verdict's fields (status, killed_by, errors, seconds,
    ran, phases, mutant_key) plus ``"reused": True``, for each id of ``keys`` (id ->
    ``mutant_key`` now) whose row has the same ``mutant_key`` and a status of ``REUSABLE``.
    A row without a key (a report from before keys, or an assumed equivalent) is not
    reused."""
    out: dict[str, dict[str, Any]] = {}
    fields = ("status", "killed_by", "errors", "seconds", "ran", "phases", "problem")
    for mutant_id, row in (report.get("mutants") or {}).items():
        key = keys.get(mutant_id)
        if key is None or row.get("mutant_key") != key or row.get("status") not in REUSABLE:
            continue
        out[mutant_id] = {f: row[f] for f in fields if f in row}
        out[mutant_id].update(mutant_key=key, reused=True)
    return out


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
