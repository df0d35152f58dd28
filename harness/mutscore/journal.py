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
``mutant_key`` (what that one mutant's verdict rests on besides its checks: its file, the
suite's support modules) and the report the ``check_keys`` of its checks' test files; a
mutant whose key is the one it had in an earlier report keeps that report's verdict where its
checks are unchanged, and a survivor is judged again only by the checks that changed
(``reusable``). The idea is Stryker's incremental mode; its blind spot is the same and is
said in docs/mutation-score.md ("Incremental runs").
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.checks import base_check
from harness.mutscore import cover
from harness.paths import CONFORMANCE_DIR, REPO_ROOT


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


def _digest(parts: Sequence[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part + b"\0")
    return h.hexdigest()[:16]


#: What every verdict rests on besides the mutant's file and its checks (repository-relative
#: globs): the CRD and the role the control plane applies (an equivalent may rest on the
#: CRD's pattern), the operators' and the tools' module locks (the libraries and the
#: Kubernetes binaries), and the harness code that builds a mutant and says what a kill is
#: (the panic oracle and the plugin that wraps every check in it among it).
ENVIRONMENT = (
    "crds/*.yaml",
    "config/rbac/*.yaml",
    "go_reference/go.mod",
    "go_reference/go.sum",
    "uv.lock",
    "tools/**/go.sum",
    "harness/mutscore/score.py",
    "harness/mutscore/generate.py",
    "harness/mutscore/cover.py",
    "harness/mutants/runner.py",
    "harness/panics.py",
    "harness/plugin/*.py",
)


def environment_key(converge_timeout: str, kubernetes: str) -> str:
    """16 hex digits over the files of ``ENVIRONMENT``, the conformance support modules
    (every ``conformance/*.py`` that is not a ``test_*.py``: fixtures, premises, reactions run
    by every check), ``converge_timeout`` (the convergence bound a run sets, seconds as
    text: a timing kill depends on it) and ``kubernetes``, the version of the binaries the run
    judges on (``binaries.kubernetes_version``: ``K8S_VERSION`` picks one of several). Computed
    once per run."""
    parts = [converge_timeout.encode(), kubernetes.encode()]
    files = {p for g in ENVIRONMENT for p in REPO_ROOT.glob(g)}
    files |= {p for p in CONFORMANCE_DIR.glob("*.py") if not p.name.startswith("test_")}
    for path in sorted(files):
        parts += [str(path.relative_to(REPO_ROOT)).encode(), path.read_bytes()]
    return _digest(parts)


def mutant_key(
    mutant_id: str, file: str, max_checks: int, first_kill: bool, environment: str
) -> str:
    """16 hex digits naming what any verdict of one mutant rests on besides its checks: its
    stable id (file, function, operator, changed text), the text of its repository-relative
    ``file`` now, the ``max_checks`` and ``first_kill`` settings and ``environment``
    (``environment_key``). Raises OSError when ``file`` cannot be read."""
    head = f"{mutant_id}/max{max_checks}/{first_kill}/{environment}".encode()
    return _digest([head, (REPO_ROOT / file).read_bytes()])


def check_keys(checks: Sequence[str]) -> dict[str, str]:
    """check (id or ``id[case]``) -> 16 hex digits over the test files that mark its id
    (``cover.judging_files`` of it alone, without the support modules ``mutant_key`` holds):
    a check whose key is unchanged runs the same test code as before."""
    by_id: dict[str, str] = {}  # a check's cases share its id's files: read them once
    out = {}
    for c in checks:
        base = base_check(c)
        if base not in by_id:
            files = [p for p in cover.judging_files([base]) if p.name.startswith("test_")]
            by_id[base] = _digest([b for p in files for b in (p.name.encode(), p.read_bytes())])
        out[c] = by_id[base]
    return out


def reusable(
    report: Mapping[str, Any],
    keys: Mapping[str, str],
    checks_of: Mapping[str, Sequence[str]],
    checks_now: Mapping[str, str],
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """What an earlier ``mutation-score.json`` (``report``) spares this run, per mutant id of
    ``keys`` (id -> ``mutant_key`` now) whose row there has the same ``mutant_key`` and a
    ``REUSABLE`` status; ``checks_of``: id -> the checks chosen for it now; ``checks_now``:
    ``check_keys`` now, compared with the report's ``run.check_keys``. Returns (kept, delta):

    - kept: id -> the row's verdict (status, killed_by, errors, seconds, ran, phases,
      problem) plus ``mutant_key`` and ``"reused": True``: ``not viable`` (its file is the
      same); ``killed`` when a check that killed it is still chosen and unchanged; ``survived``
      when every check chosen now ran then, none errored and none changed;
    - delta: id -> the checks a survivor must still be judged by: those chosen now that did
      not run then or whose test files changed. The unchanged ones did not kill it then and
      run the same code against the same mutant now (flakiness aside).

    A killed mutant whose killer changed, a survivor some of whose checks errored, and every
    mutant not in either, is judged whole."""
    kept: dict[str, dict[str, Any]] = {}
    delta: dict[str, list[str]] = {}
    then = (report.get("run") or {}).get("check_keys") or {}
    fields = ("status", "killed_by", "errors", "seconds", "ran", "phases", "problem")

    def same(c: str) -> bool:
        return c in checks_now and then.get(c) == checks_now[c]

    for mutant_id, row in (report.get("mutants") or {}).items():
        key = keys.get(mutant_id)
        if key is None or row.get("mutant_key") != key or row.get("status") not in REUSABLE:
            continue
        chosen = list(checks_of.get(mutant_id) or ())
        verdict = {f: row[f] for f in fields if f in row}
        verdict.update(mutant_key=key, reused=True)
        if row["status"] == "killed":
            if any(c in chosen and same(c) for c in row.get("killed_by") or ()):
                kept[mutant_id] = verdict
        elif row["status"] == "not viable":
            kept[mutant_id] = verdict
        elif not row.get("errors"):  # a check that errored gave no verdict: judged whole
            ran = set(row.get("ran") or ())
            todo = [c for c in chosen if c not in ran or not same(c)]
            if todo:
                delta[mutant_id] = todo
            else:
                kept[mutant_id] = verdict
    return kept, delta


def incremental(
    path: str | None,
    full_every: float,
    keys: Mapping[str, str],
    checks_of: Mapping[str, Sequence[str]],
    checks_now: Mapping[str, str],
    now: float | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]], float, list[str]]:
    """``--incremental PATH``: (kept, delta) of ``reusable`` for the report at ``path``, the
    ``last_full_at`` this run's report records (epoch seconds when a run started: ``now``
    when it keeps nothing, else the earlier report's), and the lines to print. Nothing is kept
    when ``path`` is None or missing, is not a readable mutation-score.json, or its
    ``run.last_full_at`` (the start of the last run that judged every mutant) is unknown or
    at least ``full_every`` days less half a day before ``now``: what the keys cannot see (a
    change in another file) is judged whole at that interval, whatever minutes a nightly's
    start drifts by."""
    now = time.time() if now is None else now
    if not path or not Path(path).exists():
        return {}, {}, now, []
    try:
        before = json.loads(Path(path).read_text())
        then = (before.get("run") or {}).get("last_full_at")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as exc:
        return (
            {},
            {},
            now,
            [f"--incremental {path} is not a mutation-score.json ({exc}): every mutant is judged"],
        )
    # half a day's margin: a nightly that starts a little earlier than the last one does not
    # wait a night more for its whole run
    if not isinstance(then, (int, float)) or now - then >= (full_every - 0.5) * 86400:
        return (
            {},
            {},
            now,
            [
                f"incremental: the last run before {path} that judged every mutant is unknown or "
                f"started {full_every:g} days ago or more: every mutant is judged"
            ],
        )
    kept, delta = reusable(before, keys, checks_of, checks_now)
    said = (
        f"incremental: of {len(keys)} covered mutants, {len(kept)} keep the verdict of {path} "
        f"and {len(delta)} survivors are judged by their changed checks only "
        f"({sum(map(len, delta.values()))} check runs)"
    )
    return kept, delta, then if kept or delta else now, [said]


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
