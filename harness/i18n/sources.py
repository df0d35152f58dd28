"""The English every catalogue of ``harness.i18n`` translates, read from where it is written
(the report's teaching text, the page labels, the conformance tests' docstrings, mutants.toml,
the lesson), by catalogue key; and the keys of a catalogue whose English changed."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from harness.i18n import LABELS, catalogue, text_hash


def _check_docstrings() -> dict[str, str]:
    """``check:<testcase>:why`` / ``:teaches`` -> the English of every check, read from the
    conformance tests' docstrings without importing them (as ``check_texts`` splits them:
    first paragraph, the rest)."""
    from harness.checks import check_functions
    from harness.paths import CONFORMANCE_DIR

    docs: dict[str, str] = {}
    for path in sorted(CONFORMANCE_DIR.glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef):
                docs[node.name] = ast.get_docstring(node) or ""
    out: dict[str, str] = {}
    names = check_functions()
    for case, functions in names.items():
        # a plain id of a check with cases names every function of it: its own is the one
        # no case names
        cased = {f for k, fs in names.items() if k.startswith(f"{case}[") for f in fs}
        own = [f for f in functions if f in docs and f not in cased]
        if not own:
            continue
        paragraphs = docs[own[0]].split("\n\n")
        why = " ".join(paragraphs[0].split())
        teaches = " ".join(" ".join(paragraphs[1:]).split())
        if why:
            out.setdefault(f"check:{case}:why", why)
        if teaches:
            out.setdefault(f"check:{case}:teaches", teaches)
    return out


def sources() -> dict[str, str]:
    """Every translatable English text by key, as the code has it now: the report's teaching
    text (``harness.report.teaching``), the page labels (``LABELS``), the checks' docstrings,
    the mutants' titles and the lesson."""
    from harness import mutants
    from harness.lesson import story
    from harness.report.teaching import GLOSSARY, INTRODUCTION, OUTCOME_NAMES

    out = {f"intro:{n}": p for n, p in enumerate(INTRODUCTION, 1)}
    for term, meaning in GLOSSARY:
        out[f"glossary:{term}"] = meaning
        out[f"glossary:{term}:term"] = term
    out |= {f"outcome:{o}": name for o, name in OUTCOME_NAMES.items()}
    out |= {f"label:{s}": s for s in LABELS}
    out |= _check_docstrings()
    out |= {f"mutant:{m}:title": str(t.get("title", "")) for m, t in mutants.declared().items()}
    out |= story.texts()
    return {k: v for k, v in out.items() if v}


def stale(lang: str, english: Mapping[str, str] | None = None) -> list[str]:
    """Keys of ``lang``'s catalogue whose English is gone or changed (hash differs), sorted."""
    english = sources() if english is None else english
    return sorted(
        k for k, (h, _) in catalogue(lang).items() if k not in english or text_hash(english[k]) != h
    )
