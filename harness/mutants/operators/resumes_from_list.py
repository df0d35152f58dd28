"""resumes-from-list: every watch resumes from the last list's resourceVersion.

Anti-pattern: the informer remembers the resourceVersion of its list and never moves it on
with the watch's events (here ``Informer._handle`` puts back the version it had before each
event): a watch that broke resumes from the list, so the API server sends again every change
since then, and once that version is compacted away the resume is answered 410 and the
informer relists the whole resource.

Why people write it: resuming from the list looks safe (nothing is missed, a level-triggered
reconcile does not mind seeing a change twice), and on a quiet test cluster the replay is a
handful of events.

What the correct operator does: it resumes from the last resourceVersion it saw, bookmarks
included (client-go's reflector: ``setLastSyncResourceVersion`` on every event), or relists
(watch-recovers[connection-cut]: each resource's first watch after the cut asks for a version
no older than the last event it had delivered).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import informer

_handle = informer.Informer._handle


def handle_keeping_version(self: informer.Informer, event: informer.Obj) -> None:
    """The real handler, with the informer's resourceVersion put back as it was."""
    kept = self.resource_version
    try:
        _handle(self, event)
    finally:
        self.resource_version = kept


PATCHES = (mutants.Patch(informer.Informer, "_handle", handle_keeping_version),)

if __name__ == "__main__":
    mutants.main(PATCHES)
