"""replicas-from-spec: reports the replicas asked for as status.replicas, not the ones running.

Anti-pattern: the status copies ``readyReplicas`` and ``availableReplicas`` from the
Deployment's status but fills ``replicas`` from the ModelService's own spec.replicas: "the
replicas we have is the replicas we asked for". In the middle of a rolling update the
Deployment runs more pods than asked (maxSurge: the new ones up, an old one still
terminating), and after a scale-down fewer; the status then says the wanted number while the
cluster runs another.

Why people write it: outside a rollout the two are equal, so every test that waits for a
settled ModelService passes; the field has the same name in the spec and the status, and the
spec is at hand.

What the correct operator does: every count in the status is the Deployment's status count
(0 when it has none), as CONTRACT.md's status table says; spec.replicas only decides what the
rollout is judged against. Killed by status-rebuilt[deployment-status], which writes a surge
state (3 replicas for a spec of 2).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status


def compute_status_replicas_from_spec(
    ms: controller.Obj, spec: controller.ModelServiceSpec, *args: Any, **kwargs: Any
) -> controller.Obj:
    """The real status, with ``replicas`` replaced by the spec's replica count."""
    status = _compute_status(ms, spec, *args, **kwargs)
    status["replicas"] = spec.replicas  # the mutant: what was asked, not what runs
    return status


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_replicas_from_spec),)

if __name__ == "__main__":
    mutants.main(PATCHES)
