"""The conformance suite's waits stay bounded by named timeouts, and polls go through the one
polling helper.

Read from the source with ``ast``, without importing the checks:

- no numeric literal in a timeout: a ``timeout=`` (or ``*_timeout=``) keyword, the timeout
  positional of ``harness.kube.wait_for`` and of the other waits the checks call (the
  ``conformance.support`` helpers, ``OperatorProcess.wait_exit``, ``ApiProxy.wait_stats``,
  ...), or a ``timeout`` parameter's default. The bounds are the named constants of
  ``conformance/support.py`` (CONVERGE_TIMEOUT, REACT_TIMEOUT, ...), each with a comment
  saying what it bounds and why that value, or a check's own named constant;
- no ``time.sleep`` inside a ``while`` or ``for`` loop: a hand-rolled poll, where
  ``wait_for`` (or a support helper built on it) says what was awaited and what was last seen.

Where one is truly needed, the line says so and why: ``# style: allow-literal-timeout
<reason>`` or ``# style: allow-sleep-loop <reason>`` (on the literal's or the sleep's line,
or the loop's first line), the reason at least three words. The test reads the comment.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from harness.paths import CONFORMANCE_DIR, REPO_ROOT

#: The waits of the harness that the checks call, by the file that defines them: a call of
#: one of these names is checked at its ``timeout`` parameter's position.
HARNESS_WAITS = {
    "harness/kube.py": ("wait_for",),
    # not ``start``: OperatorPool.start, which the checks call as ``operators.start``, is
    # another function of that name
    "harness/operators.py": ("wait_exit", "wait_ready", "terminate"),
    "harness/faults/apiproxy/__init__.py": ("wait_stats",),
    "harness/audit.py": ("sync",),
}

ALLOW = re.compile(r"#\s*style:\s*allow-(literal-timeout|sleep-loop)\b(.*)$")


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.text}"


def _timeout_positions(source: str, names: tuple[str, ...] | None = None) -> dict[str, int]:
    """``{function name: positional index of its timeout parameter}`` for the functions (and
    methods, ``self`` not counted) defined in ``source`` that take ``timeout``; only ``names``
    if given."""
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef) or (names and node.name not in names):
            continue
        params = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        if params[:1] in (["self"], ["cls"]):
            params = params[1:]
        if "timeout" in params:
            out[node.name] = params.index("timeout")
    return out


def known_waits() -> dict[str, int]:
    """The waits the checks may call, with their timeout's positional index: every function of
    conformance/support.py that takes ``timeout``, and HARNESS_WAITS."""
    waits = _timeout_positions((CONFORMANCE_DIR / "support.py").read_text())
    for rel, names in HARNESS_WAITS.items():
        found = _timeout_positions((REPO_ROOT / rel).read_text(), names)
        assert set(found) == set(names), (
            f"{rel} no longer defines {set(names) - set(found)} "
            f"with a timeout parameter: update HARNESS_WAITS"
        )
        for name, index in found.items():
            assert waits.setdefault(name, index) == index, (
                f"{name} takes its timeout at two positions; HARNESS_WAITS cannot tell them apart"
            )
    return waits


def _literals(expr: ast.AST) -> list[ast.Constant]:
    return [
        n
        for n in ast.walk(expr)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, (int, float))
        and not isinstance(n.value, bool)
    ]


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_sleep(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "sleep"
        and isinstance(func.value, ast.Name)
        and func.value.id == "time"
    ) or (isinstance(func, ast.Name) and func.id == "sleep")


def _is_timeout_name(name: str | None) -> bool:
    return name is not None and (name == "timeout" or name.endswith("_timeout"))


def _calls_in_loop(loop: ast.For | ast.While) -> list[ast.Call]:
    """The calls in a loop's body, not those of functions defined in it (their own loops are
    visited on their own)."""
    out: list[ast.Call] = []
    todo: list[ast.AST] = [*loop.body, *loop.orelse]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call):
            out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def check_source(source: str, path: str, waits: dict[str, int]) -> list[Violation]:
    """The violations of the two rules in one module's ``source``, unless allowed with a
    reason (see the module docstring)."""
    lines = source.splitlines()
    found: list[Violation] = []

    def allowed(rule: str, *linenos: int) -> bool:
        for lineno in linenos:
            m = ALLOW.search(lines[lineno - 1]) if 0 < lineno <= len(lines) else None
            if m and m.group(1) == rule and len(m.group(2).split()) >= 3:
                return True
        return False

    def literal_in(expr: ast.AST, what: str, lineno: int) -> None:
        for lit in _literals(expr):
            if not allowed("literal-timeout", lit.lineno, lineno):
                found.append(
                    Violation(
                        path,
                        lit.lineno,
                        "literal timeout",
                        f"{lit.value!r} in {what}: use a named constant of "
                        f"conformance/support.py (or a check's own)",
                    )
                )

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            for kw in node.keywords:
                if _is_timeout_name(kw.arg):
                    literal_in(kw.value, f"{name}(..., {kw.arg}=...)", node.lineno)
            index = waits.get(name)
            if (
                index is not None
                and len(node.args) > index
                and not any(isinstance(a, ast.Starred) for a in node.args[: index + 1])
            ):
                literal_in(node.args[index], f"the timeout of {name}(...)", node.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = list(
                zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
            )
            pairs += [
                (a, d)
                for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                if d is not None
            ]
            for arg, default in pairs:
                if _is_timeout_name(arg.arg):
                    literal_in(default, f"the default of {node.name}({arg.arg}=...)", node.lineno)
        elif isinstance(node, (ast.For, ast.While)):
            for call in _calls_in_loop(node):
                if _is_sleep(call) and not allowed("sleep-loop", call.lineno, node.lineno):
                    found.append(
                        Violation(
                            path,
                            call.lineno,
                            "sleep in a loop",
                            f"a hand-rolled poll (loop at line {node.lineno}): "
                            f"use harness.kube.wait_for or a support helper",
                        )
                    )
    return sorted(found, key=lambda v: v.line)


# --------------------------------------------------------------------------- the suite
def test_conformance_has_no_literal_timeouts_and_no_sleep_loops() -> None:
    waits = known_waits()
    files = sorted(CONFORMANCE_DIR.glob("*.py"))
    assert any(f.name == "support.py" for f in files) and len(files) > 5, files
    found = [
        v for f in files for v in check_source(f.read_text(), str(f.relative_to(REPO_ROOT)), waits)
    ]
    assert not found, "\n".join(map(str, found))


def test_the_waits_the_checks_call_are_known() -> None:
    waits = known_waits()
    assert waits["wait_for"] == 2
    assert waits["wait_stats"] == 1
    assert waits["wait_exit"] == 0
    assert waits["wait_converged"] == 3
    assert waits["wait_settled"] == 1


def test_every_timing_constant_of_support_says_what_it_bounds() -> None:
    """Each of support.py's module-level timing constants has a ``#:`` comment above it."""
    path = CONFORMANCE_DIR / "support.py"
    lines = path.read_text().splitlines()
    timing = re.compile(r"_(TIMEOUT|PERIOD|WAIT|MARGIN|SLACK)$")
    names = []
    for node in ast.parse(path.read_text()).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and timing.search(node.targets[0].id)
        ):
            names.append(node.targets[0].id)
            above = lines[node.lineno - 2].strip()
            assert above.startswith("#:"), f"{node.targets[0].id} has no #: comment above it"
    assert {
        "CONVERGE_TIMEOUT",
        "REACT_TIMEOUT",
        "SETTLE_TIMEOUT",
        "QUIET_PERIOD",
        "EVENT_TIMEOUT",
    } <= set(names), names


# --------------------------------------------------------------------------- the rules
WAITS = {"wait_for": 2, "wait_converged": 3, "wait_exit": 0}


def _rules(source: str) -> list[tuple[int, str]]:
    return [(v.line, v.rule) for v in check_source(textwrap.dedent(source), "x.py", WAITS)]


def test_a_literal_in_a_timeout_is_found() -> None:
    assert _rules("""
        wait_for(fetch, ok, 60, "what")
        wait_for(fetch, ok, BOUND + 30, "what")
        wait_converged(admin, ns, "web", timeout=10)
        wait_converged(admin, ns, "web", 45.0)
        op.wait_exit(60)
        proxy.anything(settle_timeout=5)
        def helper(op, timeout=30.0): ...
        """) == [
        (2, "literal timeout"),
        (3, "literal timeout"),
        (4, "literal timeout"),
        (5, "literal timeout"),
        (6, "literal timeout"),
        (7, "literal timeout"),
        (8, "literal timeout"),
    ]


def test_named_timeouts_and_other_literals_pass() -> None:
    assert (
        _rules("""
        wait_for(fetch, lambda d: d["replicas"] == 2, CONVERGE_TIMEOUT, "what", 0.5)
        wait_for(fetch, ok, leader_timeout(LEASE), "what", interval=0.2)
        wait_converged(admin, ns, "web", timeout=left)
        def helper(op, timeout=SETTLE_TIMEOUT, quiet=QUIET_PERIOD): ...
        time.sleep(LATE_WRITES_WAIT)
        """)
        == []
    )


def test_a_sleep_in_a_loop_is_found() -> None:
    assert _rules("""
        while True:
            if done():
                break
            time.sleep(0.1)
        for _ in range(100):
            sleep(0.1)
        while x:
            def later():
                time.sleep(1)
        """) == [(5, "sleep in a loop"), (7, "sleep in a loop")]


def test_an_exception_needs_a_reason() -> None:
    assert _rules("""
        while True:  # style: allow-sleep-loop the one poll that must see every sample
            time.sleep(0.1)
        wait_for(fetch, ok, 60, "what")  # style: allow-literal-timeout the protocol fixes 60 s
        wait_for(fetch, ok, 60, "what")  # style: allow-literal-timeout
        for _ in range(3):
            time.sleep(1)  # style: allow-literal-timeout wrong rule, not this one
        """) == [(5, "literal timeout"), (7, "sleep in a loop")]
