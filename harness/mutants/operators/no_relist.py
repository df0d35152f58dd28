"""no-relist: on 410 Gone it watches again from the same resourceVersion instead of relisting.

Anti-pattern: when a watch is answered 410 Gone (the resourceVersion it resumes from was
compacted away), the informer treats it like any other watch error: it backs off and
watches again from the same resourceVersion. That version never comes back, so every retry
gets 410 again, and the cache stays frozen at what it held before, blind to every change
since, deletions included.

Why people write it: a hand-rolled watch loop ("on error, sleep, watch again from the last
resourceVersion") survives every failure a developer sees in practice, a dropped connection
or an API server restart with its watch cache warm; 410 needs etcd compaction during an
outage, which no demo produces.

What the correct operator does: a 410 means the history is gone, so the informer relists:
it reads the whole collection again (a consistent list), replaces its cache, delivers the
differences (updates, additions, and deletions it never saw an event for) and watches from
the list's resourceVersion.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import informer


class NoRelistInformer(informer.Informer):
    def _watch(self) -> None:
        try:
            super()._watch()
        except informer._Expired as err:
            # The mutant: an expired watch is just another error; the run loop backs off and
            # watches again from self.resource_version, which is still the expired one.
            raise RuntimeError(
                f"watch from resourceVersion {self.resource_version} expired (410 Gone)"
            ) from err


PATCHES = (mutants.Patch(informer, "Informer", NoRelistInformer),)

if __name__ == "__main__":
    mutants.main(PATCHES)
