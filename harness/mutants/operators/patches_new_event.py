"""patches-new-event: the recorder tries every Event as a patch first, and creates it only
when the patch is answered 404: two requests for each new Event.

Anti-pattern: "update, and create if missing" as the one write path of the recorder. It works
(the 404 leads to the create), but every new Event costs a PATCH the API server must answer
404 before the POST that stores it: twice the requests, and a 404 in the audit log and the
API server's metrics for every Event.

Why people write it: one code path for new and repeated Events looks simpler than telling
them apart, and the 404 fallback is needed anyway for a repeat whose Event is gone.

What the correct operator does: as client-go's ``recordEvent`` (tools/record v0.34), it
patches only an Event whose count is above 1 (a repeat the correlator counted) and creates a
new one (count 1) at once (CONTRACT.md, "Events"), so ``events-recorded[burst]`` counts one
patch answered 404 in the audit log, the deleted Event's.
"""

from __future__ import annotations

import contextlib
from typing import Any

from harness import mutants
from python_operator.runtime import client as client_
from python_operator.runtime import events

_record = events.Broadcaster._record


def patch_first(
    self: events.Broadcaster, event: dict[str, Any], patch: dict[str, Any] | None
) -> bool:
    """The mutant: a new Event is patched first (answered 404), then written as before."""
    if int(event.get("count") or 0) <= 1:
        with contextlib.suppress(client_.ApiError):
            self._sink.patch(event, {"count": 1})
    return _record(self, event, patch)


PATCHES = (mutants.Patch(events.Broadcaster, "_record", patch_first),)

if __name__ == "__main__":
    mutants.main(PATCHES)
