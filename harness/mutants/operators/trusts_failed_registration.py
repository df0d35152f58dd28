"""trusts-failed-registration: an answer with an id is taken for a registration, whatever its code.

Anti-pattern: the operator reads the catalog's answer for its ``id`` and checks the code only
when there is none, so a 500 whose body still carries an id (a catalog whose storage failed
after it chose one) is recorded in ``status.catalog`` as the registration. The catalog holds
no effect for that generation, the status says it does, and no retry ever comes: the
generation is never registered.

Why people write it: every answer a test catalog gives with an id is a success, and "parse
the body, use the id" reads shorter than a status check first.

What the correct operator does: only a 200 or a 201 with an id is a registration; any other
answer is a failure, retried with backoff under the same key (CONTRACT.md, "The model
catalog"); external-effect-once[server-error-id] has the catalog answer 500 with an id.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping

from harness import mutants
from python_operator import catalog


def trusting(self: catalog.CatalogClient, key: str, registration: Mapping[str, str]) -> str:
    """The mutant: CatalogClient.register returning the answer's id whatever its code."""
    req = urllib.request.Request(
        self.url + "/registrations",
        data=json.dumps(dict(registration)).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": key},
    )
    try:
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            code, data = resp.status, resp.read(1 << 20)
    except urllib.error.HTTPError as err:
        code, data = err.code, err.read(1 << 20)
    except (urllib.error.URLError, OSError) as err:
        raise catalog.CatalogError(f"catalog registration {key}: {err}") from err
    answer = json.loads(data or b"{}")
    if answer.get("id"):
        return str(answer["id"])
    raise catalog.CatalogError(f"catalog registration {key}: HTTP {code} without an id")


PATCHES = (mutants.Patch(catalog.CatalogClient, "register", trusting),)

if __name__ == "__main__":
    mutants.main(PATCHES)
