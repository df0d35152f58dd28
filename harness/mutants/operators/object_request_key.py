"""object-request-key: the catalog's idempotency key names the object, not the request.

Anti-pattern: the operator registers with the catalog under the ModelService's UID alone. The
key is durable, so a retry of one generation is recognised, but it is the identity of the
object, not of the request: a new generation (the user changed the spec) is taken by the
catalog for a retry of the first registration, answered with the original and never
registered, and the status claims a registration of generation 2 that the catalog never made.

Why people write it: "the UID is the durable identity" is the first half of the lesson; the
second half is that one object makes many requests, each of which needs its own.

What the correct operator does: ``<metadata.uid>/<metadata.generation>``
(python_operator.catalog.request_key): one identity per generation, the same in every attempt
of it (CONTRACT.md, "The model catalog").
"""

from __future__ import annotations

from typing import Any

import python_operator.catalog as catalog
from harness import mutants


def object_key(ms: dict[str, Any]) -> str:
    """The ModelService's UID, for every generation: the mutant."""
    return str(ms["metadata"].get("uid", ""))


PATCHES = (mutants.Patch(catalog, "request_key", object_key),)

if __name__ == "__main__":
    mutants.main(PATCHES)
