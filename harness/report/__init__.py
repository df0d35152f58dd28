"""The comparison report: one model read from the run's files, and two writers of it.

``build(junit_files)`` reads ``reports/junit-<impl>.xml`` into a ``Report`` (the model, in
``harness.report.model``); ``with_sections`` (``harness.report.sections``) adds the optional
sections, each read from its JSON file in the reports folder (``SECTION_FILES``: bench,
mutants, RBAC ablation, exploration, mutation score). The writers take only that finished
model: ``render_markdown``/``write_markdown`` (``harness.report.markdown``) and
``render_html``/``write_html`` (``harness.report.html``, its CSS and script in
``harness/report/static/``); ``write_all`` reads the files, finishes the model and writes
both into a reports folder, linking the lesson only when ``make lesson`` has written it
there. Tiers side by side:
``compare_tiers(folders)`` (``harness.report.tiers``) reads one reports folder per tier,
``write_tiers`` writes ``tiers.md`` and ``tiers.html``.

Imports run one way: the writers import the model, never the reverse, and no module of the
package imports this one. Callers use ``from harness import report`` and ``report.<name>``.
"""

from __future__ import annotations

import dataclasses
import fcntl
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.i18n import localise, localise_mutants
from harness.junit import PREMISES
from harness.report.html import render_html, render_tiers_html, write_html
from harness.report.markdown import (
    describe_timeline,
    key_evidence,
    render_job_summary,
    render_markdown,
    render_summary,
    render_tiers_markdown,
    sequence_diagram,
    write_markdown,
)
from harness.report.matrices import (
    AblatedRight,
    Ablation,
    KillMatrix,
    Mutant,
    kill_matrix,
    rbac_ablation,
)
from harness.report.model import (
    AUDIT_EVIDENCE,
    BENCH_FIGURES,
    Bench,
    BenchRow,
    Call,
    Check,
    Report,
    Result,
    Run,
    align,
    bench_model,
    build,
    format_number,
    load_json,
)
from harness.report.sections import SECTION_FILES, with_sections
from harness.report.teaching import LESSON_NOT_MADE
from harness.report.tiers import TierComparison, compare_tiers
from harness.report.writes import compare_writes, refusals
from harness.runs import write_text_atomic

__all__ = [
    "AUDIT_EVIDENCE",
    "BENCH_FIGURES",
    "LESSON_NOT_MADE",
    "PREMISES",
    "SECTION_FILES",
    "WRITE_LOCK",
    "AblatedRight",
    "Ablation",
    "Bench",
    "BenchRow",
    "Call",
    "Check",
    "KillMatrix",
    "Mutant",
    "Report",
    "Result",
    "Run",
    "TierComparison",
    "align",
    "bench_model",
    "build",
    "compare_tiers",
    "compare_writes",
    "describe_timeline",
    "format_number",
    "key_evidence",
    "kill_matrix",
    "load_json",
    "rbac_ablation",
    "refresh",
    "refusals",
    "render_html",
    "render_job_summary",
    "render_markdown",
    "render_summary",
    "render_tiers_html",
    "render_tiers_markdown",
    "sequence_diagram",
    "suite_junit_files",
    "with_sections",
    "write_all",
    "write_html",
    "write_markdown",
    "write_tiers",
]


#: The file ``write_all`` locks in a reports folder (empty; never removed).
WRITE_LOCK = ".comparison.lock"


@contextmanager
def _folder_lock(reports_dir: Path) -> Iterator[None]:
    """Hold an exclusive flock(2) on ``reports_dir/WRITE_LOCK`` (blocking) until the block
    ends. The lock goes with the open file, so a process that dies releases it."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    with open(reports_dir / WRITE_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_all(
    report: Report | Callable[[], Report | None],
    reports_dir: Path,
    bench: Mapping[str, Any] | None = None,
    mutants: Mapping[str, Any] | None = None,
    ablation: Mapping[str, Any] | None = None,
    explore: Mapping[str, Any] | None = None,
    lang: str = "en",
) -> list[Path]:
    """Write ``comparison.md``, ``comparison.html`` and ``summary.md`` (the CI job summary:
    the table and each check's sequence diagrams) in ``reports_dir``; return their paths in
    that order. ``report`` is the model of the checks, or a function that builds it (None:
    nothing to write, and [] is returned), called under the lock below so that it reads the
    JUnit files of the same moment as the JSON files. The optional sections are then read into
    it (``with_sections``): ``bench``/``mutants``/``ablation``/``explore`` (the dicts of
    those files) default to ``reports_dir/bench.json``, ``mutants.json``,
    ``rbac-ablation.json`` and ``explore.json`` when those exist, and every other section of
    ``SECTION_FILES`` (``mutation-score.json``) is read from its file when it exists.

    Runs side by side (``make test`` runs the kill matrix, the RBAC ablation, the exploration
    and the suite at once, and each refreshes the report after writing its own results) take
    turns: the files are read and the report written under one lock on the folder
    (``WRITE_LOCK``). Whichever writes last has read every JSON written before its turn, so
    no table is lost to a refresh that read the folder a moment too early.

    ``lang`` other than English (``harness.i18n.LANGS``): the teaching text in that language
    (``harness.i18n.localise``), written as ``comparison.<lang>.md`` and ``.html`` (no
    summary.md; the English files are left as they are)."""
    reports_dir = Path(reports_dir)
    given = {"bench": bench, "mutants": mutants, "ablation": ablation, "exploration": explore}
    with _folder_lock(reports_dir):
        model = report() if callable(report) else report
        if model is None:
            return []
        data = {
            name: given[name] if given.get(name) is not None else load_json(reports_dir / file)
            for name, file in SECTION_FILES.items()
        }
        if lang != "en":
            data["mutants"] = localise_mutants(data["mutants"], lang)
            model = with_sections(_lesson_if_made(localise(model, lang), reports_dir), **data)
            return [
                write_markdown(model, reports_dir / f"comparison.{lang}.md"),
                write_html(model, reports_dir / f"comparison.{lang}.html"),
            ]
        model = with_sections(_lesson_if_made(model, reports_dir), **data)
        return [
            write_markdown(model, reports_dir / "comparison.md"),
            write_html(model, reports_dir / "comparison.html"),
            write_text_atomic(reports_dir / "summary.md", render_job_summary(model)),
        ]


def _lesson_if_made(model: Report, reports_dir: Path) -> Report:
    """``model`` with no link to the lesson (``lesson_href`` "") when its page is not in
    ``reports_dir`` (``make lesson`` not run): the writers then say how to make it."""
    href = model.lesson_href
    if href and not (reports_dir / href).is_file():
        return dataclasses.replace(model, lesson_href="")
    return model


def suite_junit_files(reports_dir: Path) -> list[Path]:
    """The conformance suites' ``junit-<impl>.xml`` in ``reports_dir``, sorted; not the
    exploration's ``junit-explore-<impl>.xml`` (explore.json has those results), nor the
    merged ``junit.xml``."""
    return sorted(
        p for p in Path(reports_dir).glob("junit-*.xml") if not p.name.startswith("junit-explore-")
    )


def refresh(reports_dir: Path, implementations: Mapping[str, Any] | None = None) -> list[Path]:
    """Rewrite the comparison report in ``reports_dir`` from what is there now: the suites'
    JUnit files (``suite_junit_files``) and the JSON files ``write_all`` reads, the model built
    under ``write_all``'s lock. ``implementations``: id -> implementation (titles), as
    ``report.build`` takes. Returns the paths written, [] when no suite's JUnit file is there
    (nothing to compare yet). What the kill matrix, the RBAC ablation and the exploration call
    after writing their JSON."""

    def model() -> Report | None:
        files = suite_junit_files(reports_dir)
        return build(files, implementations) if files else None

    return write_all(model, reports_dir)


def write_tiers(
    folders: Sequence[Path], out_dir: Path, impls: Sequence[str] | None = None
) -> list[Path]:
    """Tiers side by side: read one reports folder per tier (``compare_tiers``: each with
    ``junit-<impl>.xml``; ``impls`` default every implementation found) and write
    ``out_dir/tiers.md`` and ``out_dir/tiers.html``; return their paths in that order. Raises
    ValueError when no folder holds an implementation's JUnit file."""
    comparisons = compare_tiers([Path(f) for f in folders], impls)
    if not comparisons or not any(r.present for c in comparisons for r in c.runs):
        raise ValueError(f"no junit-<impl>.xml in {', '.join(map(str, folders))}")
    out_dir = Path(out_dir)
    return [
        write_text_atomic(out_dir / "tiers.md", render_tiers_markdown(comparisons)),
        write_text_atomic(out_dir / "tiers.html", render_tiers_html(comparisons)),
    ]
