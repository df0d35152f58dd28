"""forgets-gone-event: a repeat whose Event is gone (deleted, or expired after the API
server's event TTL) is not created again: the occurrence is lost.

Anti-pattern: the recorder treats a repeat as a patch and nothing else. When the patch is
answered 404 it takes the Event as written anyway (here: the create that should follow sends
nothing and returns the Event as if stored), so a ModelService whose Event an admin deleted,
or whose Event the API server expired after an hour, shows nothing more of that kind in
``kubectl describe`` for as long as the process lives.

Why people write it: "a repeat updates the Event we made" reads as complete, and the Event
going away under the recorder is rare: one hour of event TTL is longer than most tests.

What the correct operator does: as client-go's ``recordEvent`` (tools/record v0.34), a patch
answered 404 is followed by a create of the Event, under the same name with the count so far
and the first occurrence's firstTimestamp (CONTRACT.md, "Events"), so
``events-recorded[burst]`` sees the deleted UpdatedDeployment back with count 2.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import events

_create = events.ClientSink.create


def create_first_only(self: events.ClientSink, event: dict[str, Any]) -> dict[str, Any]:
    """The real create for a new Event (count 1); a repeat created after its patch was
    answered 404 is not sent, and returned as if stored."""
    if int(event.get("count") or 1) > 1:
        return event
    return _create(self, event)


PATCHES = (mutants.Patch(events.ClientSink, "create", create_first_only),)

if __name__ == "__main__":
    mutants.main(PATCHES)
