"""first-owner-controls: the first ownerReference is taken for the controller.

Anti-pattern: "whose child is this?" is answered by ``ownerReferences[0]``, not by the
reference that says ``controller: true``. The operator writes one reference and reads it back
first, so it works until another writer puts a reference of its own (``controller`` unset: a
co-owner, not a controller) before ours. From then on our own Deployment is "someone else's":
a ChildConflict on a ModelService that owns it, no repair of a hand edit, and its events are
mapped to the wrong owner (Owns enqueues nothing).

Why people write it: every child the operator made has exactly one reference, so index 0 and
"the controller" never differ in a test that only the operator writes.

What the correct operator does: it reads the controller as metav1.GetControllerOf does, the
one reference with ``controller: true`` wherever it stands, keeps the others untouched
(foreign-fields-kept: a ConfigMap's non-controller reference put before ours).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import controller as controller_


def first_reference(obj: controller_.Obj) -> controller_.Obj | None:
    # The mutant: the first ownerReference, controller or not.
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    return refs[0] if refs and isinstance(refs[0], dict) else None


PATCHES = (mutants.Patch(controller_, "controller_of", first_reference),)

if __name__ == "__main__":
    mutants.main(PATCHES)
