"""Set-up waits: a wait that stages the situation a check is about, whose timeout is an unmet
premise, not the operator failing the check.

A check first brings the world to where its experiment starts (the ModelService converged,
the operator settled), then stages its fault and judges what the operator does about it. If
the first part never happens, the check has judged nothing: the operator did not converge,
which is ``create-converges``' verdict to give, not this check's. Such a wait's timeout is
therefore verdict ``error`` (``harness.verdicts``): listed in the kill matrix, never a kill,
never holding a mutant's ``caught_by``, and written to JUnit as ``<error>`` with the wait's
message (``harness.junit.finish``). The waits themselves are ``conformance.support``'s; this
module only says which of their timeouts are premises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from harness.verdicts import PremiseFailed

T = TypeVar("T")


def set_up(wait: Callable[[], T], what: str) -> T:
    """Run ``wait()`` (a ``conformance.support`` wait, e.g. ``lambda: wait_converged(...)``)
    as a set-up step named ``what`` ("the ModelService to converge before the fault is
    staged"); return its value. Its AssertionError (the wait timed out) becomes
    ``PremiseFailed`` whose message names ``what`` and keeps the wait's own message (what it
    waited for, the last value seen), so the check's verdict is ``error``. Any other exception
    passes unchanged."""
    try:
        return wait()
    except AssertionError as exc:
        raise PremiseFailed.because(f"set-up: {what} timed out: {exc}") from exc
