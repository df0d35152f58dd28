"""retries-past-ten: sends a request again after every answer with Retry-After, with no limit on the number of retries.

Anti-pattern: the client's retry on Retry-After has no count: as long as the API server
answers 429 (or a 5xx) with the header, the request is sent again, and the reconcile never
learns that the server has been refusing it for a long time. With a short Retry-After (0 or
1 s, which priority and fairness sends) a worker spins on one request while the server sheds
load, and no Warning ever tells anyone.

Why people write it: "the server said to retry" looks like a reason to retry for ever, and
a test injects one refusal, not eleven.

What the correct operator does: at most 10 retries (11 attempts), then the last answer is
the request's error (client-go's Request.maxRetries, rest/request.go, v0.34; CONTRACT.md
"Errors"), which the reconcile reports as a refused write; errors-retried[retry-after-exhausted]
answers the Deployment's create 429 with Retry-After: 0 eleven times and looks for the
Warning.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client

PATCHES = (mutants.Patch(client, "MAX_RETRIES", 1_000_000),)

if __name__ == "__main__":
    mutants.main(PATCHES)
