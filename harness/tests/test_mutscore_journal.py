"""Unit tests of the mutation-score verdict journal (harness/mutscore/journal.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from harness.mutscore import journal
from harness.mutscore.journal import Journal, mutant_key, reusable

KEYS = {"go": "g1/max8/first", "python": "p1/max8/first"}


def test_a_resumed_run_gets_back_the_verdicts_of_its_own_key(tmp_path: Path) -> None:
    j = Journal(tmp_path / "verdicts.jsonl", KEYS)
    assert j.start(resume=False) == {}
    j.record("go:a.go:f:OP:x->y#0", {"status": "killed", "killed_by": ["noop-stable"]})
    j.record("python:a.py:f:OP:x->y#0", {"status": "survived", "errors": []})
    again = Journal(tmp_path / "verdicts.jsonl", KEYS)
    done = again.start(resume=True)
    assert done == {
        "go:a.go:f:OP:x->y#0": {"status": "killed", "killed_by": ["noop-stable"]},
        "python:a.py:f:OP:x->y#0": {"status": "survived", "errors": []},
    }


def test_verdicts_of_other_sources_or_checks_are_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    old = Journal(path, {"go": "g0/max8/first", "python": "p1/max3/first"})
    old.start(resume=False)
    old.record("go:a.go:f:OP:x->y#0", {"status": "killed"})
    old.record("python:a.py:f:OP:x->y#0", {"status": "killed"})
    assert Journal(path, KEYS).start(resume=True) == {}


def test_a_fresh_run_empties_the_journal_and_a_torn_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    j = Journal(path, KEYS)
    j.start(resume=False)
    j.record("go:a.go:f:OP:x->y#0", {"status": "killed"})
    with path.open("a") as f:
        f.write('{"id": "go:b.go:f:OP:x->y#0", "key": "g1/ma')  # killed mid-write
    assert list(Journal(path, KEYS).start(resume=True)) == ["go:a.go:f:OP:x->y#0"]
    assert Journal(path, KEYS).start(resume=False) == {}
    assert path.read_text() == ""


def test_records_from_many_threads_are_whole_lines(tmp_path: Path) -> None:
    j = Journal(tmp_path / "verdicts.jsonl", KEYS)
    j.start(resume=False)
    threads = [
        threading.Thread(target=j.record, args=(f"go:a.go:f:OP:x->y#{n}", {"status": "killed"}))
        for n in range(50)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(Journal(j.path, KEYS).start(resume=True)) == 50


MUTANT = "go:op.go:f:OP:x->y#0"


def _key(checks: list[str], max_checks: int = 99, first_kill: bool = True) -> str:
    return mutant_key(MUTANT, "op.go", checks, max_checks, first_kill)


def test_a_mutant_key_follows_its_file_and_its_checks_not_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "REPO_ROOT", tmp_path)
    (tmp_path / "op.go").write_text("package main\n")
    key = _key(["noop-stable", "create-converges"])
    assert key == _key(["create-converges", "noop-stable"])  # the prior kills reorder them
    assert key != _key(["noop-stable"])  # the coverage or --max-checks chose other checks
    assert key != _key(["noop-stable", "create-converges"], max_checks=3)
    assert key != _key(["noop-stable", "create-converges"], first_kill=False)
    (tmp_path / "op.go").write_text("package main\n// edited\n")
    assert key != _key(["noop-stable", "create-converges"])  # its file changed


def test_an_earlier_report_gives_only_verdicts_of_the_same_key() -> None:
    report = {
        "mutants": {
            "a": {"status": "killed", "killed_by": ["noop-stable"], "mutant_key": "k1", "line": 3},
            "b": {"status": "survived", "errors": [], "mutant_key": "old"},
            "c": {"status": "stillborn", "problem": "timed out", "mutant_key": "k3"},
            "d": {"status": "survived", "assumed": True},
            "e": {"status": "not viable", "problem": "refused", "mutant_key": "k5"},
            "f": {"status": "killed", "mutant_key": "k6"},
        }
    }
    now = {"a": "k1", "b": "k2", "c": "k3", "d": "k4", "e": "k5"}
    got = reusable(report, now)
    # b's file or checks changed; c's start may work next time; d has no key; f is gone
    assert got == {
        "a": {"status": "killed", "killed_by": ["noop-stable"], "mutant_key": "k1", "reused": True},
        "e": {"status": "not viable", "problem": "refused", "mutant_key": "k5", "reused": True},
    }
    assert reusable({}, now) == {}
