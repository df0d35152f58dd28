"""Report builder: JUnit files in, the comparison model and its Markdown out (golden file).

The JUnit fixtures in ``data/`` come from a real run (create-converges, noop-stable,
finalizer-ordered-delete, leader-failover), edited so that every case shows: python fails
noop-stable by writing its status on every reconcile (with a 409 among the writes), go's
finalizer-ordered-delete has a 409 python's has not, python has no leader-failover result
(missing), and later-tier-check is skipped. ``bench.json``, ``mutants.json`` and
``explore.json`` are made up, not from a run (the last two say so in their ``note``).

Set UPDATE_GOLDEN=1 to rewrite the golden files after an intended change; review the diff.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from harness import checks, report

DATA = Path(__file__).parent / "data"
GOLDEN_MD = DATA / "comparison.golden.md"


def model() -> report.Report:
    return report.build([DATA / "junit-go.xml", DATA / "junit-python.xml"])


def bench() -> dict[str, Any]:
    return dict(json.loads((DATA / "bench.json").read_text()))


def mutants() -> dict[str, Any]:
    return dict(json.loads((DATA / "mutants.json").read_text()))


def explore() -> dict[str, Any]:
    return dict(json.loads((DATA / "explore.json").read_text()))


def normalise(text: str) -> str:
    """Replace what changes from run to run (timestamps, local ports) by placeholders."""
    text = re.sub(
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}| UTC)?",
        "<TIMESTAMP>",
        text,
    )
    return re.sub(r"(127\.0\.0\.1|localhost|\[::1\]):\d+", r"\1:<PORT>", text)


def check_golden(text: str, golden: Path) -> None:
    """``text`` must equal the golden file. With UPDATE_GOLDEN set the file is rewritten
    first, which passes by construction: refused under CI=true, where it would turn the
    comparison off."""
    text = normalise(text)
    if os.environ.get("UPDATE_GOLDEN"):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(
                "UPDATE_GOLDEN rewrites the golden files and so passes by construction; "
                "it is refused under CI=true"
            )
        golden.write_text(text)
    assert text == golden.read_text(), f"differs from {golden.name}; UPDATE_GOLDEN=1 rewrites it"


# --------------------------------------------------------------------------- model
def test_model_reads_outcomes_times_and_evidence() -> None:
    m = model()
    assert m.implementations == ["go", "python"]
    assert [c.id for c in m.checks] == [
        "create-converges",
        "noop-stable",
        "finalizer-ordered-delete",
        "leader-failover",
        "later-tier-check",
    ]
    noop = m.checks[1]
    assert noop.why == "Reconciles with nothing to change write nothing."
    assert noop.teaches.startswith("A level-triggered controller reconciles often")
    assert noop.result("go").outcome == "passed"
    assert noop.result("python").outcome == "failed"
    assert "wrote while nothing changed" in noop.result("python").message
    assert noop.result("python").evidence["successful_writes"] == "3"
    assert noop.result("python").artifacts == "/work/main/reports/artifacts/python/noop-stable"
    assert m.checks[0].result("go").time_s == 0.553
    assert m.checks[3].result("python").outcome == "missing"
    assert m.checks[4].result("go").outcome == "skipped"
    assert m.checks[4].result("go").message == "needs the sim tier (--cluster sim)"
    assert m.runs["go"].hostname == "vm"
    assert not m.all_passed


def test_missing_junit_file_is_never_a_pass(tmp_path: Path) -> None:
    m = report.build([DATA / "junit-go.xml", tmp_path / "junit-rust.xml"])
    assert m.implementations == ["go", "rust"]
    assert all("rust" not in c.results for c in m.checks)
    assert "rust" not in m.runs
    assert not m.all_passed


def test_all_passed_needs_every_implementation() -> None:
    assert report.build([DATA / "junit-go.xml"]).all_passed


def test_a_property_recorded_twice_keeps_both_values() -> None:
    """finalizer-ordered-delete records its own write_order, then the harness records the
    audit log's: the plain name is the audit's, the check's is kept beside it."""
    res = model().checks[2].result("go")
    assert json.loads(res.evidence["write_order (check)"]) == [
        "delete deployments",
        "delete services",
        "update modelservices",
    ]
    assert len(json.loads(res.evidence["write_order"])) == 21
    assert "write_order (check)" in res.check_evidence
    assert "write_order" not in res.check_evidence
    assert next(iter(res.evidence)) == "write_order (check)"  # where the check recorded it


def test_calls_come_from_the_timeline_in_time_order() -> None:
    calls = model().checks[0].result("go").calls
    assert len(calls) == 7
    assert calls[0] == report.Call(0.0, "list", "modelservices", "", 200)
    assert [c.t for c in calls] == sorted(c.t for c in calls)
    assert [c.label() for c in calls if c.is_write] == [
        "update modelservices web 200",
        "create deployments web 201",
        "create services web 201",
        "update modelservices/status web 200",
    ]
    assert not any(c.failed for c in calls)
    refused = [c for c in model().checks[2].result("go").calls if c.failed]
    assert [c.label() for c in refused] == ["update modelservices/status third 409"]


def test_results_without_timeline_fall_back_to_write_order() -> None:
    res = report.Result("passed", evidence={"write_order": '["create deployments web"]'})
    assert res.calls == []
    assert res.write_sequence == ["create deployments web"]
    assert report.Result("passed", evidence={"timeline": "not json"}).calls == []
    assert report.Result("passed").request_counts == {}


def test_request_counts() -> None:
    counts = model().checks[1].result("python").request_counts
    assert counts["update modelservices/status 409"] == 1
    assert counts["update modelservices/status 200"] == 4


# --------------------------------------------------------------------------- align
def _rows(seqs: dict[str, list[str]]) -> list[tuple[str | None, ...]]:
    return [
        tuple(seqs[i][j] if j is not None else None for i, j in row.items())
        for row in report.align(seqs)
    ]


def test_align_same_sequences_share_rows() -> None:
    seq = ["a", "b", "c"]
    assert _rows({"go": seq, "python": list(seq)}) == [("a", "a"), ("b", "b"), ("c", "c")]


def test_align_shows_extra_and_missing_items_on_rows_of_their_own() -> None:
    assert _rows({"go": ["a", "b", "x", "c"], "python": ["a", "b", "c", "y"]}) == [
        ("a", "a"),
        ("b", "b"),
        ("x", None),
        ("c", "c"),
        (None, "y"),
    ]


def test_align_pairs_replaced_items() -> None:
    assert _rows({"go": ["a", "b", "c"], "python": ["a", "B", "c"]}) == [
        ("a", "a"),
        ("b", "B"),
        ("c", "c"),
    ]
    assert _rows({"go": ["a", "b"], "python": ["a", "B", "C"]}) == [
        ("a", "a"),
        ("b", "B"),
        (None, "C"),
    ]


def test_align_three_implementations_and_empty_ones() -> None:
    assert _rows({"go": ["a", "b"], "python": ["a"], "rust": ["a", "b", "c"]}) == [
        ("a", "a", "a"),
        ("b", None, "b"),
        (None, None, "c"),
    ]
    assert _rows({"go": [], "python": ["a"]}) == [(None, "a")]
    assert report.align({}) == []


def test_align_the_fixture_finalizer_check() -> None:
    check = model().checks[2]
    seqs = {i: check.result(i).write_sequence for i in ("go", "python")}
    rows = _rows(seqs)
    differ = [r for r in rows if r[0] != r[1]]
    assert differ == [("update modelservices/status third 409", None)]


# --------------------------------------------------------------------------- bench, mutants
def test_bench_model_rows_ratios_and_series() -> None:
    b = report.bench_model(bench())
    assert b.implementations == ["go", "python"]
    assert b.ratio_names == ["python/go"]
    keys = [r.key for r in b.rows]
    assert keys[:5] == [
        "latency_p50_s",
        "latency_p95_s",
        "throughput_s[100]",
        "throughput_s[500]",
        "throughput_s[1000]",
    ]
    rss = next(r for r in b.rows if r.key == "peak_rss_mib")
    assert rss.values == {"go": 48.2, "python": 131.7}
    assert rss.ratios == {"python/go": 2.73}
    # the floor of 4 is the object writes'; Events are counted apart (issue 28)
    assert next(r for r in b.rows if r.key == "writes_per_object").ideal == ""
    data = bench()
    data["implementations"]["go"]["object_writes_per_object"] = 4.0
    split = report.bench_model(data)
    assert next(r for r in split.rows if r.key == "object_writes_per_object").ideal == "floor 4"
    assert b.throughput["go"] == [(100, 3.1), (500, 12.4), (1000, 24.9)]
    assert len(b.latency_samples["python"]) == 60
    assert b.latency_samples["go"] == sorted(b.latency_samples["go"])


def test_bench_model_computes_missing_ratios_and_tolerates_gaps() -> None:
    b = report.bench_model(
        {
            "implementations": {
                "go": {"peak_rss_mib": 50, "throughput_s": {"1000": 20, "100": 2}},
                "python": {"peak_rss_mib": 150, "throughput_s": {"100": 5}},
            }
        }
    )
    assert b.ratio_names == ["python/go"]
    rss = next(r for r in b.rows if r.key == "peak_rss_mib")
    assert rss.ratios == {"python/go": 3.0}
    t1000 = next(r for r in b.rows if r.key == "throughput_s[1000]")
    assert t1000.values == {"go": 20.0, "python": None}
    assert t1000.ratios == {"python/go": None}
    assert b.throughput["go"] == [(100, 2.0), (1000, 20.0)]
    assert b.latency_samples == {"go": [], "python": []}
    assert report.format_number(None) == "–"
    assert report.format_number(131.7, "MiB") == "132 MiB"


def test_kill_matrix_joins_both_views_and_finds_survivors() -> None:
    k = report.kill_matrix(mutants())
    assert [m.name for m in k.mutants] == [
        "always-update",
        "new-timestamp",
        "finalizer-first",
        "replay-event",
        "no-owns",
        "delete-by-name",
    ]
    assert k.checks[0] == "noop-stable"  # CHECK_ORDER (docs/design.md, "The checks")
    assert "child-repaired" in k.checks  # named in "checks" though it killed nothing
    assert k.idle_checks == ["child-repaired"]
    assert [m.name for m in k.mutants if m.survived] == ["no-owns", "delete-by-name"]
    assert [m.name for m in k.mutants if not m.ran] == ["delete-by-name"]
    assert k.kills("noop-stable") == ["always-update", "new-timestamp"]
    extra = report.kill_matrix(
        {
            "mutants": {"m": {"failed_checks": [], "doc": "d"}},
            "checks": {"parity": {"killed": ["m", "other"]}},
        }
    )
    assert {m.name: m.killed_by for m in extra.mutants} == {"m": ["parity"], "other": ["parity"]}


def test_kill_matrix_columns_are_checks_and_cases_count_for_their_check() -> None:
    k = report.kill_matrix(mutants())
    assert "watch-recovers" in k.checks
    assert not any("[" in c for c in k.checks)
    always = k.mutants[0]
    assert always.killed_by == ["noop-stable", "watch-recovers"]
    assert always.cases == {
        "watch-recovers": ["watch-recovers[api-server-restart]", "watch-recovers[connection-cut]"]
    }
    assert k.kills("watch-recovers[connection-cut]") == ["always-update"]
    assert k.kills("watch-recovers[stall]") == []
    assert checks.base_check("watch-recovers[cut]") == "watch-recovers"


# --------------------------------------------------------------------------- Markdown
def test_markdown_matches_golden() -> None:
    check_golden(
        report.render_markdown(
            report.with_sections(model(), bench=bench(), mutants=mutants(), exploration=explore())
        ),
        GOLDEN_MD,
    )


def test_markdown_sections_absent_without_their_data() -> None:
    full = report.render_markdown(report.with_sections(model(), bench=bench(), mutants=mutants()))
    plain = report.render_markdown(model())
    assert "## Benchmarks" in full and "## Mutants" in full
    assert "## Benchmarks" not in plain and "## Mutants" not in plain
    assert full.startswith(plain.rstrip("\n"))


def test_markdown_summarises_timelines() -> None:
    text = report.render_markdown(model())
    assert "- `timeline`: 43 requests (22 writes, 1 refused) over 1.48 s" in text
    assert "[[0.0" not in text


# --------------------------------------------------------------------------- write_all
def test_write_all_writes_both_and_reads_bench_and_mutants(tmp_path: Path) -> None:
    paths = report.write_all(model(), tmp_path)
    assert [p.name for p in paths] == ["comparison.md", "comparison.html", "summary.md"]
    assert "## Benchmarks" not in paths[0].read_text()
    assert 'id="bench"' not in paths[1].read_text()

    (tmp_path / "bench.json").write_text(json.dumps(bench()))
    (tmp_path / "mutants.json").write_text(json.dumps(mutants()))
    md, page, _summary = report.write_all(model(), tmp_path)
    assert "## Benchmarks" in md.read_text() and "## Mutants" in md.read_text()
    assert 'id="bench"' in page.read_text() and 'id="mutants"' in page.read_text()


def test_write_all_links_the_lesson_only_once_make_lesson_made_it(tmp_path: Path) -> None:
    md, page, _summary = report.write_all(model(), tmp_path)
    for text in (md.read_text(), page.read_text()):
        assert "lesson.html" not in text and "lesson.md" not in text
        assert text.count(report.LESSON_NOT_MADE) == 1  # how to make it, in one line
    (tmp_path / "lesson.html").write_text("<html></html>")
    md, page, _summary = report.write_all(model(), tmp_path)
    assert "[The lesson: the article's story" in md.read_text() and "(lesson.md)" in md.read_text()
    assert 'href="lesson.html"' in page.read_text()
    assert report.LESSON_NOT_MADE not in page.read_text()


def test_write_all_leaves_out_an_unreadable_bench(tmp_path: Path) -> None:
    (tmp_path / "bench.json").write_text("{not json")
    with pytest.warns(UserWarning, match="bench.json"):
        md, *_ = report.write_all(model(), tmp_path)
    assert "## Benchmarks" not in md.read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert report.load_json(tmp_path / "absent.json") is None


def test_write_all_waits_for_a_refresh_beside_it_and_then_reads_what_it_wrote(
    tmp_path: Path,
) -> None:
    """make test's steps refresh one report side by side: write_all reads the JSON files and
    builds the model under a lock on the folder, so the refresh that writes last has read
    everything written before it (here: mutants.json, written while it waited)."""
    import fcntl
    import threading

    built: list[bool] = []
    done = threading.Event()

    def build() -> report.Report:
        built.append(True)
        return model()

    def refresh() -> None:
        report.write_all(build, tmp_path)
        done.set()

    with open(tmp_path / report.WRITE_LOCK, "a") as other:  # another step's write_all
        fcntl.flock(other, fcntl.LOCK_EX)
        waiting = threading.Thread(target=refresh)
        waiting.start()
        assert not done.wait(0.3), "write_all must wait for the lock"
        assert built == [], "and build the model only once it holds it"
        (tmp_path / "mutants.json").write_text(json.dumps(mutants()))
        fcntl.flock(other, fcntl.LOCK_UN)
    waiting.join(10)
    assert done.is_set() and built == [True]
    assert "## Mutants" in (tmp_path / "comparison.md").read_text()
    assert report.write_all(lambda: None, tmp_path) == [], "nothing to build: nothing written"


PREMISE_JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="1"><testcase classname="conformance.test_core"
 name="stale-update-conflict" time="1.0"><properties>
<property name="check" value="stale-update-conflict" />
<property name="implementation" value="go" />
<property name="stale_update_status" value="409" />
<property name="deployment_replicas" value="2" />
<property name="premises" value="[&quot;stale_update_status&quot;]" />
</properties></testcase></testsuite></testsuites>
"""


def test_refresh_reads_the_suites_junit_files_not_the_explorations(tmp_path: Path) -> None:
    """junit-explore-<impl>.xml sit beside the suites' files; read as a suite they became
    implementations "explore-go" and "explore-python" with explore[...] checks."""
    assert report.refresh(tmp_path) == [], "no suite yet: nothing written"
    (tmp_path / "junit-explore-go.xml").write_text(PREMISE_JUNIT)
    assert report.suite_junit_files(tmp_path) == []
    assert report.refresh(tmp_path) == []
    (tmp_path / "junit-go.xml").write_text(PREMISE_JUNIT)
    (tmp_path / "junit.xml").write_text(PREMISE_JUNIT)  # the merged file: not a suite
    assert report.suite_junit_files(tmp_path) == [tmp_path / "junit-go.xml"]
    md, *_ = report.refresh(tmp_path)
    assert "explore-go" not in md.read_text()


def test_premises_are_labelled_and_never_key_evidence(tmp_path: Path) -> None:
    from harness.report import html as report_html

    path = tmp_path / "junit-go.xml"
    path.write_text(PREMISE_JUNIT)
    m = report.build([path])
    res = m.checks[0].result("go")
    assert res.premise_keys == ["stale_update_status"]
    assert report.key_evidence(res) == "deployment_replicas=2"
    md = report.render_markdown(m)
    assert "- `stale_update_status` (premise, not the operator's proof): `409`" in md
    assert "`premises`" not in md
    html = report_html.render_html(m)
    evidence, premises = html.split('<table class="evidence premise">')
    assert "stale_update_status" not in evidence.split('<table class="evidence">')[-1]
    assert "deployment_replicas" in evidence
    assert "not the operator's proof" in premises and "stale_update_status" in premises


def test_the_mutants_fixture_says_it_is_made_up() -> None:
    assert "not from a run" in mutants()["note"]


def test_update_golden_is_refused_under_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    golden = tmp_path / "golden.md"
    golden.write_text("old")
    monkeypatch.setenv("UPDATE_GOLDEN", "1")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="refused under CI=true"):
        check_golden("new", golden)
    assert golden.read_text() == "old"


# --------------------------------------------------------------------------- mermaid
def test_sequence_diagram_draws_one_arrow_per_request_and_crosses_refusals() -> None:
    from harness.report.model import Call

    calls = [
        Call(0.0, "get", "modelservices", "web", 200),
        Call(0.5, "update", "modelservices/status", "web;x#1", 409),
        *[Call(1.0 + i, "list", "services", "", 200) for i in range(5)],
    ]
    lines = report.sequence_diagram("go", calls, limit=3)
    assert lines[0] == "```mermaid" and lines[1] == "sequenceDiagram"
    arrows = [ln for ln in lines if ln.startswith("    O")]
    assert len(arrows) == 3
    assert arrows[0] == "    O->>A: +0.00s get modelservices web 200"
    assert arrows[1] == "    O-xA: +0.50s update modelservices/status web,x1 409"
    assert "    Note over O,A: 4 more requests (comparison.html)" in lines
    assert report.sequence_diagram("go", []) == []


def test_job_summary_has_the_table_and_a_diagram_per_implementation_with_requests() -> None:
    text = report.render_job_summary(model())
    assert text.startswith("# ModelDock conformance\n\n| check |")
    assert " runs (" in text and " checks and cases x " in text
    assert text.count("```mermaid") >= 2


def test_markdown_shows_the_spread_of_runs_and_the_write_capacity() -> None:
    data = bench()
    data["floor"] = {"capacity": {"writes_per_s": 812.4}}
    data["spread"] = {
        "go": {"throughput_s": {"100": {"median": 3.1, "min": 2.9, "max": 4.0, "runs": 3}}}
    }
    text = report.render_markdown(report.with_sections(model(), bench=data))
    assert "write capacity (the floor client at a saturating concurrency): 812 writes/s" in text
    assert "| go | N = 100 at once | 3.1 s | 2.9 s | 4 s | 3 |" in text
    assert "Spread over runs" not in report.render_markdown(
        report.with_sections(model(), bench=bench())
    )


def test_the_writers_take_the_finished_model() -> None:
    """The optional sections are read onto the model before it is written (``with_sections``):
    an empty or absent file leaves its section out, an unknown name is refused."""
    m = report.with_sections(model(), bench=bench(), mutants={}, exploration=None)
    assert m.bench is not None and m.bench.rows and m.mutants is None and m.exploration is None
    assert set(report.SECTION_FILES) == {
        "bench",
        "mutants",
        "ablation",
        "exploration",
        "mutation_score",
        "generated",
        "generated_mutants",
    }
    with pytest.raises(TypeError, match="no report section"):
        report.with_sections(model(), explore=explore())
