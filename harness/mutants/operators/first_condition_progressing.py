"""first-condition-progressing: reads the Deployment's first condition as Progressing: a stall listed second is never seen.

Anti-pattern: the rollout's stall is looked for in the first condition of the Deployment's
status, taken to be Progressing, instead of the condition whose type is Progressing. The
deployment controller lists Available before Progressing once both exist, so when it gives
up on a rollout (Progressing=False ProgressDeadlineExceeded) the operator reads Available,
sees no deadline, and reports a rollout in progress that nothing will finish.

Why people write it: on a new Deployment Progressing is often the only condition, and a test
that plays a stalled status with that one condition passes.

What the correct operator does: it finds the condition by its type, wherever it stands
(CONTRACT.md, "Status"; kubectl's GetDeploymentCondition), and reports the stall as
Progressing=False ProgressDeadlineExceeded with the Deployment's message
(status-follows-rollout[played-rollout]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller
from python_operator.runtime import informer

_judge_rollout = controller.judge_rollout


def judge_first_condition(name: str, dep: controller.Obj | None) -> tuple[str, str]:
    dep = informer.copy_obj(dep or {})
    status = dep.get("status") or {}
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:
        # The mutant: the first condition, whatever its type, is read as Progressing.
        status["conditions"] = [{**conditions[0], "type": controller.CONDITION_PROGRESSING}]
    return _judge_rollout(name, dep)


PATCHES = (mutants.Patch(controller, "judge_rollout", judge_first_condition),)

if __name__ == "__main__":
    mutants.main(PATCHES)
