"""The finished report model: a ``Report`` with every optional section read.

The writers take only a finished model; this module fills it. Each optional section is a field
of ``harness.report.model.Report`` read from the dict of one JSON file in a reports folder
(``SECTION_FILES``) by its reader (``READERS``). ``with_sections(report, bench=..., ...)``
fills them from dicts; ``harness.report.write_all`` reads the files under its lock and calls it.

Adding a section (as the generated workloads were added): a field on ``Report`` (None by default), a reader
from the JSON file's dict to a dataclass (in ``model.py`` or a module of its own that imports no
writer), its entry in ``SECTION_FILES`` and ``READERS``, and one function in each writer
(``markdown.render_markdown`` and ``html.render_html`` call it when the field is not None).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from harness.report.exploration import exploration
from harness.report.generated import judged as generated_judged
from harness.report.generated import section as generated_section
from harness.report.matrices import kill_matrix, rbac_ablation
from harness.report.model import Report, bench_model
from harness.report.mutation_score import mutation_score

#: The optional sections: ``Report`` field -> its file in a reports folder.
SECTION_FILES = {
    "bench": "bench.json",
    "mutants": "mutants.json",
    "ablation": "rbac-ablation.json",
    "exploration": "explore.json",
    "mutation_score": "mutation-score.json",
    "generated": "generated.json",
    "generated_mutants": "generated-mutants.json",
}

#: ``Report`` field -> the reader of its file's dict.
READERS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "bench": bench_model,
    "mutants": kill_matrix,
    "ablation": rbac_ablation,
    "exploration": exploration,
    "mutation_score": mutation_score,
    "generated": generated_section,
    "generated_mutants": generated_judged,
}


def with_sections(report: Report, **data: Mapping[str, Any] | None) -> Report:
    """A copy of ``report`` with the optional sections given by ``Report`` field (``bench=``,
    ``mutants=``, ``ablation=``, ``exploration=``, ``mutation_score=``, ``generated=``, ``generated_mutants=``), each read from the
    dict of its JSON file; a section given as None or empty is left out (None), one not given
    keeps what ``report`` has. Raises TypeError for a name that is no section."""
    unknown = set(data) - set(READERS)
    if unknown:
        raise TypeError(f"no report section {sorted(unknown)}: one of {sorted(READERS)}")
    sections: dict[str, Any] = {k: READERS[k](v) if v else None for k, v in data.items()}
    return dataclasses.replace(report, **sections)
