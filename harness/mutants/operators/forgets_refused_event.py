"""forgets-refused-event: an Event the API server refused is forgotten by the recorder, so its next occurrence starts a new count at 1.

Anti-pattern: the recorder counts only the Events the API server stored. When a write is
refused (403 from an admission policy, 422), the occurrence is dropped and its note in the
correlator is taken back (here: noted with count 0, as an occurrence never seen), so the next
occurrence of the same Event is a new Event of count 1 instead of the count so far.

Why people write it: "count what was written" sounds right, and a cache that keeps what the
API server refused looks like a leak of a failure; the refusal is rare and short, and the
count it loses is one number in ``kubectl describe``.

What the correct operator does: as client-go's recorder (tools/record v0.34), the correlator
notes each occurrence before it is written and keeps the note when the write is refused; the
next occurrence patches the never-stored Event, gets 404 and creates it with the count so far
(events-recorded[refused-event]: CreatedDeployment with count 2 after one refused).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import events

_record = events.Broadcaster._record


def record_forgetting_refusals(
    self: events.Broadcaster, event: dict[str, Any], patch: dict[str, Any] | None
) -> bool:
    """The real write; when it stored nothing (refused and dropped), the correlator's note of
    this occurrence is replaced by one of count 0, so the next occurrence is a new Event."""
    key = events.get_event_key(event)
    done = _record(self, event, patch)
    note = self.correlator._logs.get(key)
    if done and note is not None and not note.resource_version:
        self.correlator._logs.add(key, events._EventLog(0, "", "", ""))
    return done


PATCHES = (mutants.Patch(events.Broadcaster, "_record", record_forgetting_refusals),)

if __name__ == "__main__":
    mutants.main(PATCHES)
