"""keeps-live-quantities: keeps a child's resource quantity once set: a new value never reaches it.

Anti-pattern: to stop the write loop of quantities spelled two ways (spec ``1000m``, stored
``1``), the operator keeps the stored quantity whenever the child already has one of that
name, comparing names instead of values. The loop is gone, and so is every change: a
ModelService whose CPU limit is raised keeps running with the old one, and a limit someone
edited on the Deployment by hand is never put back, while the status says nothing is wrong.

Why people write it: ``raw-quantities`` is the bug people meet first (a write on every
reconcile), and "keep what is stored" silences it; tests that create a ModelService and check
its Deployment never change a quantity afterwards.

What the correct operator does: it compares quantities by value (``1000m`` equals ``1``, Go's
equality.Semantic): the stored spelling is kept only when the values are equal, and a value
that differs, in the ModelService or on the child, is written in one update
(``foreign-fields-kept``).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import informer

_mutate_deployment = controller.mutate_deployment


def _server(deployment: controller.Obj) -> controller.Obj:
    containers = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    return next((c for c in containers.get("containers") or [] if c.get("name") == "server"), {})


def mutate_deployment_keeping_quantities(live: controller.Obj, desired: controller.Obj) -> None:
    before = informer.copy_obj(_server(live).get("resources") or {})
    _mutate_deployment(live, desired)
    after = _server(live).get("resources")
    # The mutant: a quantity the child already has, by name, stays as stored.
    for field in ("limits", "requests"):
        stored, wanted = before.get(field), (after or {}).get(field)
        if isinstance(stored, dict) and isinstance(wanted, dict):
            for name in wanted:
                if name in stored:
                    wanted[name] = stored[name]


PATCHES = (mutants.Patch(controller, "mutate_deployment", mutate_deployment_keeping_quantities),)

if __name__ == "__main__":
    mutants.main(PATCHES)
