"""The documentation points only at things in the clone.

The pages a reader starts from (``README.md``, ``docs/*.md``, ``conformance/CONTRACT.md``)
must not send anyone outside the repository: every relative Markdown link resolves to a file
or folder (and, with a ``#fragment`` into a Markdown page, to one of its headings), every
repository path written in backticks (``harness/checks.py``) exists, and no file names the
design document the project started from, which lives outside the clone
(``docs/design.md`` replaced it). The checks tables list the ids of ``CHECK_ORDER`` in its
order, and ``docs/design.md`` keeps the section titles other files cite.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from harness.checks import CHECK_ORDER
from harness.paths import REPO_ROOT

#: The pages checked for links and paths.
PAGES = sorted(
    [
        REPO_ROOT / "README.md",
        REPO_ROOT / "conformance" / "CONTRACT.md",
        *(REPO_ROOT / "docs").glob("*.md"),
    ]
)

#: Folders that are not part of the clone's content: VCS data, tools' caches, and what runs
#: write (``build/``, ``reports/``). A path into ``build/`` or ``reports/`` names an output,
#: which a fresh clone does not have, so such paths are not required to exist.
SKIPPED_DIRS = {
    ".git",
    ".venv",
    "build",
    "reports",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "node_modules",
}
OUTPUT_DIRS = ("build/", "reports/")

#: Package folders being created on other branches of issue 10 (LAYOUT.md): the docs may name
#: them before they exist here. Remove an entry once its folder is on this branch.
PENDING = {
    "harness/report/": "branch report (harness/report.py and report_html.py as a package)",
    "harness/bench/": "branch bench (harness/bench.py as a package)",
}

#: Extensions that make a backticked word with a slash a file path even outside a known folder.
FILE_EXTENSIONS = (".py", ".md", ".toml", ".yaml", ".yml", ".go", ".json", ".html", ".txt")

#: Built from pieces so that this file does not mention it itself.
OUTSIDE_DESIGN = "DESIGN" + ".md"

#: The section titles of docs/design.md, in order; other files cite them by name.
DESIGN_SECTIONS = (
    "What ModelDock is",
    "Architecture",
    "The API",
    "The checks",
    "Mutants and the RBAC ablation",
    "Measurements",
    "Tiers",
    "How an implementation plugs in",
    "Adding a check",
    "Adding a mutant",
    "Adding a tier",
    "Glossary",
)

FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def prose(page: Path) -> str:
    """The page without its fenced code blocks (shell sessions, trees, examples)."""
    return FENCE.sub("", page.read_text())


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (``-`` and ``_`` kept),
    spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (a repeated heading gets ``-1``, ``-2``...)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in HEADING.findall(prose(page)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def relative_links(page: Path) -> list[str]:
    """The page's links that are neither URLs (``https:``, ``mailto:``) nor absolute paths."""
    return [
        t
        for t in LINK.findall(prose(page))
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t) and not t.startswith("/")
    ]


def top_level_names() -> set[str]:
    """The names at the top of the repository (``harness``, ``Makefile``, ...)."""
    return {p.name for p in REPO_ROOT.iterdir() if p.name not in SKIPPED_DIRS}


def repository_paths(page: Path) -> list[str]:
    """Backticked words that are repository paths: no spaces or placeholders, a slash, and
    either a top-level folder of the repository first or a file extension last. Paths into
    output folders (``reports/``, ``build/``) are left out."""
    tops = top_level_names()
    found = []
    for word in CODE.findall(prose(page)):
        if (
            re.search(r"[\s<>*{}$~|()\[\]\"'=,;]", word)
            or "/" not in word
            or word.startswith(("/", "./", "../"))
            or word.startswith(OUTPUT_DIRS)
        ):
            continue
        if word.split("/", 1)[0] in tops or word.endswith(FILE_EXTENSIONS):
            found.append(word)
    return found


def exists(path: str) -> bool:
    return (REPO_ROOT / path).exists() or path in PENDING


def page_id(page: Path) -> str:
    return str(page.relative_to(REPO_ROOT))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        rel = os.path.relpath(dest, REPO_ROOT)
        if path and not (dest.exists() or f"{rel}/" in PENDING):
            broken.append(f"{target}: no {rel}")
        elif fragment and dest.suffix == ".md" and dest.is_file() and fragment not in anchors(dest):
            broken.append(f"{target}: {rel} has no heading #{fragment}")
    assert not broken, f"{page_id(page)} links to what is not there:\n" + "\n".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_backticked_paths_exist(page: Path) -> None:
    missing = sorted({p for p in repository_paths(page) if not exists(p)})
    assert not missing, f"{page_id(page)} names paths that do not exist: {missing}"


def test_the_path_scan_finds_paths_and_skips_the_rest(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "See `harness/checks.py`, `conformance/` and `foo/bar.toml`; not\n"
        "`reports/bench.json`, `modeldock.io/cleanup`, `apps/deployments:create`,\n"
        "`harness/mutants/operators/<name>.py` or `make test`.\n"
        "```\nharness/in_a_fence.py\n```\n[up](../x.md) [web](https://x.org/a.md)\n"
    )
    assert repository_paths(page) == ["harness/checks.py", "conformance/", "foo/bar.toml"]
    assert relative_links(page) == ["../x.md"]
    assert (
        slug("`harness/envtest/`: binaries, certificates") == "harnessenvtest-binaries-certificates"
    )
    assert slug("How an implementation plugs in") == "how-an-implementation-plugs-in"


def files_in_clone() -> list[Path]:
    """Every file of the working tree but the skipped folders."""
    found = []
    for root, dirs, files in os.walk(REPO_ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        found += [Path(root) / f for f in files if f != ".git"]
    return found


def test_nothing_cites_the_design_document_outside_the_clone() -> None:
    """It lives outside the repository; cite docs/design.md (the project's own design) or
    conformance/CONTRACT.md (the operator contract) instead."""
    citing = []
    for path in files_in_clone():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # binaries
        lines = [n for n, line in enumerate(text.splitlines(), 1) if OUTSIDE_DESIGN in line]
        citing += [f"{path.relative_to(REPO_ROOT)}:{n}" for n in lines]
    assert not citing, (
        f"{OUTSIDE_DESIGN} is not in the repository; point these at "
        f"docs/design.md or conformance/CONTRACT.md:\n" + "\n".join(citing)
    )


def test_design_keeps_the_section_titles_others_cite() -> None:
    titles = re.findall(r"^## (.+)$", prose(REPO_ROOT / "docs" / "design.md"), re.M)
    assert tuple(titles) == DESIGN_SECTIONS


def check_table_ids(text: str) -> list[str]:
    """The check ids of a Markdown table whose rows start with a backticked id."""
    return list(dict.fromkeys(re.findall(r"^\| `([a-z0-9-]+)(?:\[[^`]*\])?`", text, re.M)))


@pytest.mark.parametrize("page", ["docs/checks.md", "docs/design.md"])
def test_checks_tables_follow_check_order(page: str) -> None:
    """Both pages list every check once, in CHECK_ORDER, and no id that no check has (the
    detailed table moved from README.md to docs/checks.md with the README's split)."""
    text = prose(REPO_ROOT / page)
    section = text[text.index("## The checks") :]
    section = section[: section.index("\n## ", 1)] if "\n## " in section[1:] else section
    assert check_table_ids(section) == list(CHECK_ORDER)


def test_make_help_lists_every_target_the_docs_name() -> None:
    """``make help`` is generated from the Makefile's ``## `` comments (kubebuilder's
    convention); every ``make <target>`` README.md or a page of docs/ names must be in it,
    with its comment."""
    import subprocess

    out = subprocess.run(
        ["make", "-s", "--no-print-directory", "help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    listed = {line.split()[1] for line in out.splitlines() if line.startswith("  make ")}
    named = {
        target
        for page in (REPO_ROOT / "README.md", *(REPO_ROOT / "docs").glob("*.md"))
        for target in re.findall(r"`make ([a-z][a-z0-9-]*)", page.read_text())
    }
    assert {"conformance", "test"} <= listed
    assert not named - listed, f"the docs name targets make help does not list: {named - listed}"
    for line in out.splitlines():
        if line.startswith("  make "):
            assert len(line.split(None, 2)) == 3, f"a target without its comment: {line!r}"


def test_readme_is_a_front_page() -> None:
    """README.md is for a newcomer (issue 24): at most 200 lines, the two commands in its first
    40, the picture of the report it shows present, and every page of docs/ linked from it,
    so what moved out of it is one click away. ``.ci/run`` still runs ``make test``, the
    command the README names as what CI runs."""
    text = (REPO_ROOT / "README.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines"
    top = "\n".join(lines[:40])
    assert "make conformance" in top and "make test" in top
    images = [t for t in LINK.findall(prose(REPO_ROOT / "README.md")) if t.endswith(".png")]
    assert images and all((REPO_ROOT / t).is_file() for t in images), images
    linked = {Path(t.partition("#")[0]).name for t in relative_links(REPO_ROOT / "README.md")}
    pages = {p.name for p in (REPO_ROOT / "docs").glob("*.md")}
    assert not pages - linked, f"docs pages README.md does not link: {sorted(pages - linked)}"
    assert re.search(r"^\s*make test\b", (REPO_ROOT / ".ci" / "run").read_text(), re.M)
