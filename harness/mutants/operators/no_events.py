"""no-events: records no Event at all.

Anti-pattern: the operator logs what it does and sets its status conditions, and that is
all: no EventRecorder is wired in. ``kubectl describe modelservice`` ends with
``Events: <none>`` after a create, after a child conflict, after a failed create and after a
deletion, so the first place a user looks says nothing, and what the operator did and why it
is stuck lives only in its own log, which users of the cluster often cannot read.

Why people write it: the official Python client has no recorder (only
``create_namespaced_event``), so Events look like extra work with no test failing without
them; logs are right there during development, and the status condition feels like enough.
In Go the recorder is one line away, but nothing forces anyone to call it.

What the correct operator does: it records an Event about the ModelService for each change
it makes (Created, Updated, Deleted <Kind>; RemovedFinalizer) and a Warning for each problem
it meets (ChildConflict, Failed<Verb> with the API server's error), through a recorder that
counts repeats into one Event, as CONTRACT.md lists them.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller


class NoEventsReconciler(controller.ModelServiceReconciler):
    def __init__(self, **options: Any) -> None:
        options.pop("recorder", None)  # the mutant: the recorder main wires in is dropped
        super().__init__(**options)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", NoEventsReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
