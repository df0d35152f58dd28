"""scale-down-progressing: more updated replicas than spec.replicas is a rollout in progress: a scale-down is never Ready.

Anti-pattern: the rollout is judged complete only when status.updatedReplicas equals
spec.replicas, not when it reaches it. After a scale-down the deployment controller observes
the new spec at once and removes the surplus pods afterwards; meanwhile every replica is of
the current template and available, and kubectl rollout status says the rollout is done. The
operator says Ready=False, `has 4/2 updated replicas`, until the last surplus pod is gone.

Why people write it: "updated equals wanted" reads as the same test as "updated has reached
wanted", and a rollout that only grows never tells them apart.

What the correct operator does: it judges as kubectl rollout status does (CONTRACT.md,
"Status"): only fewer updated replicas than spec.replicas is a rollout in progress
(status-rebuilt[deployment-status]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller

_judge_rollout = controller.judge_rollout


def judge_exact_count(name: str, dep: controller.Obj | None) -> tuple[str, str]:
    verdict = _judge_rollout(name, dep)
    spec_replicas = ((dep or {}).get("spec") or {}).get("replicas")
    replicas = controller.DEFAULT_REPLICAS if spec_replicas is None else int(spec_replicas)
    updated = int(((dep or {}).get("status") or {}).get("updatedReplicas") or 0)
    if verdict[0] == controller.ROLLOUT_COMPLETE and updated != replicas:
        # The mutant: more updated replicas than wanted is still "in progress".
        return (
            controller.ROLLOUT_PROGRESSING,
            f'Deployment "{name}" has {updated}/{replicas} updated replicas',
        )
    return verdict


PATCHES = (mutants.Patch(controller, "judge_rollout", judge_exact_count),)

if __name__ == "__main__":
    mutants.main(PATCHES)
