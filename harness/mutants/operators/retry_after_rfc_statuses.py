"""retry-after-rfc-statuses: honours Retry-After on 429 and 503 only, so a 500 (or 502, 504) that asks for a wait goes back to the work queue.

Anti-pattern: the client reads Retry-After only on the two statuses RFC 9110 names for it
(429 Too Many Requests, 503 Service Unavailable). Any other 5xx with the header, a 500 from
an API server whose storage is briefly unavailable or a 504 from a load balancer, becomes
an ordinary error: the work queue retries it 5 ms later, against a server that asked for
seconds of quiet.

Why people write it: the RFC's list looks like the whole rule, and the statuses a test
injects are 429 and 503.

What the correct operator does: any status of 500 or above, and 429, with a Retry-After of
whole seconds is sent again after that many seconds (client-go's checkWait,
rest/with_retry.go, v0.34; CONTRACT.md "Errors"); errors-retried[retry-after] answers the
finalizer update 500 with Retry-After: 2 and sees the next update no sooner than 2 s after.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness import mutants
from python_operator.runtime import client

_real_retry_after = client.retry_after_seconds


def rfc_statuses_only(status: int, headers: Mapping[str, str]) -> int | None:
    """The real reading, for 429 and 503 only."""
    return _real_retry_after(status, headers) if status in (429, 503) else None


PATCHES = (mutants.Patch(client, "retry_after_seconds", rfc_statuses_only),)

if __name__ == "__main__":
    mutants.main(PATCHES)
