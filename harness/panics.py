"""The suite-wide oracle "a reconcile never panics" (CONTRACT.md, "A reconcile never panics").

Every check, at the end of its body and while its operators still run, reads the log of each
operator process it started (``harness.plugin.hooks``) and fails if one logged a panic. What
counts as one:

- Go: controller-runtime v0.22 recovers a panic of Reconcile (``RecoverPanic`` defaults to
  true) and logs it with apimachinery's ``logPanic`` as the JSON line
  ``{"level": "error", "msg": "Observed a panic", "namespace": ..., "name": ..., "panic":
  "<value>", "stacktrace": "goroutine ..."}``; the key is then requeued and usually
  converges, so no other oracle sees it. A panic nobody recovers ends the process with Go's
  own ``panic: <value>`` line at the start of a line of stderr, followed by the goroutines.
- Python: ``python_operator/runtime/controller.py`` logs the same ``Observed a panic`` line for
  an exception escaping reconcile that is neither an API request's error nor one the
  reconciler declares (a TypeError, an AttributeError, a KeyError ...), with ``panic``:
  ``"<Type>: <text>"`` and the traceback as ``stacktrace``; its informer logs an event
  handler's exception as the same line (Go: client-go's ``HandleCrash`` logs it, then the
  panic ends the process).

A SIGKILL, a crash point's exit 86 or a ``Reconciler error`` (an error returned or raised as the
reconciler declares it) is no panic. The module reads text only, so a unit test can feed it
any log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

#: The message of the line controller-runtime (and the Python runtime) logs for a recovered
#: panic.
PANIC_MESSAGE = "Observed a panic"

#: Go's runtime, on a panic nobody recovers: ``panic: <value>`` at the start of a line.
_GO_UNRECOVERED = re.compile(r"^panic: ")

#: A frame of a Go stack: the function (its arguments, if any, cut off), then a tab and
#: ``file:line`` (and `` +0x..``) on the next line; both the goroutine dump of logPanic and
#: zap's own ``stacktrace`` are written so.
_GO_FRAME = re.compile(r"^(?P<func>[^\t\n(][^\n]*?)(?:\(.*\))?\n\t(?P<where>\S+)", re.M)

#: In a Python traceback, the innermost frame: ``File "<path>", line <n>, in <func>``.
_PY_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


class OperatorPanicked(AssertionError):
    """An operator process logged a panic during the check: the check's ``fail`` verdict (a
    kill in the mutant matrices), raised by ``assert_no_panics`` in this module, which the
    plugin counts as an oracle module (``harness.plugin.hooks.ORACLE_MODULES``)."""


def panic_lines(log: str) -> list[tuple[int, str]]:
    """The panics in one operator's log: ``[(line number from 1, summary), ...]`` in log
    order. A summary is ``Observed a panic (<namespace>/<name>): <panic> at <frame>`` for a
    recovered one (``at <frame>`` when the stack names where it panicked: Go's
    ``main.errorMessage /path/controller.go:1207``, Python's innermost ``path:line in func``),
    or the ``panic: ...`` line itself for one nobody recovered."""
    out: list[tuple[int, str]] = []
    for number, line in enumerate(log.splitlines(), start=1):
        if _GO_UNRECOVERED.match(line):
            out.append((number, line[:300]))
            continue
        if PANIC_MESSAGE not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("msg") != PANIC_MESSAGE:
            continue
        out.append((number, _summary(entry)))
    return out


def _summary(entry: dict[str, object]) -> str:
    key = f"{entry.get('namespace', '')}/{entry.get('name', '')}"
    text = f"{PANIC_MESSAGE} ({key}): {str(entry.get('panic', ''))[:200]}"
    frame = panicking_frame(str(entry.get("stacktrace", "")))
    return f"{text} at {frame}" if frame else text


def panicking_frame(stack: str) -> str:
    """Where a logged panic happened, from its ``stacktrace``: Go's goroutine dump gives the
    first frame below the runtime's ``panic`` that is not the runtime's, ``<func> <file>:<line>``; a Python
    traceback its innermost frame, ``<path>:<line> in <func>``. "" when neither is found."""
    go = [(m.group("func"), m.group("where")) for m in _GO_FRAME.finditer(stack)]
    starts = [i for i, (func, _) in enumerate(go) if func in ("panic", "runtime.gopanic")]
    if starts:
        for func, where in go[starts[0] + 1 :]:
            if not func.startswith("runtime."):
                return f"{func} {where}"
    frames = _PY_FRAME.findall(stack)
    if frames:
        path, line, func = frames[-1]
        return f"{path}:{line} in {func}"
    return ""


def assert_no_panics(logs: Iterable[tuple[str, str]]) -> None:
    """``logs``: ``(label, text)`` of each operator log a check used (label e.g.
    ``operator-0.log``). Raises OperatorPanicked naming every panic as ``<label>:<line>:
    <summary>`` (at most five, then how many more), or returns when there is none."""
    found = [
        f"{label}:{number}: {summary}"
        for label, text in logs
        for number, summary in panic_lines(text)
    ]
    if found:
        shown = found[:5] + ([f"... and {len(found) - 5} more"] if len(found) > 5 else [])
        raise OperatorPanicked(
            "an operator panicked during the check (a reconcile must never panic, "
            "CONTRACT.md 'A reconcile never panics'):\n  " + "\n  ".join(shown)
        )
