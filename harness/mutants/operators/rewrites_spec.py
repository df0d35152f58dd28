"""rewrites-spec: writes the defaults it applies back into the user's spec.

Anti-pattern: when step 3 adds the finalizer, the operator also fills in what the user left
out, as it will use it: resource requests copied from the limits (what Kubernetes itself
does for a container with limits and no requests). The Update that carries the finalizer
carries the changed spec too, so metadata.generation moves to 2 although the user wrote the
spec once, and the children and status are built from the rewritten spec, so everything
still looks converged.

Why people write it: defaulting "in one place, visibly, in the object" looks tidier than
defaulting in memory on every reconcile, and a status with observedGeneration equal to
generation hides that the generation is not the user's.

What the correct operator does: the spec is the user's; the operator's only writes to the
ModelService are the finalizer (metadata) and the status (its subresource), and defaults are
applied in memory when it reads the spec (read_spec).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import controllerutil

_add_finalizer = controllerutil.add_finalizer


def add_finalizer_and_defaults(obj: dict[str, Any], finalizer: str) -> bool:
    changed = _add_finalizer(obj, finalizer)
    resources = obj.get("spec", {}).get("resources")
    if isinstance(resources, dict) and resources.get("limits") and not resources.get("requests"):
        resources["requests"] = dict(resources["limits"])
    return changed


PATCHES = (mutants.Patch(controllerutil, "add_finalizer", add_finalizer_and_defaults),)

if __name__ == "__main__":
    mutants.main(PATCHES)
