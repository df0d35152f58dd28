"""status-from-memory: recomputes the status only when a generation changed; otherwise returns the status it computed last.

Anti-pattern: the operator keeps, per ModelService (by UID), the status it last computed and
what it was computed from: the ModelService's generation, the Deployment's UID and
generation, the conflict and the refusal it reported. When a reconcile finds the same ones,
it takes the remembered status instead of computing a new one: "nothing that I depend on
has changed". A change of the Deployment's status (the deployment controller's writes, which
move no generation) never reaches the conditions: the ModelService does not report a
rollout finishing, or a replica lost.

Why people write it: generations look like the one signal of change that Kubernetes offers,
and computing the status "only when something changed" saves work on every resync.

What the correct operator does: every reconcile computes the status from the Deployment as
its cache holds it now, status included, and writes it when it differs from the stored one.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status
_lock = threading.Lock()
#: metadata.uid -> (what the status was computed from, the status computed)
MEMORY: dict[str, tuple[Any, Any]] = {}


def compute_status_from_memory(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: Any,
    refused: Any = None,
) -> controller.Obj:
    dep_meta = (dep or {}).get("metadata") or {}
    basis = (
        ms["metadata"].get("generation"),
        dep_meta.get("uid"),
        dep_meta.get("generation"),
        conflict,
        str(refused) if refused is not None else None,
    )
    key = ms["metadata"]["uid"]
    with _lock:
        remembered = MEMORY.get(key)
        if remembered is not None and remembered[0] == basis:
            return copy.deepcopy(remembered[1])  # the mutant: "nothing I depend on changed"
    status = _compute_status(ms, spec, dep, conflict, now, refused)
    with _lock:
        MEMORY[key] = (basis, copy.deepcopy(status))
    return status


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_from_memory),)

if __name__ == "__main__":
    mutants.main(PATCHES)
