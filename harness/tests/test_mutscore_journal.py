"""Unit tests of the mutation-score verdict journal (harness/mutscore/journal.py)."""

from __future__ import annotations

import threading
from pathlib import Path

from harness.mutscore.journal import Journal

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
