"""respelled-written: compares a child's quantities as text: an equal respelling of the ModelService is written.

Anti-pattern: the desired Deployment's resources replace the stored ones as they are, so the
comparison that decides whether to write sees two texts. An unchanged ModelService still
compares equal (the operator writes the text the API server stores for the spelling), but a
ModelService whose user respells a value (5e8 to 500000000, the same number) makes the
operator update the Deployment from 500e6 to 500M: a write, an Event and a new
resourceVersion for nothing, and with a deployment controller a rollout of every pod.

Why people write it: the desired text equals the stored text for every spec a test creates,
so a no-op reconcile is quiet; only a change of spelling after convergence tells text from
value.

What the correct operator does: it compares quantities by value (Go's equality.Semantic), so
a stored spelling equal by value is kept and nothing is written (CONTRACT.md, "Desired
Deployment", Quantities; noop-stable[respelled]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import informer


def desired_text(live: controller.Obj | None, want: controller.Obj) -> controller.Obj:
    # The mutant: the desired resources as they are; no stored spelling is kept.
    return informer.copy_obj(want)


PATCHES = (mutants.Patch(controller, "semantic_resources", desired_text),)

if __name__ == "__main__":
    mutants.main(PATCHES)
