"""list-not-notified: the informer's list adds objects to its cache but tells no handler.

Anti-pattern: the informer fills its cache from a list (at start, and again after a watch
could not resume: 410 Gone, a restart of the API server) and hands only the watch's events
to the handlers. An object that already existed when the operator started, or that was
created while its watch was down, sits in the cache and is never reconciled until something
else about it changes: a ModelService created during an operator upgrade gets no children.

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


PATCHES = (mutants.Patch(informer.Informer, "_replace", replace_without_adds),)

if __name__ == "__main__":
    mutants.main(PATCHES)
