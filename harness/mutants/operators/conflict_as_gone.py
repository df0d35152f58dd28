"""conflict-as-gone: takes a 409, 410 or 422 for a 404 NotFound.

Anti-pattern: the "is it gone?" test of an API error compares the status code with ``>=``
(or accepts any 4xx "that means it is not there"), so a stale status write (409 Conflict) is
taken for a ModelService deleted under the operator's feet: the pass deletes the children of
a live ModelService, and the next one creates them anew, new UIDs, a new rollout, pods
restarted for nothing, every time the cache is a moment behind.

Why people write it: 404 is the only error the author had in mind, and a range test reads as
harmless; a 409 on a status write needs a second writer of the same object at the same
moment, which a test with one ModelService rarely produces.

What the correct operator does: only a 404 (apierrors.IsNotFound) means gone; a 409 is a
stale write, retried from a fresh read (CONTRACT.md step 7), and the children stay
(progressing-without-kubelet answers one status write with 409).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client as client_


def is_not_found_or_refused(err: BaseException) -> bool:
    # The mutant: 404 and every 4xx above it that the operator meets (409, 410, 422).
    return isinstance(err, client_.ApiError) and err.status in (404, 409, 410, 422)


PATCHES = (mutants.Patch(client_, "is_not_found", is_not_found_or_refused),)

if __name__ == "__main__":
    mutants.main(PATCHES)
