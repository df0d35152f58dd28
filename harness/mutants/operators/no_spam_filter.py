"""no-spam-filter: the Event recorder counts and aggregates, but never drops: every occurrence
about an object is written, however many come in a burst.

Anti-pattern: the recorder keeps client-go's counting (a repeat patches the first Event) but
leaves out its spam filter, so an object whose reconciles record an Event every few
milliseconds (a spec flapping between two values, a controller fighting another over a
field) has its Event patched on every occurrence: a write per occurrence, all on the API
server and etcd.

Why people write it: the filter looks like an optimisation of a cache that already counts
repeats, its numbers (25, then one per 300 s) look arbitrary, and no test makes 26 Events
about one object.

What the correct operator does: as client-go's ``EventSourceObjectSpamFilter`` (tools/record
v0.34), a token bucket per source, involvedObject and type lets 25 occurrences through in a
burst, then one every 300 s; the others are dropped (CONTRACT.md, "Events"), so
``events-recorded[burst]`` counts 25 of 28 Normal occurrences about one ModelService.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import events


def never_filter(self: events.EventCorrelator, event: dict[str, Any]) -> bool:
    """The mutant: no occurrence is ever dropped."""
    return False


PATCHES = (mutants.Patch(events.EventCorrelator, "_filter", never_filter),)

if __name__ == "__main__":
    mutants.main(PATCHES)
