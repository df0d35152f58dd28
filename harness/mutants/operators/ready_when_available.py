"""ready-when-available: judges the rollout by availability alone.

Anti-pattern: the status says Ready=True and Progressing=False RolloutComplete as soon as the
Deployment has observed its generation and availableReplicas reaches spec.replicas, whatever
else its status says: how many replicas run the current template (updatedReplicas), whether
old ones are still terminating, whether the deployment controller gave up on the rollout
(its Progressing condition ProgressDeadlineExceeded). In the middle of a rolling update it says
Ready while old pods serve, and a stalled rollout stays "in progress" for ever.

Why people write it: "available replicas = desired replicas" is the first definition of
ready that comes to mind, it is right whenever no rollout is under way (creation, scaling),
and a rolling update on a test cluster is over before anyone reads the status in between.

What the correct operator does: it judges the Deployment as kubectl rollout status does, in
its order (CONTRACT.md, "Status"): the generation observed, then the progress deadline, then
updatedReplicas against spec.replicas, old replicas pending termination, and the updated
replicas available; Ready=True only once all of that holds, and a stalled rollout reported as
Progressing=False ProgressDeadlineExceeded with the Deployment's message.
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller


def judge_rollout_by_availability(name: str, dep: controller.Obj | None) -> tuple[str, str]:
    dep = dep or {}
    generation = int((dep.get("metadata") or {}).get("generation") or 0)
    spec_replicas = (dep.get("spec") or {}).get("replicas")
    replicas = controller.DEFAULT_REPLICAS if spec_replicas is None else int(spec_replicas)
    status = dep.get("status") or {}
    available = int(status.get("availableReplicas") or 0)
    message = f'Deployment "{name}" has {available}/{replicas} available replicas'
    # The mutant: observed and enough available is "complete"; nothing else is looked at.
    if int(status.get("observedGeneration") or 0) < generation or available < replicas:
        return controller.ROLLOUT_PROGRESSING, message
    return controller.ROLLOUT_COMPLETE, message


PATCHES = (mutants.Patch(controller, "judge_rollout", judge_rollout_by_availability),)

if __name__ == "__main__":
    mutants.main(PATCHES)
