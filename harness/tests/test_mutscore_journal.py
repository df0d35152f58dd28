"""Unit tests of the mutation-score verdict journal (harness/mutscore/journal.py)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.mutscore import journal
from harness.mutscore.journal import (
    Journal,
    check_keys,
    environment_key,
    incremental,
    mutant_key,
    reusable,
)

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


def test_a_mutant_key_follows_its_file_settings_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "REPO_ROOT", tmp_path)
    (tmp_path / "op.go").write_text("package main\n")
    key = mutant_key(MUTANT, "op.go", 99, True, "env")
    assert key == mutant_key(MUTANT, "op.go", 99, True, "env")
    assert key != mutant_key(MUTANT, "op.go", 3, True, "env")
    assert key != mutant_key(MUTANT, "op.go", 99, False, "env")
    assert key != mutant_key(MUTANT, "op.go", 99, True, "other")
    assert key != mutant_key("go:op.go:f:OP:x->y#1", "op.go", 99, True, "env")
    (tmp_path / "op.go").write_text("package main\n// edited\n")
    assert key != mutant_key(MUTANT, "op.go", 99, True, "env")  # its file changed


def test_the_environment_key_follows_the_crd_and_the_convergence_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "modelservice.yaml").write_text("pattern: a\n")
    (tmp_path / "conformance").mkdir()
    (tmp_path / "conformance" / "support.py").write_text("x = 1\n")
    (tmp_path / "conformance" / "test_x.py").write_text("y = 1\n")
    monkeypatch.setattr(journal, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(journal, "CONFORMANCE_DIR", tmp_path / "conformance")
    key = environment_key("20", "1.34.4")
    assert key != environment_key("30", "1.34.4")
    assert key != environment_key("20", "1.37.2")  # K8S_VERSION picked other binaries
    (tmp_path / "conformance" / "test_x.py").write_text("y = 2\n")  # a check's file: not here
    assert key == environment_key("20", "1.34.4")
    (tmp_path / "conformance" / "support.py").write_text("x = 2\n")
    assert key != environment_key("20", "1.34.4")
    before = environment_key("20", "1.34.4")
    (tmp_path / "crds" / "modelservice.yaml").write_text("pattern: b\n")
    assert before != environment_key("20", "1.34.4")


def test_a_check_key_is_its_test_files() -> None:
    keys = check_keys(["noop-stable", "noop-stable[respelled]", "config-refused"])
    assert keys["noop-stable"] == keys["noop-stable[respelled]"]  # one id, one file set
    assert keys["noop-stable"] != keys["config-refused"]
    assert all(len(k) == 16 for k in keys.values())


def test_an_earlier_report_spares_what_did_not_change() -> None:
    then = {"a": "1", "b": "1", "c": "1", "d": "old"}
    report: dict[str, Any] = {
        "run": {"check_keys": then},
        "mutants": {
            "killed": {"status": "killed", "killed_by": ["a"], "ran": ["a"], "mutant_key": "k"},
            "killer-changed": {"status": "killed", "killed_by": ["d"], "mutant_key": "k"},
            "survived": {"status": "survived", "errors": [], "ran": ["a", "b"], "mutant_key": "k"},
            "errored": {
                "status": "survived",
                "errors": ["b"],
                "ran": ["a", "b"],
                "mutant_key": "k",
            },
            "new-check": {"status": "survived", "ran": ["a"], "mutant_key": "k"},
            "check-changed": {"status": "survived", "ran": ["a", "d"], "mutant_key": "k"},
            "file-changed": {"status": "survived", "ran": ["a"], "mutant_key": "old"},
            "stillborn": {"status": "stillborn", "problem": "timed out", "mutant_key": "k"},
            "assumed": {"status": "survived", "assumed": True},
            "not-viable": {"status": "not viable", "problem": "refused", "mutant_key": "k"},
        },
    }
    ids = [i for i in report["mutants"] if i != "file-changed"]
    keys = {i: "k" for i in ids} | {"file-changed": "k"}
    now = {"a": "1", "b": "1", "c": "1", "d": "new"}
    checks_of = {
        "killed": ["b", "a"],
        "killer-changed": ["d"],
        "survived": ["b", "a"],
        "errored": ["a", "b"],
        "new-check": ["a", "c"],
        "check-changed": ["a", "d"],
        "file-changed": ["a"],
        "stillborn": ["a"],
        "assumed": ["a"],
        "not-viable": ["a"],
    }
    kept, delta = reusable(report, keys, checks_of, now)
    assert set(kept) == {"killed", "survived", "not-viable"}
    assert kept["killed"] == {
        "status": "killed",
        "killed_by": ["a"],
        "ran": ["a"],
        "mutant_key": "k",
        "reused": True,
    }
    # a survivor runs only the checks it never ran or whose files changed
    assert delta == {"new-check": ["c"], "check-changed": ["d"]}
    assert reusable({}, keys, checks_of, now) == ({}, {})


def test_incremental_keeps_nothing_past_the_full_run_interval(tmp_path: Path) -> None:
    day = 86400.0
    report = {
        "run": {"check_keys": {"a": "1"}, "last_full_at": 10 * day},
        "mutants": {"m": {"status": "killed", "killed_by": ["a"], "mutant_key": "k"}},
    }
    path = tmp_path / "mutation-score.json"
    path.write_text(json.dumps(report))
    args = ({"m": "k"}, {"m": ["a"]}, {"a": "1"})
    kept, delta, last_full, said = incremental(str(path), 7, *args, now=16 * day)
    assert set(kept) == {"m"} and delta == {} and last_full == 10 * day  # carried over
    assert "1 keep the verdict" in said[0]
    kept, _, last_full, said = incremental(str(path), 7, *args, now=16.6 * day)
    assert kept == {} and last_full == 16.6 * day and "7 days" in said[0]  # a nightly early
    path.write_text("{not json")
    kept, _, last_full, said = incremental(str(path), 7, *args, now=16 * day)
    assert kept == {} and last_full == 16 * day and "not a mutation-score.json" in said[0]
    assert incremental(str(tmp_path / "none.json"), 7, *args, now=16 * day) == (
        {},
        {},
        16 * day,
        [],
    )
    assert incremental(None, 7, *args, now=16 * day) == ({}, {}, 16 * day, [])


def test_compile_refused_is_the_compiler_on_the_mutant_s_own_file() -> None:
    from harness.mutscore.generate import compile_refused

    refused = (
        "go build failed: # modeldock.io/go_reference\n"
        "../build/mutscore/go/1b3b1b5e8a98/catalog.go:124:9: invalid operation: operator - "
        "not defined on ms.GetNamespace() (value of type string)"
    )
    assert compile_refused(refused, "go_reference/catalog.go")
    assert not compile_refused(refused, "go_reference/main.go")  # another file's error
    assert not compile_refused("go build failed: signal: killed", "go_reference/main.go")
    assert not compile_refused(
        "go build failed: go: downloading k8s.io/api v0.34.3: dial tcp: i/o timeout",
        "go_reference/main.go",
    )
