"""Which conformance checks execute which line of each operator: the operators run once under
coverage during a normal suite run, one coverage record per operator process, filed under the
check that started it.

Every check creates its own namespace, ``md-<check id, 30 characters>-<6 hex>``
(``harness.lab.namespaces.create_namespace``), and runs its operators with that namespace as
``WATCH_NAMESPACE``. The coverage implementations (``implementations``) wrap the real operator
in a shell line that puts each process's coverage data in ``<dir>/<WATCH_NAMESPACE>/``:
Python under ``coverage run`` (coverage.py; ``sigterm = true``, so a SIGTERMed operator still
saves its data; a SIGKILLed one does not), Go built with ``go build -cover`` and ``GOCOVERDIR``
(written when the process exits; ``go tool covdata textfmt`` reads it). So one suite run gives
per-check coverage at no extra run: ``lines_by_check`` maps (file, line) -> the checks whose
operators executed it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from harness.checks import check_functions
from harness.paths import BUILD_DIR, REPO_ROOT

COVER_DIR = BUILD_DIR / "mutscore" / "cover"

#: coverage.py's configuration for the Python operator's processes.
COVERAGERC = """[run]
source = python_operator
sigterm = true
"""

#: The coverage implementations' ids (harness/implementations.toml's shape).
COVER_IDS = {"python": "cover-python", "go": "cover-go"}


def go_cover_binary() -> Path:
    """Where ``build_go_cover`` puts the Go reference built with ``-cover``."""
    return COVER_DIR / "modeldock-go-cover"


def build_go_cover() -> None:
    """``go build -cover`` of go_reference/ into ``go_cover_binary()``. Raises
    subprocess.CalledProcessError with go's output on failure."""
    go_cover_binary().parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["go", "build", "-cover", "-o", str(go_cover_binary()), "."],
        cwd=REPO_ROOT / "go_reference",
        check=True,
        capture_output=True,
        text=True,
    )


def implementations(data_dir: Path) -> str:
    """The TOML declaring ``cover-python`` and ``cover-go``: the real operators, each process's
    coverage written under ``data_dir/<lang>/<WATCH_NAMESPACE>/``."""
    rc = COVER_DIR / "coveragerc"
    rc.parent.mkdir(parents=True, exist_ok=True)
    rc.write_text(COVERAGERC)
    py_line = (
        'd="$2/${WATCH_NAMESPACE:-none}"; mkdir -p "$d"; '
        'exec "$0" -m coverage run --rcfile="$1" --parallel-mode --data-file="$d/cov" '
        "-m python_operator"
    )
    go_line = 'd="$1/${WATCH_NAMESPACE:-none}"; mkdir -p "$d"; GOCOVERDIR="$d" exec "$0"'
    # the harness formats every argument ({repo}, {python}): the shell's braces are doubled
    py_line, go_line = (x.replace("{", "{{").replace("}", "}}") for x in (py_line, go_line))
    return (
        "[cover-python]\n"
        'title = "Python operator under coverage.py"\n'
        f"command = {json.dumps(['sh', '-c', py_line, sys.executable, str(rc), str(data_dir / 'python')])}\n\n"
        "[cover-go]\n"
        'title = "Go reference built with -cover"\n'
        'workdir = "{repo}/go_reference"\n'
        f"command = {json.dumps(['sh', '-c', go_line, str(go_cover_binary()), str(data_dir / 'go')])}\n"
    )


def check_of(namespace: str, checks: Iterable[str]) -> str | None:
    """The check id whose namespace ``namespace`` is (``md-<id[:30]>-<6 hex>``), or None."""
    m = re.fullmatch(r"md-(.+)-[0-9a-f]{6}", namespace)
    if not m:
        return None
    label = m[1]
    for check in checks:
        if check[:30].replace("_", "-") == label:
            return check
    return None


def python_lines(process_dir: Path) -> dict[str, set[int]]:
    """Repository-relative file -> executed lines, from the coverage.py data files in
    ``process_dir``."""
    import coverage

    out: dict[str, set[int]] = {}
    for path in process_dir.glob("cov*"):
        data = coverage.CoverageData(basename=str(path))
        data.read()
        for name in data.measured_files():
            try:
                rel = str(Path(name).resolve().relative_to(REPO_ROOT))
            except ValueError:
                continue
            out.setdefault(rel, set()).update(data.lines(name) or ())
    return out


def go_lines(process_dir: Path) -> dict[str, set[int]]:
    """Repository-relative file -> lines inside a block that ran, from the GOCOVERDIR data in
    ``process_dir`` (``go tool covdata textfmt``)."""
    if not any(process_dir.iterdir()):
        return {}
    text_file = process_dir / "cover.txt"
    subprocess.run(
        ["go", "tool", "covdata", "textfmt", f"-i={process_dir}", f"-o={text_file}"],
        cwd=REPO_ROOT / "go_reference",
        check=True,
        capture_output=True,
    )
    out: dict[str, set[int]] = {}
    for line in text_file.read_text().splitlines()[1:]:
        m = re.fullmatch(r".*/([^/]+\.go):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)", line)
        if m and int(m[4]) > 0:
            out.setdefault(f"go_reference/{m[1]}", set()).update(range(int(m[2]), int(m[3]) + 1))
    return out


def lines_by_check(data_dir: Path, lang: str) -> dict[str, dict[str, list[int]]]:
    """check id -> file -> sorted executed lines, for ``lang``'s coverage under ``data_dir``
    (``implementations``). Namespaces that are no check's (a preflight) are left out."""
    checks = list(check_functions())
    base = {c.split("[", 1)[0] for c in checks}
    out: dict[str, dict[str, set[int]]] = {}
    root = data_dir / lang
    for process_dir in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        check = check_of(process_dir.name, sorted(base))
        if check is None:
            continue
        lines = python_lines(process_dir) if lang == "python" else go_lines(process_dir)
        for file, numbers in lines.items():
            out.setdefault(check, {}).setdefault(file, set()).update(numbers)
    return {c: {f: sorted(n) for f, n in files.items()} for c, files in out.items()}


def checks_at(
    by_check: Mapping[str, Mapping[str, Iterable[int]]], file: str, line: int
) -> list[str]:
    """The checks of ``by_check`` (``lines_by_check``) that executed ``file``:``line``."""
    return sorted(c for c, files in by_check.items() if line in set(files.get(file, ())))
