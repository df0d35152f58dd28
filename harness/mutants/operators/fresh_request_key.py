"""fresh-request-key: every attempt to register a generation with the catalog is a new request.

Anti-pattern: the operator makes up the idempotency key when it sends the request (a random
UUID per call), instead of deriving it from something durable. The catalog cannot tell a
retry from a new registration: when a registration was recorded and its answer lost (the
process killed while waiting, the status write that would have recorded it refused with a
409), the next reconcile registers the same generation again, and the catalog holds two
effects where there should be one.

Why people write it: a random key per request is what many client libraries' examples show,
it makes every request "idempotent" in name, and nothing fails without a crash or a conflict
at the wrong moment.

What the correct operator does: the key is the request's durable identity,
``<metadata.uid>/<metadata.generation>`` (python_operator.catalog.request_key), the same in
every attempt, process and leader, so the catalog answers a retry with the original
registration (CONTRACT.md, "The model catalog").
"""

from __future__ import annotations

import uuid
from typing import Any

import python_operator.catalog as catalog
from harness import mutants


def fresh_key(ms: dict[str, Any]) -> str:
    """A new key per call: the mutant."""
    return str(uuid.uuid4())


PATCHES = (mutants.Patch(catalog, "request_key", fresh_key),)

if __name__ == "__main__":
    mutants.main(PATCHES)
