"""conflict-as-refusal: takes a 409 on a child write for a refusal: FailedUpdate in the status.

Anti-pattern: every error answer of the API server to a child's create or update is reported
as a refused write: Ready and Progressing False with FailedCreate / FailedUpdate and the
server's message. A 409 Conflict (the write was based on an object that changed meanwhile)
then tells the user the spec is wrong when nothing is, and costs a status write per 409 and
another to take it back once the retry succeeds.

Why people write it: "the API server said no" looks like one case, and a 409 on a child write
needs two writers at once, which a quiet test cluster never has.

What the correct operator does: a 409 (Conflict, AlreadyExists) only says its cache was behind;
it returns the error for the work queue to retry from a fresher read, and reports nothing
(CONTRACT.md, step 7 and "A refused child write"). Only an answer other than 409 is a refusal.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_

_as_refused_write = controller.as_refused_write  # the correct rule, taken before the patch


def conflict_as_refusal(
    err: Exception, verb: str, what: str, live: controller.Obj | None
) -> controller.RefusedWrite | None:
    # The mutant: a 409 is a refusal like any other answer.
    if isinstance(err, client_.ApiError) and client_.is_conflict(err):
        return controller.RefusedWrite(err, *controller.failure_event(verb, what, err), live)
    return _as_refused_write(err, verb, what, live)


PATCHES = (mutants.Patch(controller, "as_refused_write", conflict_as_refusal),)

if __name__ == "__main__":
    mutants.main(PATCHES)
