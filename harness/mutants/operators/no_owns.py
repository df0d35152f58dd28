"""no-owns: does not watch Deployments and Services.

Anti-pattern: the controller is registered with ``For(ModelService)`` only. It still reads
its children (from a cache, as before), but no change to a child ever enqueues the
ModelService: a deleted Service or a hand-edited replica count stays wrong until something
happens to the ModelService itself, or a periodic resync hours later.

Why people write it: the operator creates the children and feels it knows them; every
feature demo starts by editing the ModelService, which works. ``Owns`` looks like an
optional optimisation, and drift made by others is never part of the demo.

What the correct operator does: ``Owns(Deployment)`` and ``Owns(Service)``: an event on a
child enqueues the ModelService named in the child's controller ownerReference, and the
reconcile repairs the child from the spec.
"""

from __future__ import annotations

from harness import mutants
from python_operator import __main__ as operator_main
from python_operator import controller
from python_operator.runtime import manager


def setup_without_owns(
    mgr: manager.Manager, r: controller.ModelServiceReconciler, workers: int
) -> None:
    mgr.add_controller(
        name="modelservice",
        for_=controller.MODELSERVICES,
        owns=(),  # the mutant: no Owns(Deployment), no Owns(Service)
        reconciler=r,
        max_concurrent_reconciles=workers,
    )
    # Reads of the children still come from a cache: controller-runtime starts an informer
    # for a kind on its first Get, without routing its events anywhere.
    mgr.informer_for(controller.DEPLOYMENTS)
    mgr.informer_for(controller.SERVICES)


PATCHES = (mutants.Patch(operator_main, "setup_with_manager", setup_without_owns),)

if __name__ == "__main__":
    mutants.main(PATCHES)
