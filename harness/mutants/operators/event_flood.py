"""event-flood: writes a new Event object every time, never counting repeats.

Anti-pattern: the operator's recorder creates an Event for every call: a child conflict met
on every poll, a create refused on every retry, each becomes another Event object with
``count: 1``. A problem that lasts an hour leaves hundreds of Events about one ModelService
in etcd (Events are kept for an hour), ``kubectl describe`` scrolls through the same line
over and over, and every retry of a failing write costs a second write for its Event.

Why people write it: with the official Python client, "record an Event" reads as
``CoreV1Api.create_namespaced_event(namespace, body)``: one call, and the Event shows up.
client-go's EventCorrelator (count and lastTimestamp patched into the existing Event,
similar messages aggregated, a per-object spam filter) is invisible in Go code that simply
calls ``recorder.Event``, so nobody thinks of rewriting it.

What the correct operator does: it records through a recorder with client-go's semantics:
the same Event again (same source, object, type, reason and message) is a PATCH of the first
one (``count + 1``, ``lastTimestamp``), ten different messages for one reason within ten
minutes are combined, and an object gets at most 25 Events in a burst, then one every five
minutes.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import events


class NoCorrelation(events.EventCorrelator):
    def correlate(self, event: events.Obj) -> events.CorrelateResult:
        # The mutant: no counting, no aggregation, no spam filter: every Event is created.
        return events.CorrelateResult(event=event)


PATCHES = (mutants.Patch(events, "EventCorrelator", NoCorrelation),)

if __name__ == "__main__":
    mutants.main(PATCHES)
