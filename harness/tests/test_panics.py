"""The suite-wide oracle "a reconcile never panics" (``harness.panics``, wrapped around every
check by ``harness.plugin.hooks.pytest_runtest_call``): which log lines are panics, and that a
check whose operator logged one gets the verdict ``fail`` (a kill), whatever its body did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import panics
from harness.mutants import runner

pytest_plugins = ["pytester"]

#: A Go panic as controller-runtime v0.22 logs it (cut from a gremlins mutant's log: the two
#: ``stacktrace`` keys, the goroutine dump and zap's own, are both there; JSON keeps the last).
GO_PANIC = json.dumps(
    {
        "level": "error",
        "msg": "Observed a panic",
        "controller": "modelservice",
        "namespace": "md-create",
        "name": "web",
        "panic": "runtime error: invalid memory address or nil pointer dereference",
        "stacktrace": "k8s.io/apimachinery/pkg/util/runtime.logPanic\n\t/m/runtime.go:142\n"
        "runtime.gopanic\n\t/usr/local/go/src/runtime/panic.go:860\n"
        "runtime.panicmem\n\t/usr/local/go/src/runtime/panic.go:336\n"
        "main.errorMessage\n\t/repo/go_reference/controller.go:1207\n"
        "main.failedWrite\n\t/repo/go_reference/controller.go:1185",
    }
)

#: The goroutine dump form (logPanic's own ``stacktrace``), arguments and offsets included.
GO_DUMP = (
    "goroutine 142 [running]:\nk8s.io/apimachinery/pkg/util/runtime.logPanic({0x1, 0x2})\n"
    "\t/m/runtime.go:132 +0xbc\npanic({0x1963a40?, 0x2d66550?})\n"
    "\t/usr/local/go/src/runtime/panic.go:860 +0x13a\nmain.errorMessage({0x0, 0x0})\n"
    "\t/repo/go_reference/controller.go:1207 +0x2d\n"
)

PY_PANIC = json.dumps(
    {
        "level": "error",
        "msg": "Observed a panic",
        "namespace": "md-create",
        "name": "web",
        "panic": "AttributeError: 'NoneType' object has no attribute 'reason'",
        "stacktrace": 'Traceback (most recent call last):\n  File "/r/runtime/controller.py", '
        'line 210, in reconcile_handler\n  File "/r/mutant.py", line 31, in formatted\n'
        "AttributeError: 'NoneType' object has no attribute 'reason'\n",
    }
)

NOT_PANICS = "\n".join(
    [
        json.dumps({"msg": "Reconciler error", "error": "panic: boom [recovered]"}),
        json.dumps({"msg": "crash point reached", "point": "after-finalizer"}),
        "a line that says Observed a panic but is no JSON",
        "  panic: indented, not Go's runtime",
    ]
)


def test_panic_lines_names_the_line_the_key_and_the_frame() -> None:
    log = "\n".join([NOT_PANICS, GO_PANIC, PY_PANIC, "panic: send on closed channel"])
    assert panics.panic_lines(log) == [
        (
            5,
            "Observed a panic (md-create/web): runtime error: invalid memory address or nil "
            "pointer dereference at main.errorMessage /repo/go_reference/controller.go:1207",
        ),
        (
            6,
            "Observed a panic (md-create/web): AttributeError: 'NoneType' object has no "
            "attribute 'reason' at /r/mutant.py:31 in formatted",
        ),
        (7, "panic: send on closed channel"),
    ]
    assert panics.panic_lines(NOT_PANICS) == []
    assert panics.panicking_frame(GO_DUMP) == (
        "main.errorMessage /repo/go_reference/controller.go:1207"
    )
    assert panics.panicking_frame("no stack") == ""


def test_assert_no_panics_names_each_log_and_line() -> None:
    panics.assert_no_panics([("operator-0.log", NOT_PANICS)])
    with pytest.raises(panics.OperatorPanicked, match=r"operator-1\.log:2: Observed a panic"):
        panics.assert_no_panics([("operator-0.log", ""), ("operator-1.log", "\n" + GO_PANIC)])
    assert issubclass(panics.OperatorPanicked, AssertionError)


CHECKS = '''
import types

import pytest
from harness.verdicts import PremiseFailed


class Pool:
    """Stands for an OperatorPool: the processes' log files, nothing to stop or account."""

    audit = None
    accounting = types.SimpleNamespace(requests=lambda: [])

    def __init__(self, *logs):
        self.started = [types.SimpleNamespace(log_path=p) for p in logs]

    def stop_operators(self):
        pass

    def namespaces(self):
        return ["ns"]


@pytest.fixture
def admin():
    return object()


@pytest.fixture
def namespace():
    return "ns"


@pytest.fixture
def operators(request, tmp_path):
    path = tmp_path / "operator-0.log"
    path.write_text(LOGS.get(request.node.name, ""))
    return Pool(path)


@pytest.mark.modeldock_check("clean")
def test_clean(operators):
    pass


@pytest.mark.modeldock_check("panicked")
def test_panicked(operators):
    pass


@pytest.mark.modeldock_check("premise-and-panic")
def test_premise_and_panic(operators):
    raise PremiseFailed("the fault was not injected")


@pytest.mark.modeldock_check("premise-only")
def test_premise_only(operators):
    raise PremiseFailed("the fault was not injected")


@pytest.mark.modeldock_check("oracle-and-panic")
def test_oracle_and_panic(operators):
    assert 1 == 2, "the operator wrote while nothing changed"
'''


def test_a_panic_fails_the_check_with_verdict_fail(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """A check whose body passed, or ended in a premise error, is failed by its operator's
    panic, with ``fail``: a kill. Its own oracle's failure stays what it was."""
    logs = {
        "test_clean": NOT_PANICS,
        "test_panicked": GO_PANIC,
        "test_premise_and_panic": PY_PANIC,
        "test_oracle_and_panic": GO_PANIC,
    }
    pytester.makepyfile(test_checks=CHECKS + f"\nLOGS = {logs!r}\n")
    xml = tmp_path / "junit.xml"
    result = pytester.runpytest_subprocess(
        f"--junitxml={xml}",
        "-p",
        "no:cacheprovider",
        f"--modeldock-artifacts-dir={tmp_path / 'artifacts'}",
    )
    res = runner.read_junit(xml)
    assert sorted(res.killed_by) == [
        "test_oracle_and_panic",
        "test_panicked",
        "test_premise_and_panic",
    ]
    assert res.errors == ["test_premise_only"]
    assert res.passed == ["test_clean"]
    out = result.stdout.str()
    assert "operator-0.log:1: Observed a panic (md-create/web): runtime error" in out
    assert "the operator wrote while nothing changed" in out
