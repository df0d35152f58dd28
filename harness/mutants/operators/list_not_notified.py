"""list-not-notified: the objects the informer's lists bring reach no handler.

Anti-pattern: the informer fills its cache from a list (at start, and again after a watch
could not resume: 410 Gone, a restart of the API server) and hands only the watch's events
to the handlers: a handler registered on a warm cache is not told what the cache holds, and
a relist's new objects are not told either. An object that already existed when the operator
started, or that was created while its watch was down, sits in the cache and is never
reconciled until something else about it changes: a ModelService created during an operator
upgrade gets no children.

Why people write it: in a test the operator starts first and every object arrives as a watch
event; the list looks like mere cache warming, and diffing it against the store only to
notify "added" seems redundant.

What the correct operator does: a list is a source of events like the watch: every object it
brings that the cache did not hold is an add (client-go's DeltaFIFO Replace, Sync/Added), so
a ModelService that exists before the operator starts is reconciled at once
(progressing-without-kubelet creates it first).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import informer


def replace_without_adds(
    self: informer.Informer, items: informer.ObjList, resource_version: str
) -> None:
    _, updated, deleted = self.store.replace(items)
    self.resource_version = resource_version
    self._synced.set()
    for obj in deleted:
        self._notify("on_delete", obj)
    for old, new in updated:
        self._notify("on_update", old, new)
    # The mutant: the objects the list added are not notified.


def add_event_handler_without_replay(
    self: informer.Informer, handler: informer.EventHandler
) -> None:
    # The mutant: the objects the cache holds when the handler registers are not told.
    with self._handlers_lock:
        self._handlers.append(handler)


PATCHES = (
    mutants.Patch(informer.Informer, "_replace", replace_without_adds),
    mutants.Patch(informer.Informer, "add_event_handler", add_event_handler_without_replay),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
