"""waits-past-deadline: waits out a Retry-After whole, even past the request's timeout.

Anti-pattern: the client's wait for a Retry-After knows nothing of the request's deadline:
an answer asking for more seconds than the request has left holds the worker for all of
them, past REQUEST_TIMEOUT_SECONDS, and only then does the request end (here the request
is then sent again with no time left). One slow answer stalls a worker for as long as the
server cares to ask.

Why people write it: the wait and the request's timeout are written in two places (a retry
loop around a call that has its own timeout), and a Retry-After longer than the timeout
never comes in a test.

What the correct operator does: the wait is bounded by the request's deadline and ends there
with a timeout error, the request not sent again (client-go: the wait runs under the
request's context, whose deadline is the client's Timeout; CONTRACT.md "Errors");
errors-retried[retry-after-deadline] sees the next request for the object between 3 s (the
timeout) and 7 s (the Retry-After) after the refused one.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client

_real_wait = client.Client._wait_to_retry


def wait_without_deadline(
    self: client.Client, wait: float, deadline: float | None, error: client.ApiError
) -> None:
    """The real wait, told of no deadline: the whole Retry-After."""
    _real_wait(self, wait, None, error)


PATCHES = (mutants.Patch(client.Client, "_wait_to_retry", wait_without_deadline),)

if __name__ == "__main__":
    mutants.main(PATCHES)
