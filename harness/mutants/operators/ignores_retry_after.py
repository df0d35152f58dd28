"""ignores-retry-after: treats a 429 or 503 that asks for a wait like any failure and retries within milliseconds.

Anti-pattern: the client does not read Retry-After: an answer 429 TooManyRequests or 503
ServiceUnavailable that says "ask again in R seconds" becomes an ordinary error, the work
queue retries the key 5 ms later, and the next request reaches an API server that asked for R
seconds of quiet a few milliseconds after it asked. (Here the client's reading of the header,
``runtime.client.retry_after_seconds``, never finds one: the Python operator before it
followed client-go.)

Why people write it: the official Python client's own retries are urllib3's, off in most
operators, and with them off nothing reads the header; error handling by status code alone
and the work queue's backoff look like enough, and nothing shows the difference until the API
server is overloaded, when its priority and fairness answers 429 with Retry-After to the
clients it is shedding.

What the correct operator does: it waits the Retry-After seconds and sends the same request
again, up to 10 times within the request's timeout, as client-go's REST client does
(rest.Request, v0.34); errors-retried[retry-after] sees the next request for that object no
sooner than R seconds after the answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness import mutants
from python_operator.runtime import client


def no_retry_after(status: int, headers: Mapping[str, str]) -> int | None:
    """Every answer is the request's error: Retry-After is never read."""
    return None


PATCHES = (mutants.Patch(client, "retry_after_seconds", no_retry_after),)

if __name__ == "__main__":
    mutants.main(PATCHES)
