"""ready-on-write: reports Ready as soon as it has written the Deployment.

Anti-pattern: the status is computed as if the Deployment had rolled out the moment the
operator created or updated it: replicas, updatedReplicas, readyReplicas and
availableReplicas are copied from the spec, and the conditions say Ready=True,
Progressing=False, whether any pod exists or not.

Why people write it: "the create succeeded" feels like "it worked", reading the Deployment's
status back needs a second event and a second reconcile, and on a cluster with a kubelet the
pods do become ready a few seconds later, so the lie is rarely caught.

What the correct operator does: it rebuilds the status from what the Deployment reports
(its status replicas and observedGeneration): without a kubelet no pod is available, so the
ModelService says Progressing=True, Ready=False, replicas 0 of N available.
"""

from __future__ import annotations

from datetime import datetime

from harness import mutants
from python_operator import controller

_compute_status = controller.compute_status


def compute_status_as_if_rolled_out(
    ms: controller.Obj,
    spec: controller.ModelServiceSpec,
    dep: controller.Obj | None,
    conflict: str,
    now: datetime,
    refused: controller.RefusedWrite | None = None,
) -> controller.Obj:
    if dep is not None and not conflict:
        # The mutant: the Deployment we wrote counts as rolled out.
        dep = {
            **dep,
            "status": {
                "observedGeneration": dep["metadata"].get("generation", 0),
                "replicas": spec.replicas,
                "updatedReplicas": spec.replicas,
                "readyReplicas": spec.replicas,
                "availableReplicas": spec.replicas,
            },
        }
    return _compute_status(ms, spec, dep, conflict, now, refused)


PATCHES = (mutants.Patch(controller, "compute_status", compute_status_as_if_rolled_out),)

if __name__ == "__main__":
    mutants.main(PATCHES)
