"""optional-as-required: indexes optional spec fields as if they were always set.

Anti-pattern: the operator reads the spec with ``spec["args"]`` and ``spec["resources"]``,
fields the CRD marks optional and gives no default. Every ModelService that leaves them out
(the smallest valid one, exactly what admission lets through after pruning unknown fields)
makes the reconcile fail with KeyError, again and again, and the ModelService never gets a
finalizer, children or status.

Why people write it: the sample manifest in the README sets every field, so the happy path
always has them; in Go a typed struct hides the mistake (a missing slice is just nil), and a
Python dict index looks the same as a struct field.

What the correct operator does: it reads the stored object as admission leaves it: required
fields and defaulted fields are trusted, every optional field falls back to its zero value
(no extra args, no resources), and a field of an unexpected type is an error for that one
ModelService, never a crash.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller


def read_spec_indexing(ms: controller.Obj) -> controller.ModelServiceSpec:
    spec = ms["spec"]
    where = f"reading spec of ModelService {ms['metadata']['name']}"
    # The mutant: optional fields indexed like required ones (KeyError when left out).
    return controller.ModelServiceSpec(
        model=spec["model"],
        image=spec["image"],
        replicas=spec["replicas"],
        port=spec["port"],
        args=tuple(spec["args"]),
        resources=controller.desired_resources(spec["resources"], where),
    )


PATCHES = (mutants.Patch(controller, "read_spec", read_spec_indexing),)

if __name__ == "__main__":
    mutants.main(PATCHES)
