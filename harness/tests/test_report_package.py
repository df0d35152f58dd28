"""The shape of the ``harness.report`` package, read from its source with ``ast``: the writers
import the model and never the reverse, no module imports the package's ``__init__`` or forms
an import cycle, every module stays small, public names have docstrings, and the static files
the HTML writer reads are package data an installed harness gets.
"""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from collections.abc import Sequence
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from harness import report
from harness.paths import REPO_ROOT

PACKAGE = Path(report.__file__).parent
NAME = "harness.report"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))
WRITERS = [m for m in MODULES if m == "markdown" or m == "html" or m.startswith("html_")]


def imports(module: str, package: Path = PACKAGE, modules: Sequence[str] = MODULES) -> set[str]:
    """The modules of the package that ``module`` imports (anywhere in it, functions
    included); ``__init__`` stands for the package itself (``from harness import report``,
    ``from harness.report import build``)."""
    tree = ast.parse((package / f"{module}.py").read_text())
    found: set[str] = set()

    def submodule(dotted: str) -> str:
        sub = dotted[len(NAME) + 1 :].split(".")[0]
        return sub if sub in modules else "__init__"

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == NAME:
                    found.add("__init__")
                elif alias.name.startswith(NAME + "."):
                    found.add(submodule(alias.name))
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:  # relative: resolve against the package
                target = ".".join([*NAME.split(".")[: 3 - node.level], *filter(None, [target])])
            if target == "harness" and any(a.name == "report" for a in node.names):
                found.add("__init__")
            elif target == NAME:
                found |= {a.name if a.name in modules else "__init__" for a in node.names}
            elif target.startswith(NAME + "."):
                found.add(submodule(target))
    found.discard(module)
    return found


def test_the_package_has_the_expected_modules() -> None:
    assert {"__init__", "model", "markdown", "html"} <= set(MODULES)
    assert not (PACKAGE.parent / "report.py").exists()
    assert not (PACKAGE.parent / "report_html.py").exists()


#: The parts of the model in modules of their own (read by ``sections``): they import no other
#: module of the package, and ``model`` imports only them.
MODEL_PARTS = {"bench_scaling", "exploration", "generated", "matrices", "mutation_score"}


def test_the_model_imports_no_writer() -> None:
    assert imports("model") <= MODEL_PARTS, "model.py imports only the model's parts"
    for part in MODEL_PARTS:
        assert imports(part) == set(), f"{part}.py, a part of the model, imports no module"
    assert imports("sections") <= {"model", *MODEL_PARTS}, "sections.py finishes the model"
    for writer in WRITERS:
        assert "model" in imports(writer), f"the writer {writer}.py reads the model"
        assert "sections" not in imports(writer), f"the writer {writer}.py reads no JSON"


def test_no_module_imports_the_package_init() -> None:
    for module in MODULES:
        if module != "__init__":
            assert "__init__" not in imports(module), f"{module}.py imports harness.report"


def test_the_markdown_writer_imports_no_html_module() -> None:
    assert not {m for m in imports("markdown") if m.startswith("html")}


def test_the_package_has_no_import_cycle() -> None:
    graph = {m: imports(m) for m in MODULES}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        pytest.fail(f"import cycle in harness.report: {exc.args[1]}")
    assert order.index("model") < min(order.index(w) for w in WRITERS)
    assert order.index("sections") < order.index("__init__")


def test_the_import_reader_sees_the_cycle_report_py_had(tmp_path: Path) -> None:
    """The test above would pass on imports it cannot read; this shows it catches the cycle
    the old report.py had: the writer importing the model, the model the writer inside a
    function."""
    (tmp_path / "model.py").write_text("def write_all():\n    from harness.report import html\n")
    (tmp_path / "html.py").write_text("from harness.report.model import write_all\n")
    (tmp_path / "markdown.py").write_text("from . import model\nfrom .model import write_all\n")
    mods = ["html", "markdown", "model"]
    assert imports("model", tmp_path, mods) == {"html"}
    assert imports("html", tmp_path, mods) == {"model"}
    assert imports("markdown", tmp_path, mods) == {"model"}
    with pytest.raises(CycleError):
        list(TopologicalSorter({m: imports(m, tmp_path, mods) for m in mods}).static_order())


def test_public_functions_and_classes_have_docstrings() -> None:
    missing = []
    for module in MODULES:
        for node in ast.parse((PACKAGE / f"{module}.py").read_text()).body:
            if not isinstance(node, ast.FunctionDef | ast.ClassDef) or node.name.startswith("_"):
                continue
            methods = (
                [
                    n
                    for n in node.body
                    if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
                ]
                if isinstance(node, ast.ClassDef)
                else []
            )
            missing += [
                f"{module}.{n.name}" for n in [node, *methods] if ast.get_docstring(n) is None
            ]
    assert missing == []


def test_the_public_surface_callers_use() -> None:
    for name in (
        "build",
        "write_all",
        "render_markdown",
        "write_markdown",
        "render_html",
        "write_html",
        "Report",
        "Result",
        "Call",
        "align",
        "bench_model",
        "kill_matrix",
        "rbac_ablation",
        "format_number",
        "key_evidence",
        "load_json",
        "PREMISES",
    ):
        assert hasattr(report, name), name
    assert sorted(report.__all__) == sorted(set(report.__all__))
    assert all(hasattr(report, n) for n in report.__all__)


def test_static_files_are_package_data() -> None:
    """Every file the HTML writer reads from static/ is declared in pyproject.toml, so a
    non-editable install has it, and reads back through importlib.resources."""
    from harness.report import html

    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"][NAME]
    files = sorted(p.name for p in (PACKAGE / "static").iterdir() if p.is_file())
    assert {"report.css", "report.js", "page.html"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(f"static/{name}", g) for g in globs), name
        assert html.static_text(name) == (PACKAGE / "static" / name).read_text(encoding="utf-8")
