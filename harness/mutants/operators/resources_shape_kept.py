"""resources-shape-kept: keeps the resource fields a child has: limits or requests added to the ModelService later never reach it.

Anti-pattern: the desired resources are merged into the stored container field by field,
walking the fields the stored container has: a field it lacks (requests, when the
Deployment was created with limits only) is never added. Values of existing fields still
follow, so a raised limit is written; requests the user adds after convergence are dropped,
and the status says all is well while the pods run without them.

Why people write it: the merge keeps the stored spellings of equal values, and walking the
stored side is the natural way to find them; tests change a value after convergence, never
the shape of spec.resources.

What the correct operator does: the desired resources decide which fields there are; only
the spelling of an equal value is kept from the stored child (CONTRACT.md, "Desired
Deployment", Quantities), so requests added later are written in one update
(foreign-fields-kept).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller

_semantic_resources = controller.semantic_resources


def stored_shape(live: controller.Obj | None, want: controller.Obj) -> controller.Obj:
    result = _semantic_resources(live, want)
    have = live if isinstance(live, dict) else {}
    for field in ("limits", "requests"):
        if field not in have:
            # The mutant: a field the stored container lacks is not added.
            result.pop(field, None)
    return result


PATCHES = (mutants.Patch(controller, "semantic_resources", stored_shape),)

if __name__ == "__main__":
    mutants.main(PATCHES)
