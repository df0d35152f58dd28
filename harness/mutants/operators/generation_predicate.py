"""generation-predicate: ignores child updates that do not change their generation.

Anti-pattern: the child watches are filtered with a generation-changed predicate (in Go,
``Owns(&appsv1.Deployment{}, builder.WithPredicates(predicate.GenerationChangedPredicate{}))``):
an update of a Deployment or Service enqueues the ModelService only when the child's
``metadata.generation`` moved, that is when its spec changed. A Deployment's status, written by
the deployment controller as Pods become Ready, never changes its generation, so the
ModelService never hears of it: it stays ``Ready=False`` with 0 available replicas until
something else happens to it.

Why people write it: the predicate is the standard cure for a controller that reconciles on
every status heartbeat, it cuts the reconcile count, and on envtest (no kubelet, no
deployment controller: a Deployment's status never changes) every check still passes. Only a
cluster where Pods become Ready shows that the status it ignores is the one the operator
reports from.

What the correct operator does: ``Owns(Deployment)`` without a generation filter: a change to
a child's status is a change to the world the ModelService's status describes, so it must
enqueue the owner. Creates and deletes of children are routed as before.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import controller as runtime_controller

_Enqueue = runtime_controller.EnqueueRequestForOwner


def _generation(obj: Any) -> Any:
    return ((obj or {}).get("metadata") or {}).get("generation")


class GenerationChangedOnly(_Enqueue):
    def on_update(self, old: Any, new: Any) -> None:
        if _generation(old) == _generation(new):
            return  # the mutant: a status-only update of a child is dropped
        super().on_update(old, new)


PATCHES = (mutants.Patch(runtime_controller, "EnqueueRequestForOwner", GenerationChangedOnly),)

if __name__ == "__main__":
    mutants.main(PATCHES)
