"""updates-immutable: keeps sending the Update of a Deployment whose immutable selector changed.

Anti-pattern: a Deployment of ours whose spec.selector differs from the one the operator sets
today (made by an earlier version, or changed by hand before an upgrade) is mutated and
updated like any other child. The API server refuses every such Update with 422 (field is
immutable), the reconcile fails, is retried with backoff, fails again, for ever: the
Deployment is never brought to the desired state and the status says nothing about it.

Why people write it: CreateOrUpdate hides the difference between mutable and immutable
fields, the selector never changes within one version of an operator, and the failure only
shows after an upgrade that changed the labels, on a cluster with the old objects.

What the correct operator does: it knows which fields it sets are immutable (a Deployment's
spec.selector; a Service's clusterIP and ipFamilies it never sets) and replaces a child whose
immutable field differs: one delete with the UID precondition and propagationPolicy
Background (the garbage collector takes the old ReplicaSets and pods), a ReplacingDeployment
Event, and a create in the pass that the delete event brings.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_


def no_immutable_change(
    resource: client_.Resource, live: controller.Obj, updated: controller.Obj
) -> str:
    # The mutant: every field is treated as mutable; the refused Update is retried for ever.
    return ""


PATCHES = (mutants.Patch(controller, "immutable_change", no_immutable_change),)

if __name__ == "__main__":
    mutants.main(PATCHES)
