"""retry-after-surfaces: waits the Retry-After an answer asks for, then hands the answer to the reconcile instead of sending the request again.

Anti-pattern: the client honours Retry-After only as a pause: after the wait it raises the
429 or 5xx it got, so the reconcile sees a refused write (a Warning Event, a Failed
condition), and the work queue sends a new request. The API server is asked again no sooner
than it asked, yet the user is told of a refusal that never was, and a write costs a failed
reconcile, a Warning and a status write where one wait would do.

Why people write it: a retry helper that sleeps before re-raising looks like it honours the
header, and a check that only times the next request cannot tell it from a real retry.

What the correct operator does: after the wait its client sends the same request again
itself, up to 10 times within the request's timeout (client-go's rest.Request, v0.34;
CONTRACT.md "Errors"), and the reconcile sees only the answer to that;
errors-retried[retry-after] finds no Warning Event about the ModelService.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client

_real_wait = client.Client._wait_to_retry


def wait_then_raise(
    self: client.Client, wait: float, deadline: float | None, error: client.ApiError
) -> None:
    """The real wait (deadline and stop included), then the answer raised instead of a retry."""
    _real_wait(self, wait, deadline, error)
    raise error


PATCHES = (mutants.Patch(client.Client, "_wait_to_retry", wait_then_raise),)

if __name__ == "__main__":
    mutants.main(PATCHES)
