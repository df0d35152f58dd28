"""watch-ignores-retry-after: honours Retry-After on every request but a watch, whose refusal goes back to the informer's backoff.

Anti-pattern: the client waits for Retry-After on its ordinary requests, but a watch is
started by another code path (a streaming call) that raises the 429 at once; the informer
then retries after its own backoff (under a second), before the API server asked it to.
Under overload every informer of every operator does the same, and the watches come back
in a wave.

Why people write it: the retry lives in the request helper and the watch helper is written
apart, for streaming; a test injects Retry-After on writes only.

What the correct operator does: every request, a watch included, waits the seconds asked
for and is sent again by the client (client-go's rest.Request.Watch, v0.34; CONTRACT.md
"Errors"); watch-recovers[watch-retry-after] answers one watch start 429 with
Retry-After: 3 and sees the next watch no sooner than 3 s after.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from harness import mutants
from python_operator.runtime import client

_in_watch = threading.local()
_real_retry_after = client.retry_after_seconds
_real_watch = client.Client.watch


def retry_after_but_not_for_watches(status: int, headers: Mapping[str, str]) -> int | None:
    """The real reading, except while a watch is being started: no Retry-After."""
    return None if getattr(_in_watch, "on", False) else _real_retry_after(status, headers)


def watch_marked(self: client.Client, *args: Any, **kwargs: Any) -> client.WatchStream:
    """The real watch, started with the mark that makes its answers carry no Retry-After."""
    _in_watch.on = True
    try:
        return _real_watch(self, *args, **kwargs)
    finally:
        _in_watch.on = False


PATCHES = (
    mutants.Patch(client, "retry_after_seconds", retry_after_but_not_for_watches),
    mutants.Patch(client.Client, "watch", watch_marked),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
