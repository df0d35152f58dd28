"""The twin files read side by side: ``go_reference/controller.go`` and
``python_operator/controller.py`` have the same section banners in the same order, the same
numbered steps in their Reconcile with the same titles, and those steps are the ones of
``conformance/CONTRACT.md``'s "Reconcile, step by step" (issue 24; both files' headers promise
it: "the same functions in the same order under the same section headers, the same steps
with the same numbers and titles").

Read from the sources as text. A *banner* is the comment line between two rule lines
(``// ====``/``# ====`` or ``// ----``/``# ----``, at any indentation); a *step title* a
``// <n>: <title>`` / ``# <n>: <title>`` comment. Identifiers in banners are compared in
snake_case (the Python names are the Go names in snake_case); the one section only Python has,
its last one ("Python only: ..."), is left out, as controller.go's header says.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.paths import REPO_ROOT

GO = REPO_ROOT / "go_reference" / "controller.go"
PYTHON = REPO_ROOT / "python_operator" / "controller.py"
CONTRACT = REPO_ROOT / "conformance" / "CONTRACT.md"

#: A rule line of a banner, by comment marker.
RULE = {"//": re.compile(r"^\s*//\s*(=|-){20,}\s*$"), "#": re.compile(r"^\s*#\s*(=|-){20,}\s*$")}
#: A step title in Reconcile, by comment marker: ``// 4: Ensure the Deployment``.
STEP = {
    "//": re.compile(r"^\s*//\s*([1-9]): (.+?)\s*$"),
    "#": re.compile(r"^\s*#\s*([1-9]): (.+?)\s*$"),
}
#: A step of CONTRACT.md's list: ``4. **Ensure the Deployment**``, also inside a line
#: (``then 5. **Ensure the Service**``).
CONTRACT_STEP = re.compile(r"(?:^|then )([1-9])\. \*\*([^*]+)\*\*", re.M)
#: The section only the Python file has (its last).
PYTHON_ONLY = "Python only:"


def snake(text: str) -> str:
    """``removeFinalizer`` -> ``remove_finalizer`` in every camelCase word (one that starts in
    lower case); other words, ``ModelService`` among them, unchanged."""
    return re.sub(
        r"\b[a-z][a-z0-9]*[A-Z]\w*\b",
        lambda m: re.sub(r"([A-Z])", lambda c: "_" + c.group(1).lower(), m.group(0)),
        text,
    )


def banners(path: Path, marker: str) -> list[str]:
    """The banner titles of a source file, in order, each in snake_case, with the comment
    marker and the surrounding spaces taken off."""
    lines = path.read_text().splitlines()
    rule = RULE[marker]
    found = []
    for before, line, after in zip(lines, lines[1:], lines[2:], strict=False):
        if rule.match(before) and rule.match(after) and not rule.match(line):
            found.append(snake(line.strip().removeprefix(marker).strip()))
    return found


def steps(path: Path, marker: str) -> list[tuple[int, str]]:
    """The numbered step titles of the file's Reconcile, in order."""
    pattern = STEP[marker]
    return [
        (int(m.group(1)), m.group(2))
        for m in map(pattern.match, path.read_text().splitlines())
        if m
    ]


def contract_steps() -> list[tuple[int, str]]:
    """The steps of CONTRACT.md's "Reconcile, step by step", in order."""
    text = CONTRACT.read_text()
    start = text.index("## Reconcile, step by step")
    section = text[start : text.index("\n## ", start + 1)]
    section = section[: section.index("\n### ")] if "\n### " in section else section
    return [(int(n), title.strip()) for n, title in CONTRACT_STEP.findall(section)]


def test_the_step_lists_are_found() -> None:
    """The readers find what they look for (a test that compares two empty lists proves
    nothing): seven steps in each file and the contract."""
    assert [n for n, _ in contract_steps()] == [1, 2, 3, 4, 5, 6, 7]
    assert len(steps(GO, "//")) == 7 and len(steps(PYTHON, "#")) == 7
    assert len(banners(GO, "//")) >= 8


def test_reconcile_steps_are_the_contracts_in_both_files() -> None:
    contract = contract_steps()
    assert steps(GO, "//") == contract
    assert steps(PYTHON, "#") == contract


def test_section_banners_are_equal_in_order() -> None:
    python = banners(PYTHON, "#")
    assert python and python[-1].startswith(PYTHON_ONLY), "Python's own section comes last"
    assert banners(GO, "//") == python[:-1]
    assert not any(b.startswith(PYTHON_ONLY) for b in python[:-1])


@pytest.mark.parametrize("path, marker", [(GO, "//"), (PYTHON, "#")], ids=["go", "python"])
def test_a_step_banner_names_the_contracts_title(path: Path, marker: str) -> None:
    """``Step 2: Finalize if being deleted ...`` and ``Steps 4 and 5: Ensure the Deployment,
    Ensure the Service`` carry the contract's titles of those steps, first."""
    titles = dict(contract_steps())
    checked = 0
    for banner in banners(path, marker):
        single = re.match(r"Step ([1-9]): (.+)$", banner)
        pair = re.match(r"Steps ([1-9]) and ([1-9]): (.+)$", banner)
        if single:
            assert single.group(2).startswith(titles[int(single.group(1))]), banner
            checked += 1
        elif pair:
            first, second = titles[int(pair.group(1))], titles[int(pair.group(2))]
            rest = pair.group(3)
            # the reconciler's banner names both steps; the helpers' section says what it holds
            assert rest == f"{first}, {second}" or rest.startswith("the desired children"), banner
            checked += 1
    assert checked >= 6, f"{path.name}: too few step banners found ({checked})"


def test_drift_is_caught() -> None:
    """A banner renamed in one file only, or a step retitled, is a difference the comparison
    sees (the readers are not blind to the text they compare)."""
    go = banners(GO, "//")
    renamed = [*go[:-1], go[-1] + " (renamed)"]
    assert renamed != banners(PYTHON, "#")[:-1]
    assert snake("removeFinalizer of the ModelService") == "remove_finalizer of the ModelService"
