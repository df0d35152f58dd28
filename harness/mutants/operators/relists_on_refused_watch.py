"""relists-on-refused-watch: takes every refused watch start for a 410 Gone and relists.

Anti-pattern: the informer answers any error at a watch's start with a relist, as if the
resourceVersion it asked for were gone. A 429 TooManyRequests from an overloaded API server
(priority and fairness shedding load) is then answered with a LIST, the most expensive
request an informer makes, exactly when the server asked for less.

Why people write it: a relist always works, and "when in doubt, start over" looks safe; a
test that refuses a watch only with 410 (or never) cannot tell.

What the correct operator does: it relists only when the resourceVersion is gone (410), and
after any other refusal retries the watch from where it was, after a backoff (client-go's
reflector, ``isWatchErrorRetriable``; here ``runtime.client.is_gone``);
watch-recovers[watch-refused] refuses one watch start 429 and wants no list before the next
watch.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client


def any_refusal_is_gone(err: BaseException) -> bool:
    """Every answer of the API server at a watch's start counts as 410 Gone."""
    return isinstance(err, client.ApiError)


PATCHES = (mutants.Patch(client, "is_gone", any_refusal_is_gone),)

if __name__ == "__main__":
    mutants.main(PATCHES)
