"""assumes-causes: words a failed write by the answer's first cause, as if every answer had one: a bare 503 panics.

Anti-pattern: the Warning Event of a failed write (and the condition of a refused child write)
is worded from the API server's Status details, its first cause, without asking whether the
answer has details or causes at all. An answer without them, the API server's own 503
(apimachinery's NewServiceUnavailable builds a Status with no details) or any 500 without
causes, makes the reconcile fail with an exception of its own (Go: a nil pointer or an index
out of range), a panic the runtime recovers; the write is retried and converges, so only the
log tells.

Why people write it: every refusal a developer sees while writing the wording (a 422 Invalid,
an admission denial) lists its causes.

What the correct operator does: it uses the answer's message, and reads the causes only when
there are two or more to put in order (error_message; CONTRACT.md, "A reconcile never
panics").
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_

_error_message = controller.error_message  # the correct text, taken before the patch


def first_cause_message(err: Exception) -> str:
    if isinstance(err, client_.ApiError):
        # The mutant: every answer is taken to list at least one cause.
        field, text = err.causes[0]
        return f"{_error_message(err)} (first cause: {field}: {text})"
    return _error_message(err)


PATCHES = (mutants.Patch(controller, "error_message", first_cause_message),)

if __name__ == "__main__":
    mutants.main(PATCHES)
