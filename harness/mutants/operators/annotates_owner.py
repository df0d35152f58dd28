"""annotates-owner: labels the user's ModelService with who manages it.

Anti-pattern: when step 3 adds the finalizer, the operator also puts its
app.kubernetes.io/managed-by=modeldock label on the ModelService, the one it puts on the
children. The spec is untouched, so metadata.generation stays 1 and everything converges;
but the user's object now carries a label the user never wrote, which `kubectl apply` with
a pruning field manager, a GitOps tool comparing with the repository, or the user's own
label selectors see as drift nobody asked for.

Why people write it: `kubectl get modelservices -l app.kubernetes.io/managed-by=modeldock`
looks like a handy list of what the operator manages, and the finalizer update is "a write
of the object anyway".

What the correct operator does: the ModelService's spec, labels and annotations are the
user's; the operator's only writes of it are its finalizer and, through the status
subresource, its status. Whatever it wants to note goes into the status, or is recomputed.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import controllerutil

_add_finalizer = controllerutil.add_finalizer


def add_finalizer_and_label(obj: dict[str, Any], finalizer: str) -> bool:
    changed = _add_finalizer(obj, finalizer)
    labels = obj.setdefault("metadata", {}).get("labels") or {}
    obj["metadata"]["labels"] = {**labels, "app.kubernetes.io/managed-by": "modeldock"}
    return changed


PATCHES = (mutants.Patch(controllerutil, "add_finalizer", add_finalizer_and_label),)

if __name__ == "__main__":
    mutants.main(PATCHES)
