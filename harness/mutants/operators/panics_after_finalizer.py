"""panics-after-finalizer: panics once the finalizer is on: the failed write's Event built with a None error.

Anti-pattern: after the update that added the finalizer succeeded, the reconcile goes on to
build the text of a failed write from the error it got, which is None: reading the error's
``reason`` raises AttributeError, an exception that is no error of the API and none the
reconciler declares, Python's panic. The controller recovers it as controller-runtime does,
logs "Observed a panic", requeues the key with backoff; the next reconcile finds the
finalizer on, skips step 3 and converges. Every outcome a check looks at is right.

Why people write it: it is what an inverted error test (a mutation tool's first move, or a
slip of the keyboard) does, and a recovered panic looks like one more retried error: the
operator converges a moment later, and nothing but its log says that it panicked.

What the correct operator does: it never panics, whatever it is given: a reconcile fails
only with an error of the API or one it declares (controller.RECONCILE_ERRORS), and the
suite fails any check during which an operator logged a panic (CONTRACT.md "A reconcile
never panics").
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_

_crash_point = controller.crash_point  # the real one, taken before the patch


def panicking_point(name: str) -> None:
    if name == "after-finalizer":
        err: client_.ApiError | None = None  # the update succeeded
        # The mutant: the failed write's Event text, built from an error that is not there.
        controller.failure_event("update", "ModelService", err.reason)  # type: ignore[union-attr, arg-type]
    _crash_point(name)


PATCHES = (mutants.Patch(controller, "crash_point", panicking_point),)

if __name__ == "__main__":
    mutants.main(PATCHES)
