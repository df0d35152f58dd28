"""Mutants: deliberately wrong ModelService operators, each one anti-pattern that operator
authors really ship. A conformance check that no broken controller can fail is worth
nothing; running the suite against every mutant shows which check catches which mistake
(``python -m harness mutants``, ``make mutants``).

A mutant is the real Python operator with exactly one behaviour replaced. Each module here
in ``operators/`` is an entry point, ``python -m harness.mutants.operators.<name>`` (module name with underscores, mutant
id with dashes), that imports ``python_operator``, declares its replacement as ``PATCHES``
(a subclass that overrides one method, or a function that wraps or replaces one function)
and runs the real ``main`` with them applied. ``python_operator`` and ``go_reference`` carry
no mutant code paths: the replacements live here and are applied only in the mutant's own
process. ``mutants.toml`` declares every mutant as an implementation of the operator
contract, in the shape of ``harness/implementations.toml``, so the harness runs a mutant
exactly as it runs a real operator (its own user ``modeldock:<mutant>``).

Each module's docstring is its card in the report: a title line, then three labelled
paragraphs, ``Anti-pattern:``, ``Why people write it:``, ``What the correct operator does:``.

A mutant of the Go reference has an id ending in ``-go`` and one source file,
``go/<module>.go``, whose leading ``//`` comment is its card (the same shape) and whose
``init()`` replaces seams of ``go_reference/seams.go``; ``gobuild.py`` compiles it into the
reference with ``go build -overlay``, so ``go_reference`` carries no mutant code either.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
import tomllib
from pathlib import Path
from typing import Any

MUTANTS_FILE = Path(__file__).resolve().parent / "mutants.toml"

#: The labels of a mutant docstring's three paragraphs, in order, and their keys in mutants.json.
SECTIONS = (
    ("Anti-pattern:", "anti_pattern"),
    ("Why people write it:", "why"),
    ("What the correct operator does:", "correct"),
)


@dataclasses.dataclass(frozen=True)
class Patch:
    """Replace ``target.name`` (a module or class attribute of the real operator) with
    ``value`` in this process. The attribute must exist: a renamed seam in python_operator
    fails the mutant loudly instead of silently turning it into the real operator."""

    target: Any
    name: str
    value: Any

    def apply(self) -> None:
        if not hasattr(self.target, self.name):
            raise AttributeError(
                f"mutant seam {getattr(self.target, '__name__', self.target)}.{self.name} "
                "does not exist in python_operator any more; update the mutant"
            )
        setattr(self.target, self.name, self.value)


def run(patches: tuple[Patch, ...]) -> int:
    """Apply ``patches`` and run the real operator's main; return its exit code."""
    from python_operator import __main__ as operator_main

    for patch in patches:
        patch.apply()
    return operator_main.main()


def main(patches: tuple[Patch, ...]) -> None:
    """The body of a mutant module's ``if __name__ == "__main__"``."""
    sys.exit(run(patches))


# --------------------------------------------------------------------------- declarations
def module_name(mutant_id: str) -> str:
    """``always-update`` -> ``always_update``."""
    return mutant_id.replace("-", "_")


def module_path(mutant_id: str) -> Path:
    """The Python mutant's module, ``operators/<module>.py`` (it may not exist: see
    ``source_path``)."""
    return Path(__file__).resolve().parent / "operators" / f"{module_name(mutant_id)}.py"


#: The suffix of a Go mutant's id (``raw-quantities-go``): the mutant patches the Go
#: reference, and its source is ``go/<module>.go`` (``harness/mutants/gobuild.py``).
GO_SUFFIX = "-go"


def language(mutant_id: str) -> str:
    """``"go"`` for a mutant of the Go reference (its id ends in ``-go``), else ``"python"``:
    derived from the id, so that a mutant's declaration cannot say one and be the other."""
    return "go" if mutant_id.endswith(GO_SUFFIX) else "python"


def go_source_path(mutant_id: str) -> Path:
    """The Go mutant's source, ``go/<module>.go`` (it may not exist)."""
    return Path(__file__).resolve().parent / "go" / f"{module_name(mutant_id)}.go"


def source_path(mutant_id: str) -> Path:
    """The mutant's one source file: ``go/<module>.go`` for a Go mutant, else
    ``operators/<module>.py``."""
    return go_source_path(mutant_id) if language(mutant_id) == "go" else module_path(mutant_id)


#: ``declared``'s parsed files: path -> (the text parsed, its tables). Callers ask per mutant
#: (``runner.caught_by``, ``tiers_of``, ...), and parsing the file is about 40 ms: 255 mutants
#: asked once each took 10 s.
_PARSED: dict[Path, tuple[str, dict[str, dict[str, Any]]]] = {}


def declared(path: Path = MUTANTS_FILE) -> dict[str, dict[str, Any]]:
    """The tables of ``mutants.toml`` by mutant id, in file order: a copy of its own for each
    caller. Raises ValueError naming the file, the mutant and the key for a key that is neither
    an implementation's nor a mutant's (``harness.operators.IMPLEMENTATION_KEYS``,
    ``MUTANT_KEYS``). The file is read on every call and parsed again only when its text
    changed."""
    from harness.operators import IMPLEMENTATION_KEYS, MUTANT_KEYS, unknown_keys_problem

    text = path.read_text()
    hit = _PARSED.get(path)
    if hit is None or hit[0] != text:
        tables = dict(tomllib.loads(text))
        for mutant_id, table in tables.items():
            problem = unknown_keys_problem(
                path, mutant_id, table, IMPLEMENTATION_KEYS | MUTANT_KEYS
            )
            if problem:
                raise ValueError(problem)
        hit = _PARSED[path] = (text, tables)
    tables_copy: dict[str, dict[str, Any]] = _copied(hit[1])
    return tables_copy


def _copied(value: Any) -> Any:
    """``value`` (what tomllib gives: dicts, lists and immutable scalars) with every dict and
    list copied, several times faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def docstring(mutant_id: str) -> str:
    """The mutant's card: a Python mutant module's docstring, read from its source (the module
    is not imported, so nothing is patched), or a Go mutant's leading ``//`` comment block
    (``go_comment``)."""
    if language(mutant_id) == "go":
        return go_comment(go_source_path(mutant_id).read_text())
    tree = ast.parse(module_path(mutant_id).read_text())
    return ast.get_docstring(tree) or ""


def go_comment(source: str) -> str:
    """The ``//`` comment lines at the top of a Go file, before its first other line, with
    ``//`` and one space taken off each; a line of ``//`` alone is a paragraph break. This is
    a Go mutant's card, in the shape of a Python mutant's docstring."""
    lines: list[str] = []
    for line in source.splitlines():
        if not line.startswith("//"):
            break
        text = line[2:]
        lines.append(text[1:] if text.startswith(" ") else text)
    return "\n".join(lines).strip()


def sections(doc: str) -> dict[str, str]:
    """The three labelled paragraphs of a mutant docstring, by key (``anti_pattern``,
    ``why``, ``correct``), each on one line; a missing one is absent from the result."""
    paragraphs = [" ".join(p.split()) for p in doc.split("\n\n")]
    found: dict[str, str] = {}
    for label, key in SECTIONS:
        for p in paragraphs:
            if p.startswith(label):
                found[key] = p[len(label) :].strip()
                break
    return found
