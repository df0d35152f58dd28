"""relist-drops-deletions: a relist's deletions reach no event handler.

Anti-pattern: an object that disappeared while the watch was down is dropped from the cache
by the relist, but nobody is told (here ``Informer._replace`` notifies the relist's updates
and new objects, and skips ``on_delete`` for the keys that are gone): the owner of a child
deleted during a watch outage is never enqueued for it, and the child is not recreated until
something else about the owner changes.

Why people write it: a relist looks like "the same objects again", so notifying what it
brings feels complete; a deletion only ever shows this way after a watch outage long enough
to need a relist (client-go delivers it as a tombstone, ``DeletedFinalStateUnknown``, which a
hand-written handler easily ignores), and no demo has one.

What the correct operator does: the relist compares with the cache and fires ``on_delete``
for every key that is gone, with the last known object, whose controller ownerReference names
the owner to enqueue (watch-recovers[compaction-410]: the Service watch expires alone while
Service web is deleted, and only that relist's deletion can bring the repair).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import informer


def replace_without_deletions(
    self: informer.Informer, items: informer.ObjList, resource_version: str
) -> None:
    """Informer._replace without the relist's ``on_delete`` notifications."""
    added, updated, _deleted = self.store.replace(items)
    self.resource_version = resource_version
    self._synced.set()
    for old, new in updated:
        self._notify("on_update", old, new)
    for obj in added:
        self._notify("on_add", obj)


PATCHES = (mutants.Patch(informer.Informer, "_replace", replace_without_deletions),)

if __name__ == "__main__":
    mutants.main(PATCHES)
