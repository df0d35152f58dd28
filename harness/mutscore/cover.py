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

import hashlib
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness import runs, say
from harness.checks import CHECK_MARKER, base_check, case_functions, check_functions
from harness.mutscore import generate
from harness.paths import BUILD_DIR, CONFORMANCE_DIR, REPO_ROOT, cache_root

COVER_DIR = BUILD_DIR / "mutscore" / "cover"

_say = say.to("mutation-score")


class CoverageError(RuntimeError):
    """A coverage run that recorded no executed line of the operator for any check: every
    mutant would be reported "not covered" and the language's score silently empty."""


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
        "-m harness.mutscore.coverrun"
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


# --------------------------------------------------------------------------- the cache
def cache_dir() -> Path:
    """Where ``ensure_coverage`` keeps its results: ``<cache_root>/mutscore`` (with gremlins'
    listings), kept across clones, so a fresh clone of unchanged sources reuses them."""
    return cache_root() / "mutscore"


def judging_files(checks: Sequence[str], conformance_dir: Path = CONFORMANCE_DIR) -> list[Path]:
    """The conformance files a run of ``checks`` (ids, or ``id[case]``) executes: every module
    that is not a ``test_*.py`` (support, premises, reactions, ...), and each ``test_*.py``
    that marks a function with one of the checks' ids. A test file of other checks only is not
    among them: editing it moves no line these checks execute."""
    ids = {base_check(c) for c in checks}
    out = []
    for path in sorted(conformance_dir.glob("*.py")):
        if not path.name.startswith("test_"):
            out.append(path)
            continue
        text = path.read_text()
        if any(f'{CHECK_MARKER}("{i}"' in text for i in ids):
            out.append(path)
    return out


def coverage_key(lang: str, checks: Sequence[str]) -> str:
    """16 hex digits naming one coverage result: the judging ``checks``, the operator's
    sources (``generate.go_sources_hash``, or every ``python_operator/*.py``), this module
    (how coverage is taken) and ``judging_files``. A change anywhere else (docs, the harness's
    unit tests, another check's test file) keeps the key."""
    digest = hashlib.sha256(("base-cases:" + ",".join(sorted(checks))).encode())
    if lang == "go":
        digest.update(generate.go_sources_hash().encode())
    else:
        for path in sorted((REPO_ROOT / "python_operator").rglob("*.py")):
            digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0" + path.read_bytes())
    for path in [Path(__file__), *judging_files(checks)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cached_coverage(lang: str, checks: Sequence[str]) -> Path:
    """The cache file of ``lang``'s coverage of ``checks`` (``coverage_key``)."""
    return cache_dir() / f"coverage-{lang}-{coverage_key(lang, checks)}.json"


def ensure_coverage(
    langs: Sequence[str], checks: Sequence[str], state_path: Path, workers: int
) -> dict[str, dict[str, dict[str, list[int]]]]:
    """Per language, ``lines_by_check`` of a suite run of ``checks`` (each its base case, the
    testcase ``score.judge`` runs) against the coverage implementation on the control plane
    in ``state_path``, the languages side by side; from ``cached_coverage`` when its file
    exists. Raises subprocess.CalledProcessError when the Go cover build fails, CoverageError
    when a language's run recorded no line for any check (nothing is cached then)."""
    from harness.mutants.runner import select_checks
    from harness.suite import run_suite, stop_suites

    out: dict[str, dict[str, dict[str, list[int]]]] = {}
    todo = []
    for lang in langs:
        cached = cached_coverage(lang, checks)
        if cached.exists():
            out[lang] = json.loads(cached.read_text())
            _say(f"{lang} coverage from {cached}")
        else:
            todo.append(lang)
    if not todo:
        return out
    data_dir = runs.temp_dir("mutscore-cover")
    # the implementations file lives in the run's own temp dir: a shared one in build/ let two
    # runs of one clone write coverage into each other's dirs (one reaped under the other)
    impl_file = data_dir / "cover-impls.toml"
    impl_file.write_text(implementations(data_dir))
    if "go" in todo:
        build_go_cover()
    # each check's base case, as judge() runs (a check without one: all its cases)
    k = select_checks(checks, {**check_functions(), **case_functions()})
    logs = COVER_DIR.parent / "cover-reports"
    logs.mkdir(parents=True, exist_ok=True)

    # Set on Ctrl-C or SIGTERM: a coverage run cut short is neither used nor cached (its
    # missing lines would read as "not covered" in every later run).
    stopping = threading.Event()

    def one(lang: str) -> None:
        t0 = time.monotonic()
        run_suite(
            COVER_IDS[lang],
            state_path,
            logs,
            ["-n", str(workers), "--tb=line", "-k", k],
            [str(impl_file)],
            log=logs / f"pytest-{lang}.log",
        )
        if stopping.is_set():
            return
        out[lang] = lines_by_check(data_dir, lang)
        if not out[lang]:  # never cached: the next run must measure again
            raise CoverageError(
                f"{lang} coverage: the {COVER_IDS[lang]} run of {', '.join(checks)} recorded no "
                f"line of the operator under {REPO_ROOT} (its log: {logs / f'pytest-{lang}.log'}). "
                "Every check failed to start the operator, or the operator ran code from "
                "another checkout (a virtualenv shared with it: an editable install points "
                "there); run from a checkout with its own virtualenv (make venv)"
            )
        cached = cached_coverage(lang, checks)
        cached.parent.mkdir(parents=True, exist_ok=True)
        runs.write_text_atomic(cached, json.dumps(out[lang]))
        _say(f"{lang} coverage: {len(out[lang])} checks, {time.monotonic() - t0:.0f}s")

    try:
        with ThreadPoolExecutor(max_workers=len(todo)) as pool:
            try:
                list(pool.map(one, todo))
            except BaseException:  # Ctrl-C, SIGTERM: the coverage suites torn down at once
                stopping.set()
                stop_suites()
                raise
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return out
