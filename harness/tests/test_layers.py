"""The harness's layers, as contracts on its imports (issue 24, "Layers"; docs/design.md,
"Architecture"). Read from the sources with ``ast`` (``harness.tests.test_layout``'s scan:
every import at any depth, a lazy one inside a function too, since it still runs up a layer).

1. **Leaves import no harness package.** ``LEAVES`` (paths, say, runs, process, verdicts,
   junit, audit, tiers, checks) are what everything else stands on: they import only each other
   and nothing inside a package of ``harness`` (``harness.envtest``, ``harness.plugin``, ...).
2. **The lower packages import neither the plugin nor a command line.** ``harness.envtest``,
   ``harness.faults``, ``harness.existing``, ``harness.lab`` and ``harness.report`` import
   nothing of ``harness.plugin`` and no command-line module (``cli``, ``__main__``).
3. **envtest stands on the leaves alone.** ``harness.envtest`` (binaries, certificates, the
   control plane, the processes the harness owns) imports only its own modules and the
   leaves: ``existing`` (``existing/kind.py`` too) and ``suite`` build on it, never the
   reverse (``up --cluster kind`` is answered in ``harness.cli``, not in
   ``envtest/background.py``).
4. **No import-time cycle through a package.** Importing ``a.b.c`` runs ``a/__init__.py`` and
   ``a/b/__init__.py`` first: an ``__init__`` that imports, at import time, a module that
   imports the package back is a cycle even when no two modules import each other by name
   (the plugin's ``__init__`` and ``fixtures`` were one).

A violation that cannot go at once would be listed in ``EXCEPTIONS`` with why; the list is
empty (issue 24 moved the lab out of the plugin into ``harness/lab/``, ``process`` out of
``envtest`` to ``harness/process.py``, ``kind`` into ``existing/`` and the API proxy's overhead
measurement into ``bench/``). An exception that no longer happens fails the test too, so the
list only shrinks.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from harness.paths import REPO_ROOT
from harness.tests.test_layout import _imports, _modules

#: The leaf modules (contract 1).
LEAVES = frozenset(
    {
        "harness.paths",
        "harness.say",
        "harness.runs",
        "harness.process",
        "harness.verdicts",
        "harness.junit",
        "harness.audit",
        "harness.tiers",
        "harness.checks",
    }
)

#: The packages below the plugin and the command lines (contract 2).
LOWER = ("harness.envtest", "harness.faults", "harness.existing", "harness.lab", "harness.report")

#: The plugin (contract 2).
PLUGIN = "harness.plugin"

#: Known violations, as (importer, imported), each with why it waits: none.
EXCEPTIONS: dict[tuple[str, str], str] = {}


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Every project module's imports (``test_layout._imports``), scanned once."""
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _is_command_line(name: str) -> bool:
    return name.rsplit(".", 1)[-1] in ("cli", "__main__")


def leaf_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(leaf, what it imports) for every harness import of a leaf that is not a top-level
    leaf module (``harness.<name>``, itself in ``LEAVES``)."""
    return {
        (leaf, target)
        for leaf in LEAVES
        for target in graph.get(leaf, set())
        if _in(target, "harness") and not (target in LEAVES and target.count(".") == 1)
    }


def lower_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module of a LOWER package, what it imports) for every import of the plugin or of a
    command-line module."""
    return {
        (name, target)
        for name, targets in graph.items()
        if any(_in(name, p) for p in LOWER)
        for target in targets
        if _in(target, PLUGIN) or (_in(target, "harness") and _is_command_line(target))
    }


def envtest_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module of envtest, what it imports) for every harness import that is neither envtest's
    own nor a leaf."""
    return {
        (name, target)
        for name, targets in graph.items()
        if _in(name, "harness.envtest")
        for target in targets
        if _in(target, "harness") and not _in(target, "harness.envtest") and target not in LEAVES
    }


def _import_time_targets(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules and packages importing ``name`` runs at once: the imports of its
    top level (and class bodies, and ``if``/``try`` blocks there), not those inside functions
    or under ``if TYPE_CHECKING:``. ``from pkg import x`` counts for ``pkg.x`` when that is a
    module and for ``pkg`` itself (its ``__init__``, whose namespace it reads); ``from
    pkg.mod import x`` counts for ``pkg.mod`` only: a package above it has run its
    ``__init__`` before any of its submodules runs, so that edge closes no new cycle."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        visit([n for n in inner if isinstance(n, ast.stmt)])
                        for handler in inner:
                            if isinstance(handler, ast.ExceptHandler):
                                visit(handler.body)
                continue
            found.update(targets)

    visit(tree.body)
    return {t for t in found if t in modules and t != name}


def import_time_cycles() -> list[list[str]]:
    """Cycles of the import-time graph (``_import_time_targets``), packages as their
    ``__init__``."""
    from harness.tests.test_layout import _cycles

    modules = _modules()
    graph = {n: _import_time_targets(n, p, modules) for n, p in modules.items()}
    return _cycles(graph)


def test_leaves_import_no_harness_package() -> None:
    graph = _graph()
    assert "harness.process" in graph["harness.runs"], "the scan must see runs -> process"
    unexpected = leaf_violations(graph) - set(EXCEPTIONS)
    assert not unexpected, f"a leaf imports a harness package: {sorted(unexpected)}"


def test_lower_packages_import_neither_the_plugin_nor_a_command_line() -> None:
    found = lower_violations(_graph())
    unexpected = found - set(EXCEPTIONS)
    assert not unexpected, (
        f"envtest, faults, existing or report import the plugin or a command line: "
        f"{sorted(unexpected)}"
    )


def test_envtest_stands_on_the_leaves_alone() -> None:
    found = envtest_violations(_graph())
    assert not found - set(EXCEPTIONS), f"envtest imports above itself: {sorted(found)}"


def test_every_exception_still_happens() -> None:
    """An exception whose import is gone must leave the list: it would hide the next one."""
    graph = _graph()
    happening = leaf_violations(graph) | lower_violations(graph) | envtest_violations(graph)
    stale = sorted(set(EXCEPTIONS) - happening)
    assert not stale, f"these imports are gone: remove them from EXCEPTIONS: {stale}"


def test_no_import_time_cycle_through_a_package() -> None:
    assert import_time_cycles() == []


def test_the_contracts_see_a_violation() -> None:
    """Each reader flags what it must (on a made-up graph)."""
    graph = {
        "harness.checks": {"harness.paths", "harness.plugin.lab"},
        "harness.report.model": {"harness.junit", "harness.cli"},
        "harness.envtest.sim": {"harness.plugin.markers"},
        "harness.suite": {"harness.plugin.lab"},
    }
    assert leaf_violations(graph) == {("harness.checks", "harness.plugin.lab")}
    assert lower_violations(graph) == {
        ("harness.report.model", "harness.cli"),
        ("harness.envtest.sim", "harness.plugin.markers"),
    }
    graph["harness.envtest.background"] = {
        "harness.runs",
        "harness.envtest.binaries",
        "harness.existing.kind",
    }
    assert envtest_violations(graph) == {
        ("harness.envtest.sim", "harness.plugin.markers"),
        ("harness.envtest.background", "harness.existing.kind"),
    }


def test_an_init_that_imports_its_importer_is_a_cycle(tmp_path: Path) -> None:
    """The shape the plugin had: ``pkg/__init__.py`` imports ``pkg.b`` at import time, and
    ``pkg/b.py`` imports ``from pkg import a`` (which runs ``pkg/__init__`` first)."""
    from harness.tests.test_layout import _cycles

    (tmp_path / "pkg").mkdir()
    files = {
        "pkg": tmp_path / "pkg" / "__init__.py",
        "pkg.a": tmp_path / "pkg" / "a.py",
        "pkg.b": tmp_path / "pkg" / "b.py",
    }
    files["pkg"].write_text("from pkg.b import thing\n")
    files["pkg.a"].write_text("X = 1\n")
    files["pkg.b"].write_text("from pkg import a\n\n\ndef f():\n    from pkg import b\n")
    graph = {n: _import_time_targets(n, p, files) for n, p in files.items()}
    assert _cycles(graph) == [["pkg", "pkg.b"]]
    files["pkg"].write_text("def pytest_configure():\n    from pkg import b\n")
    graph = {n: _import_time_targets(n, p, files) for n, p in files.items()}
    assert _cycles(graph) == []


def test_the_scan_covers_the_tree() -> None:
    modules = _modules()
    assert {"harness.runs", "harness.plugin", "harness.lab.pool", "harness.cli"} <= set(modules)
    assert modules["harness.process"] == (REPO_ROOT / "harness" / "process.py")
