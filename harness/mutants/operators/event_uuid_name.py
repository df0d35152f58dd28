"""event-uuid-name: every Event is named by a random UUID, not after the object it is about.

Anti-pattern: the recorder names each new Event with ``uuid.uuid4()`` (or lets the API
server's generateName pick a suffix), so the Event's name says nothing about its object or
when it was first seen: ``kubectl get events`` sorted by name is noise, and an Event cannot
be found from the object's name.

Why people write it: a UUID is the obvious unique name, and client-go's own fallback is one
(``util.GenerateEventName`` returns a UUID when ``<name>.<hex>`` is not a valid object name).

What the correct operator does: as client-go's recorder (tools/record v0.34,
``generateEvent``), it names an Event ``<involved object's name>.<unix nanoseconds, hex>``
(CONTRACT.md, "Events"), so ``events-recorded`` reads each Event's name against its
involvedObject.
"""

from __future__ import annotations

import uuid

from harness import mutants
from python_operator.runtime import events


def uuid_event_name(ref_name: str, seconds: float) -> str:
    """The mutant: a random UUID, whatever the object and the time."""
    return str(uuid.uuid4())


PATCHES = (mutants.Patch(events, "event_name", uuid_event_name),)

if __name__ == "__main__":
    mutants.main(PATCHES)
