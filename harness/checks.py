"""The conformance checks by id: their order, and where each is implemented.

A *check* is one claim about an operator with a stable id (``noop-stable``); a *case* is one
scenario of a check, written ``id[case]`` (``watch-recovers[connection-cut]``). A test function
in ``conformance/test_*.py`` declares what it checks with
``@pytest.mark.modeldock_check(id, case=...)`` (``CHECK_MARKER``).

``CHECK_ORDER`` is the one list of the ids, in the order a reader meets them (docs/design.md,
"The checks"): the order of the report's tables, of the kill matrix's columns and of the RBAC
ablation's output. A unit test keeps it equal to the ids the conformance suite declares.
"""

from __future__ import annotations

import ast
import functools
import math
import os
from pathlib import Path

from harness.paths import CONFORMANCE_DIR

#: The markers a conformance test carries (registered by ``harness.plugin.markers``): the check
#: it implements, what it needs from the cluster, and that it runs only with
#: ``--modeldock-full``. Prefixed like the plugin's options, so that they cannot collide with a
#: project's own ``check``, ``needs`` or ``slow`` marker (issue 24).
CHECK_MARKER = "modeldock_check"
NEEDS_MARKER = "modeldock_needs"
SLOW_MARKER = "modeldock_slow"

#: The environment variable that shortens the suite's convergence bound (seconds) for runs
#: whose operators are expected to fail: conformance/support.py reads it (CONVERGE_TIMEOUT),
#: the CI subsets of the kill matrix and the RBAC ablation set it (Makefile) and record it.
CONVERGE_TIMEOUT_ENV = "MODELDOCK_CONVERGE_TIMEOUT"


def converge_timeout(default: float) -> float:
    """The suite's convergence bound in seconds: ``default``, or the value of
    CONVERGE_TIMEOUT_ENV when it is set and not blank. Raises ValueError naming the variable
    for a value that is not a finite positive number (junk, 0, negative, nan, inf)."""
    raw = os.environ.get(CONVERGE_TIMEOUT_ENV, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(
            f"{CONVERGE_TIMEOUT_ENV}={raw!r}: give the convergence bound in seconds, "
            f"a positive number (unset: {default:.0f})"
        )
    return value


def converge_timeout_problem() -> str | None:
    """What is wrong with CONVERGE_TIMEOUT_ENV, in one line, or None when it is unset or a
    usable bound: the harness checks it before it starts anything, so a bad value is one line
    and exit code 2, not a collection error in every pytest worker after a control plane
    started (``harness.cli.main``)."""
    try:
        converge_timeout(60.0)
    except ValueError as exc:
        return str(exc)
    return None


def converge_timeout_override() -> str | None:
    """The value of CONVERGE_TIMEOUT_ENV in force for the suites this process starts, as given
    (None: the suite's own 60 s), for a run's report."""
    return os.environ.get(CONVERGE_TIMEOUT_ENV, "").strip() or None


#: Every check id, in reading order; ids not listed (a new check before it is added here)
#: sort after these.
CHECK_ORDER: tuple[str, ...] = (
    "create-converges",
    "noop-stable",
    "progressing-without-kubelet",
    "ready-with-kwok",
    "status-follows-rollout",
    "foreign-conditions-kept",
    "status-rebuilt",
    "user-object-kept",
    "stale-update-conflict",
    "restart-reconverges",
    "external-effect-once",
    "child-repaired",
    "foreign-fields-kept",
    "finalizer-ordered-delete",
    "deletion-policy",
    "garbage-collected",
    "namespace-deleted",
    "replaced-child-kept",
    "child-conflict",
    "vanished-owner",
    "invalid-rejected",
    "refused-write-reported",
    "parity",
    "watch-recovers",
    "waits-for-crd",
    "config-refused",
    "reconcile-isolated",
    "errors-retried",
    "leader-failover",
    "rbac-least-privilege",
    "events-recorded",
)


def base_check(name: str) -> str:
    """The check id of a check or case name: ``watch-recovers[connection-cut]`` ->
    ``watch-recovers``; a plain id is returned as it is."""
    return name.split("[", 1)[0]


def check_sort_key(name: str) -> tuple[int, str]:
    """Sort key putting check and case names in ``CHECK_ORDER`` (cases of one check by name,
    unknown ids last)."""
    base = base_check(name)
    rank = CHECK_ORDER.index(base) if base in CHECK_ORDER else len(CHECK_ORDER)
    return rank, name


def check_functions(conformance_dir: Path = CONFORMANCE_DIR) -> dict[str, list[str]]:
    """Check id (and ``id[case]``) -> names of the test functions that implement it, read from
    the ``@pytest.mark.modeldock_check(...)`` decorators in ``<conformance_dir>/test_*.py`` without
    importing them (so no fixture or cluster is needed). Each file is parsed once per content
    (``_marked``): the mutation score asks for every mutant, and a parse of the suite takes
    about a second on a loaded machine."""
    found: dict[str, list[str]] = {}
    for path in sorted(conformance_dir.glob("test_*.py")):
        stat = path.stat()
        for names, function in _marked(str(path), stat.st_mtime_ns, stat.st_size):
            for name in names:
                found.setdefault(name, []).append(function)
    return found


@functools.lru_cache(maxsize=256)
def _marked(path: str, _mtime_ns: int, _size: int) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The ``(check names, function name)`` pairs of one test file's marked functions; the
    modification time and size are part of the cache key, so an edited file is read again."""
    out: list[tuple[tuple[str, ...], str]] = []
    for node in ast.parse(Path(path).read_text()).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            if not (
                isinstance(dec, ast.Call)
                and isinstance(dec.func, ast.Attribute)
                and dec.func.attr == CHECK_MARKER
                and dec.args
                and isinstance(dec.args[0], ast.Constant)
            ):
                continue
            check = str(dec.args[0].value)
            case = next(
                (
                    str(k.value.value)
                    for k in dec.keywords
                    if k.arg == "case" and isinstance(k.value, ast.Constant)
                ),
                None,
            )
            out.append(((check, f"{check}[{case}]") if case else (check,), node.name))
    return tuple(out)


def case_functions(conformance_dir: Path = CONFORMANCE_DIR) -> dict[str, list[str]]:
    """Testcase name -> the test functions of exactly that testcase: ``id[case]`` -> the
    function marked with that case, and a bare ``id`` -> only the function(s) of the check's
    *base case* (marked without ``case=``), never its siblings. A check all of whose functions
    name a case (``deletion-policy``) has no base case, so its bare id is not a key here.

    This is what a name means in a mutant's ``caught_by`` (harness/mutants/mutants.toml) and
    in the kill matrix's testcase names: one testcase. ``check_functions`` is the other
    reading, a check with all its cases, which ``--check`` and ``CHECK=`` select."""
    cases = check_functions(conformance_dir)
    named = {f for name, fs in cases.items() if "[" in name for f in fs}
    out: dict[str, list[str]] = {}
    for name, functions in cases.items():
        own = functions if "[" in name else [f for f in functions if f not in named]
        if own:
            out[name] = own
    return out
