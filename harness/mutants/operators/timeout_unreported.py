"""timeout-unreported: a write that ended at its deadline (a timeout) records no Warning.

Anti-pattern: the reconcile treats a timeout as noise: the write failed only because the
API server, or whatever stands in front of it, was slow, so it returns the error for the work
queue to retry and records nothing. A create that ended at its deadline after a 429 asked for
a longer wait leaves no trace a user can see, and an operator that times out on every try
reads as one that does nothing at all.

Why people write it: timeouts come and go, and a Warning for each looks like spam; a test
that only waits for convergence cannot tell a reported timeout from a quiet one.

What the correct operator does: a request that ends at its deadline is the write's error, a
failed write like any other: a Warning ``Failed<Verb>`` about the ModelService, then the
work queue's retry (CONTRACT.md, "Errors: answers that say 'not now'";
errors-retried[retry-after-deadline]).
"""

from __future__ import annotations

import urllib3

from harness import mutants
from python_operator import controller
from python_operator.runtime import events as events_

real_failed_write = controller.failed_write


def quiet_on_timeout(
    recorder: events_.Recorder, ms: controller.Obj, verb: str, what: str, err: Exception
) -> None:
    """The mutant: the real failed_write, except that a timeout records nothing."""
    if isinstance(err, (TimeoutError, urllib3.exceptions.TimeoutError)):
        return
    real_failed_write(recorder, ms, verb, what, err)


PATCHES = (mutants.Patch(controller, "failed_write", quiet_on_timeout),)

if __name__ == "__main__":
    mutants.main(PATCHES)
