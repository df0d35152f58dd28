"""relist-ignores-new: a relist refreshes the objects the cache knew and drops the new ones.

Anti-pattern: after a watch ends with 410 Gone (its resourceVersion compacted away), the
informer lists again, but merges the list into its cache as "an update of what I had": the
objects it knew are refreshed (changes notified), the ones it knew and the list lacks are
deleted, and an object it never saw, created while it could not watch, is left out. Nothing
ever brings it back: the watch resumes from the relist's resourceVersion, after its creation,
so a ModelService created during the outage gets no children until someone edits it.

Why people write it: the relist is written as a repair of the cache (find what changed, find
what vanished), tested by changing and deleting known objects; an object born in the gap is the
case nobody stages.

What the correct operator does: a relist replaces the cache with the list, and every object in
it that the cache lacked is an add, notified like a watch's ADDED (client-go's
``DeltaFIFO.Replace``). Killed by watch-recovers[compaction-410], which creates a ModelService
while the operator's watches are held and compacts etcd before ending them.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import informer

_replace = informer.Informer._replace


def replace_known_only(
    self: informer.Informer, items: informer.ObjList, resource_version: str
) -> None:
    """The real replace; on a relist (the cache synced once already), only over the objects
    the cache holds: the mutant."""
    if self._synced.is_set():
        known = set(self.store.keys())
        items = [obj for obj in items if informer.key_of(obj) in known]
    _replace(self, items, resource_version)


PATCHES = (mutants.Patch(informer.Informer, "_replace", replace_known_only),)

if __name__ == "__main__":
    mutants.main(PATCHES)
