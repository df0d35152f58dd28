"""raw-quantities: keeps resource quantities as spelled, not as the API server stores them.

Anti-pattern: the desired container resources are the ModelService's quantities exactly as
written. The API server rounds every resource quantity up to a whole number of thousandths
when it stores a Deployment (1.5m becomes 2m, 1e-4 becomes 1e-3), so for such a spec the
stored Deployment never equals the desired one, and every reconcile updates it, records an
UpdatedDeployment Event and wakes the operator again: a write loop that never ends.

Why people write it: the comparison is semantic already (1000m equals 1), which looks like
it covers every spelling; the rounding happens in the API server's defaulting, which no
client library applies, and the canonical values tests use (500m, 1Gi) never need it.

What the correct operator does: it computes the desired object as the API server will store
it (defaultResources: each quantity rounded up to milli, as SetDefaults_ResourceList does), so
"nothing changed" is judged against the stored form for every spelling the schema admits,
and a reconcile with nothing to change writes nothing.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import informer


def raw_resources(resources: controller.Obj) -> controller.Obj:
    # The mutant: the user's spelling, unrounded.
    return informer.copy_obj(resources)


PATCHES = (mutants.Patch(controller, "default_resources", raw_resources),)

if __name__ == "__main__":
    mutants.main(PATCHES)
