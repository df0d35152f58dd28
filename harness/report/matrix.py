"""Kubernetes versions side by side: the suite's result per check, per version, per implementation.

``make conformance-matrix`` runs the envtest suite once per minor version into
``reports/matrix/<version>/`` (each a normal conformance reports folder, its JUnit testsuite
properties naming the ``kubernetes_version``), then ``python -m harness.report.matrix
reports/matrix 1.34 1.35 ...`` reads them with ``harness.report.tiers.compare_tiers`` (the same
reader the tiers view uses) and writes ``reports/matrix/matrix.md``: one row per check, one
column per version and implementation, each cell passed / failed / error / skipped / missing,
and below the table every non-passing cell with its message, so a failure's reason is named.
Exit status: 0 when no cell failed, errored or is missing, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from harness.report.tiers import compare_tiers, implementations_in

_MARK = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "skip",
    "xfailed": "xfail",
}


def matrix_markdown(root: Path, versions: Sequence[str]) -> tuple[str, bool]:
    """The Markdown report over ``root/<version>`` folders, and whether every cell is free of
    failures, errors and gaps. A version without a folder shows its checks as "missing",
    which is not clean either: a run that did not happen passed nothing."""
    folders = [root / v for v in versions]
    impls = implementations_in(f for f in folders if f.is_dir())
    comparisons = compare_tiers(folders, impls)
    head = ["check"] + [f"{v} {c.impl}" for v in versions for c in comparisons]
    lines = [
        "# Conformance across Kubernetes versions",
        "",
        "Each column is one version's envtest run of one implementation "
        "(`make conformance K8S_VERSION=<version>`). API servers as built: "
        + ", ".join(
            f"{v} -> {comparisons[0].runs[i].kubernetes_version or 'no run'}"
            for i, v in enumerate(versions)
        )
        if comparisons
        else "No run found.",
        "",
        "| " + " | ".join(head) + " |",
        "| " + " | ".join("---" for _ in head) + " |",
    ]
    checks = sorted(
        {c for comp in comparisons for c in comp.checks},
        key=lambda c: next((comp.checks.index(c) for comp in comparisons if c in comp.checks), 0),
    )
    clean = True
    notes: list[str] = []
    for check in checks:
        cells = []
        for i, v in enumerate(versions):
            for comp in comparisons:
                result = comp.runs[i].result(check)
                cells.append(_MARK.get(result.outcome, result.outcome))
                if result.outcome in ("failed", "error", "missing"):
                    clean = False
                if result.outcome not in ("passed", "skipped"):
                    first = (result.message or "").strip().splitlines()[:1]
                    notes.append(
                        f"- `{check}` on {v} ({comp.impl}): {result.outcome}: "
                        f"{first[0][:300] if first else 'no message'}"
                    )
        lines.append(f"| `{check}` | " + " | ".join(cells) + " |")
    totals = []
    for i, v in enumerate(versions):
        for comp in comparisons:
            run = comp.runs[i]
            totals.append(
                f"- {v} {comp.impl}: {run.count('passed')} passed, {run.count('failed')} failed, "
                f"{run.count('error')} error, {run.count('skipped')} skipped"
            )
    lines += ["", "## Totals", "", *totals]
    if notes:
        lines += ["", "## Not passed", "", *notes]
    return "\n".join(lines) + "\n", clean


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m harness.report.matrix ROOT VERSION...``: write ROOT/matrix.md, print it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print("usage: python -m harness.report.matrix ROOT VERSION [VERSION...]", file=sys.stderr)
        return 2
    root = Path(args[0])
    text, clean = matrix_markdown(root, args[1:])
    (root / "matrix.md").write_text(text)
    print(text)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
