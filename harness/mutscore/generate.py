"""Tool mutants: the list of mutations a mutation-testing tool derives from each operator's own
code, each with a stable id, and the mutated source of one of them.

Python: cosmic-ray (PyPI, pinned in pyproject.toml) lists, per module, every position where one
of its operators applies (``mutation_positions``) and applies one ``(operator, occurrence)`` to
a source text (``cosmic_ray.mutating.mutate_code``). Go: gremlins (``go install``, v0.6.0,
``GREMLINS_VERSION``) lists its mutations with ``unleash --dry-run`` (type and
``file:line:column`` of the token); the token swap it would make is its own table
(``GO_TOKEN_MUTATIONS``, copied from gremlins' ``internal/engine/mappings.go``), applied here
to a copy of the file. Neither tool runs any test here: the harness judges each mutant
(``harness.mutscore.score``).

A mutant's stable id names what it changes, not where: ``<lang>:<file>:<function>:<tool
operator>:<original>-><replacement>#<occurrence>``, where ``occurrence`` counts the mutants
with the same everything-else in source order (0 for the first). An edit elsewhere in the file
does not change the ids of the mutants it does not touch, so ``survivors.toml`` stays keyed.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import runs
from harness.paths import REPO_ROOT, cache_root

#: The files whose mutants are generated (repository-relative): the Python operator's
#: controller and the runtime modules its behaviour rests on (issue 25), the Go reference
#: without its tests.
PYTHON_SCOPE: tuple[str, ...] = (
    "python_operator/controller.py",
    "python_operator/runtime/workqueue.py",
    "python_operator/runtime/informer.py",
    "python_operator/runtime/controller.py",
    "python_operator/runtime/client.py",
    "python_operator/runtime/leaderelection.py",
    "python_operator/runtime/events.py",
)
GO_DIR = REPO_ROOT / "go_reference"

GREMLINS_VERSION = "v0.6.0"
GREMLINS_MODULE = "github.com/go-gremlins/gremlins/cmd/gremlins"

#: gremlins' token swaps, mutator type -> {original token: replacement}
#: (gremlins v0.6.0, internal/engine/mappings.go, ``tokenMutations``).
GO_TOKEN_MUTATIONS: dict[str, dict[str, str]] = {
    "ARITHMETIC_BASE": {"+": "-", "*": "/", "/": "*", "%": "*", "-": "+"},
    "CONDITIONALS_BOUNDARY": {">=": ">", ">": ">=", "<=": "<", "<": "<="},
    "CONDITIONALS_NEGATION": {"==": "!=", ">=": "<", ">": "<=", "<=": ">", "<": ">=", "!=": "=="},
    "INCREMENT_DECREMENT": {"--": "++", "++": "--"},
    "INVERT_ASSIGNMENTS": {"+=": "-=", "*=": "/=", "/=": "*=", "%=": "%=", "-=": "+="},
    "INVERT_LOGICAL": {"&&": "||", "||": "&&"},
    "INVERT_LOOPCTRL": {"break": "continue", "continue": "break"},
    "INVERT_NEGATIVES": {"-": "+"},
}


class GenerationError(RuntimeError):
    """A tool is missing or failed, or its list does not match the source it was made from."""


@dataclass(frozen=True)
class ToolMutant:
    """One mutation: ``lang`` ("python" or "go"), ``file`` (repository-relative), ``function``
    (qualified name of the innermost function or class around it, ``<module>`` at top
    level), ``operator`` (the tool's name for it), ``original`` and ``replacement`` (the changed
    text, whitespace collapsed), ``occurrence`` (see the module docstring), ``line`` (1-based),
    and what applies it: ``tool_occurrence`` (cosmic-ray's occurrence of the operator in the
    module) or ``column`` (gremlins' 1-based column of the token); ``context``: see below."""

    lang: str
    file: str
    function: str
    operator: str
    original: str
    replacement: str
    occurrence: int
    line: int
    tool_occurrence: int = -1
    column: int = 0
    #: where the mutation sits when that says something about it: ``annotation`` (inside a
    #: Python type annotation, which this code never evaluates), else ""
    context: str = ""

    @property
    def id(self) -> str:
        """The stable id (module docstring)."""
        return (
            f"{self.lang}:{self.file}:{self.function}:{self.operator}:"
            f"{self.original}->{self.replacement}#{self.occurrence}"
        )

    @property
    def key(self) -> str:
        """12 hex digits of the id's SHA-256: the mutant's folder and implementation id."""
        return hashlib.sha256(self.id.encode()).hexdigest()[:12]

    @property
    def impl_id(self) -> str:
        """The mutant's implementation id (``tm-py-<key>``, ``tm-go-<key>``)."""
        return f"tm-{'py' if self.lang == 'python' else 'go'}-{self.key}"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _changed(before: str, after: str) -> tuple[str, str]:
    """The differing middles of two texts (common prefix and suffix taken off, but not inside
    a word: ``True``/``False`` stay whole)."""
    i = 0
    while i < min(len(before), len(after)) and before[i] == after[i]:
        i += 1
    j = 0
    while j < min(len(before), len(after)) - i and before[-1 - j] == after[-1 - j]:
        j += 1
    while i > 0 and (before[i - 1].isalnum() or before[i - 1] == "_"):
        i -= 1
    while j > 0 and (before[len(before) - j].isalnum() or before[len(before) - j] == "_"):
        j -= 1
    return before[i : len(before) - j], after[i : len(after) - j]


def python_functions(source: str) -> list[tuple[int, int, str]]:
    """``(first line, last line, qualified name)`` of every function and class in ``source``,
    outer ones before the ones they contain."""
    out: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                out.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``((line, column), (end line, end column))`` (lines from 1, columns from 0) of every
    type annotation in ``source``: parameters', return values' and annotated assignments'."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        notes: list[ast.expr | None] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            every = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            notes += [x.annotation for x in every if x is not None] + [node.returns]
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        for n in notes:
            if n is not None:
                spans.append(((n.lineno, n.col_offset), (n.end_lineno or 0, n.end_col_offset or 0)))
    return spans


def enclosing(functions: Iterable[tuple[int, int, str]], line: int) -> str:
    """The innermost of ``functions`` (``python_functions``' shape) around ``line``, or
    ``<module>``."""
    best = "<module>"
    span = None
    for first, last, name in functions:
        if first <= line <= last and (span is None or last - first <= span):
            best, span = name, last - first
    return best


def _number(mutants: list[ToolMutant]) -> list[ToolMutant]:
    """The mutants with ``occurrence`` set: their rank among those of the same id otherwise,
    in (file, line, column, tool occurrence) order."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for m in sorted(mutants, key=lambda m: (m.file, m.line, m.column, m.tool_occurrence)):
        k = (m.lang, m.file, m.function, m.operator, m.original, m.replacement)
        n = seen.get(k, 0)
        seen[k] = n + 1
        out.append(
            ToolMutant(
                m.lang,
                m.file,
                m.function,
                m.operator,
                m.original,
                m.replacement,
                n,
                m.line,
                m.tool_occurrence,
                m.column,
                m.context,
            )
        )
    return out


# --------------------------------------------------------------------------- Python
def _slice(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    """The source between two parso positions ((line from 1, column from 0))."""
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    middle = "".join(lines[start[0] : end[0] - 1])
    return lines[start[0] - 1][start[1] :] + middle + lines[end[0] - 1][: end[1]]


def _python_replacement(operator: Any, original: str, index: int) -> str:
    """What a cosmic-ray operator puts in place of ``original`` (its ``index``-th mutation of
    the node), as a label: NumberReplacer's number, else the change its first example makes
    (``x + y`` -> ``x - y``: ``-``). The applied text comes from ``python_source``."""
    if operator.__name__ == "NumberReplacer":
        from cosmic_ray.operators.number_replacer import OFFSETS

        try:
            return str(eval(original) + OFFSETS[index])  # a number literal, as cosmic-ray does
        except (SyntaxError, TypeError, NameError, IndexError):
            return f"{original}+{index}"
    if operator.__name__ == "ExceptionReplacer":
        return "CosmicRayTestingException"
    special = {"AddNot": f"not {original}", "RemoveDecorator": "", "ZeroIterationForLoop": "[]"}
    if operator.__name__ in special:
        return special[operator.__name__]
    after = str(operator.examples()[0].post_mutation_code)
    if after.startswith("x ") and after.endswith(" y"):  # binary and comparison operators
        return after[2:-2]
    if after.endswith("1") and len(after) <= 6:  # unary operators: "-1", "not 1", " 1"
        return after[:-1].strip()
    return after.strip()


def _python_context(
    operator: str,
    original: str,
    start: tuple[int, int],
    notes: list[tuple[tuple[int, int], tuple[int, int]]],
) -> str:
    """``ToolMutant.context`` of a cosmic-ray mutation: ``annotation`` inside a type
    annotation; for AddNot, ``negated-comparison`` when it negates one comparison that ROR's
    negation already makes (``not a == b``), ``double-negation`` when the condition already
    starts with ``not`` (the removal of that ``not`` is the same mutant); else ""."""
    if any(a <= start < b for a, b in notes):
        return "annotation"
    if operator != "core/AddNot":
        return ""
    try:
        node = ast.parse(f"({original.strip()})", mode="eval").body
    except SyntaxError:
        return ""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return "double-negation"
    negated = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], negated):
        return "negated-comparison"
    return ""


def python_mutants(files: Iterable[str] = PYTHON_SCOPE, every: bool = False) -> list[ToolMutant]:
    """The cosmic-ray mutations of ``files`` (repository-relative) that the selection keeps
    (``harness.mutscore.selection``; ``every``: the tool's whole list), each with its stable
    id, numbered over the whole list so that the selection changes no id. Each is applied
    once here to learn its original and replacement text. Raises GenerationError if
    cosmic-ray is not installed (``make venv`` installs it)."""
    from harness.mutscore.selection import python_selected

    try:
        import cosmic_ray.plugins
        from cosmic_ray.ast import ast_nodes, get_ast
    except ImportError as exc:  # pragma: no cover - the venv has it
        raise GenerationError(f"cosmic-ray is not installed ({exc}): run make venv") from exc
    found: list[ToolMutant] = []
    for rel in files:
        source = (REPO_ROOT / rel).read_text()
        lines = source.splitlines(keepends=True)
        functions = python_functions(source)
        notes = annotation_spans(source)
        module_ast = get_ast(source)
        nodes = list(ast_nodes(module_ast))
        for name in sorted(cosmic_ray.plugins.operator_names()):
            cls = cosmic_ray.plugins.get_operator(name)
            if cls.arguments():  # operators that need configuration: not used
                continue
            op = cls()
            occurrence = 0
            for node in nodes:
                for index, (start, end) in enumerate(op.mutation_positions(node)):
                    original = _slice(lines, start, end)
                    found.append(
                        ToolMutant(
                            "python",
                            rel,
                            enclosing(functions, start[0]),
                            name,
                            _short(original),
                            _short(_python_replacement(cls, original, index)),
                            0,
                            start[0],
                            tool_occurrence=occurrence,
                            context=_python_context(name, original, start, notes),
                        )
                    )
                    occurrence += 1
    numbered = _number(found)
    return numbered if every else python_selected(numbered)


def python_listing(cache_dir: Path) -> list[ToolMutant]:
    """``python_mutants(every=True)`` (cosmic-ray's whole list), cached in ``cache_dir`` as
    ``cosmic-ray-<16 hex>.json`` by a hash of cosmic-ray's version, the scoped sources and
    this module (which numbers the ids), as ``gremlins_listing`` caches gremlins': the list
    takes 10 to 25 s to make on a loaded machine, and every run of the sample needs it."""
    import importlib.metadata

    digest = hashlib.sha256(importlib.metadata.version("cosmic-ray").encode())
    for rel in PYTHON_SCOPE:
        digest.update(rel.encode() + b"\0" + (REPO_ROOT / rel).read_bytes())
    digest.update(Path(__file__).read_bytes())
    path = cache_dir / f"cosmic-ray-{digest.hexdigest()[:16]}.json"
    if path.exists():
        return [ToolMutant(**d) for d in json.loads(path.read_text())]
    found = python_mutants(every=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    runs.write_text_atomic(path, json.dumps([dataclasses.asdict(m) for m in found]))
    return found


def python_source(mutant: ToolMutant) -> str:
    """The mutated text of the mutant's file. Raises GenerationError if cosmic-ray no longer
    applies it (the source changed since the list was made)."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    source = (REPO_ROOT / mutant.file).read_text()
    mutated = mutate_code(
        source, cosmic_ray.plugins.get_operator(mutant.operator)(), mutant.tool_occurrence
    )
    if mutated is None:
        raise GenerationError(f"{mutant.id}: cosmic-ray no longer applies it")
    return str(mutated)


# --------------------------------------------------------------------------- Go
def gremlins_path() -> Path:
    """Where the Makefile's ``go install`` puts gremlins: the tools cache."""
    return cache_root() / "tools" / f"gremlins-{GREMLINS_VERSION}" / "gremlins"


def ensure_gremlins() -> Path:
    """gremlins, installed with ``go install`` into ``gremlins_path()``'s folder if missing.
    Raises GenerationError with go's output when that fails."""
    path = gremlins_path()
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["go", "install", f"{GREMLINS_MODULE}@{GREMLINS_VERSION}"],
        env={**__import__("os").environ, "GOBIN": str(path.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not path.exists():
        raise GenerationError(f"go install gremlins failed:\n{proc.stdout}{proc.stderr}")
    return path


#: One mutation of ``gremlins unleash --dry-run``'s output: status, type, file:line:column.
GREMLINS_LINE = re.compile(
    r"^\s*(?P<status>[A-Z][A-Z ]+?)\s+(?P<type>[A-Z_]+) at (?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+)"
)


def parse_gremlins(output: str) -> list[tuple[str, str, int, int]]:
    """``(type, file, line, column)`` of every mutation in gremlins' dry-run output (the
    status, RUNNABLE or NOT COVERED by ``go test``, is not kept: the harness has its own
    coverage)."""
    return [
        (m["type"], m["file"], int(m["line"]), int(m["col"]))
        for m in map(GREMLINS_LINE.match, output.splitlines())
        if m
    ]


def go_token_at(source: str, line: int, column: int, mutator: str) -> str:
    """The token of ``mutator``'s table that starts at ``line``:``column`` (1-based, bytes as
    go/token counts them) of ``source``: the longest that matches. Raises GenerationError if
    none does."""
    text = source.encode().splitlines()[line - 1][column - 1 :].decode()
    for token in sorted(GO_TOKEN_MUTATIONS.get(mutator, {}), key=len, reverse=True):
        if text.startswith(token):
            return token
    raise GenerationError(f"{mutator} at {line}:{column}: no known token in {text[:20]!r}")


GO_FUNC = re.compile(r"^func\s+(?:\(\s*\w*\s*\*?(?P<recv>\w+)[^)]*\)\s*)?(?P<name>\w+)")


def go_function(source: str, line: int) -> str:
    """``Receiver.Method`` or ``function`` of the top-level ``func`` declaration above
    ``line``, or ``<package>`` when none is."""
    name = "<package>"
    for i, text in enumerate(source.splitlines(), 1):
        if i > line:
            break
        if m := GO_FUNC.match(text):
            name = f"{m['recv']}.{m['name']}" if m["recv"] else m["name"]
        elif text.startswith(("var ", "type ", "const ")):
            name = "<package>"
    return name


def go_sources_hash() -> str:
    """16 hex digits of a hash of go_reference's sources (``*.go`` but tests, go.mod, go.sum)
    and the gremlins version: the key of a cached listing."""
    digest = hashlib.sha256(GREMLINS_VERSION.encode())
    for path in [*sorted(GO_DIR.glob("*.go")), GO_DIR / "go.mod", GO_DIR / "go.sum"]:
        if not path.name.endswith("_test.go"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def gremlins_listing(cache_dir: Path) -> str:
    """``gremlins unleash --dry-run`` output for go_reference/ (with INVERT_LOGICAL and
    INVERT_LOOPCTRL, which are off by default), cached in ``cache_dir`` by
    ``go_sources_hash``. gremlins runs on a copy without the ``_test.go`` files: its dry run
    still runs ``go test -cover`` for its own coverage, which the harness does not use (the
    conformance suite's coverage decides, ``harness.mutscore.cover``), and the envtest tests
    would only add minutes. The copy is a private temporary folder, so two clones listing at
    once (the cache is shared across clones) cannot list one tree under the other's hash,
    and the listing is written atomically. Raises GenerationError when gremlins fails."""
    digest = go_sources_hash()
    cached = cache_dir / f"gremlins-{digest}.txt"
    if cached.exists():
        return cached.read_text()
    gremlins = ensure_gremlins()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"gremlins-src-{digest}-", dir=cache_dir) as tmp:
        return _list_copy(gremlins, Path(tmp), cached)


def _list_copy(gremlins: Path, copy: Path, cached: Path) -> str:
    """Copy go_reference/ (no tests) into ``copy``, run gremlins' dry run there and write its
    output to ``cached`` (through a temporary file and a rename); return the output."""
    for path in [*GO_DIR.glob("*.go"), GO_DIR / "go.mod", GO_DIR / "go.sum"]:
        if not path.name.endswith("_test.go"):
            shutil.copy2(path, copy / path.name)
    proc = subprocess.run(
        [str(gremlins), "unleash", "--dry-run", "--invert-logical", "--invert-loopctrl"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise GenerationError(f"gremlins unleash --dry-run failed:\n{proc.stdout}{proc.stderr}")
    part = copy / "listing.txt"
    part.write_text(proc.stdout + proc.stderr)
    os.replace(part, cached)
    return cached.read_text()


def go_mutants(listing: str) -> list[ToolMutant]:
    """Every gremlins mutation of go_reference/ (no tests) in ``listing`` (its dry-run output,
    ``gremlins_listing``), with its stable id. Raises GenerationError for a listed position
    with no token of its type."""
    found = []
    sources: dict[str, str] = {}
    for mutator, file, line, column in parse_gremlins(listing):
        name = Path(file).name
        if name.endswith("_test.go"):
            continue
        rel = f"go_reference/{name}"
        source = sources.setdefault(rel, (REPO_ROOT / rel).read_text())
        token = go_token_at(source, line, column, mutator)
        found.append(
            ToolMutant(
                "go",
                rel,
                go_function(source, line),
                mutator,
                token,
                GO_TOKEN_MUTATIONS[mutator][token],
                0,
                line,
                column=column,
            )
        )
    return _number(found)


def go_source(mutant: ToolMutant) -> str:
    """The mutated text of the Go mutant's file: its token swapped. Raises GenerationError if
    the token is no longer there."""
    source = (REPO_ROOT / mutant.file).read_text()
    if go_token_at(source, mutant.line, mutant.column, mutant.operator) != mutant.original:
        raise GenerationError(f"{mutant.id}: the source changed at {mutant.line}:{mutant.column}")
    lines = source.encode().splitlines(keepends=True)
    raw = lines[mutant.line - 1]
    at = mutant.column - 1
    lines[mutant.line - 1] = (
        raw[:at] + mutant.replacement.encode() + raw[at + len(mutant.original.encode()) :]
    )
    return b"".join(lines).decode()


def mutated_source(mutant: ToolMutant) -> str:
    """The mutant's file as the mutant has it (``python_source`` or ``go_source``)."""
    return go_source(mutant) if mutant.lang == "go" else python_source(mutant)


def python_overlay(mutant: ToolMutant, root: Path) -> Path:
    """``root/python_operator``: a copy of the Python operator (without its tests) with the
    mutant's file mutated; a process whose working directory is ``root`` imports this copy
    (``python -m`` puts it first on sys.path). Returns ``root``."""
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(
        REPO_ROOT / "python_operator",
        root / "python_operator",
        ignore=shutil.ignore_patterns("tests", "__pycache__"),
    )
    (root / mutant.file).write_text(python_source(mutant))
    return root


def compile_refused(problem: str, file: str) -> bool:
    """Whether ``prepare``'s ``problem`` is the compiler refusing the mutated file itself (a
    ``<name>.go:<line>:<col>:`` error of ``file``'s base name), the one build failure that
    makes a mutant ``not viable``: a failure of anything else (the machine out of memory or
    disk, a module download on a cold cache) says nothing of the mutant."""
    return re.search(rf"(^|/){re.escape(Path(file).name)}:\d+:\d+: ", problem, re.M) is not None
