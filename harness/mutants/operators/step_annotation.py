"""step-annotation: records a rollout step before taking it, and on resume skips a step so recorded.

Anti-pattern: on a spec change the operator keeps its progress in an annotation of the
ModelService, written before each step ("intent first"): ``modeldock.io/step: 2:deployment``
says "the Deployment is being rolled out to generation 2". A reconcile that finds the step
recorded for the current generation takes it as done and goes on with the next one (the
Service, the status). When the process dies between the annotation and the Deployment update,
or the update fails, the restarted or retried reconcile skips the Deployment: the status
reports generation 2 while the Deployment still runs generation 1's replicas and image, for
ever.

Why people write it: a rollout in steps looks like it needs a checkpoint, "write the intent,
then act" is how write-ahead logs are taught, and skipping a recorded step avoids doing it
twice. Creation is left alone (there is no generation to roll out from), drift of a
ModelService whose spec never changed is repaired as usual (no step is recorded), and every
run that is not killed or refused in the one write-wide window between the annotation and the
update converges: once the step is taken, skipping it again changes nothing.

What the correct operator does: it keeps no progress of its own. Each reconcile compares the
desired children with the live ones and writes the difference, so a step that did not happen
is simply still a difference, and one that did happen no longer is. The world is the only
record of what was done.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import log as log_

MARK = "modeldock.io/step"


class StepAnnotationReconciler(controller.ModelServiceReconciler):
    def ensure_child(
        self,
        ms: controller.Obj,
        desired: controller.Obj,
        resource: Any,
        mutate: Any,
        rlog: log_.Logger,
    ) -> tuple[controller.Obj | None, str]:
        meta = ms["metadata"]
        observed = (ms.get("status") or {}).get("observedGeneration")
        generation = meta.get("generation")
        annotations = meta.setdefault("annotations", {})
        step = f"{generation}:deployment"
        if resource.kind == "Deployment" and annotations.get(MARK) == step:
            # The mutant: the step is recorded for this generation, so it is done.
            live = self.reader.get(resource, meta["namespace"], desired["metadata"]["name"])
            if live is not None and controller.controlled_by(live, ms):
                return live, ""
        elif resource.kind == "Deployment" and observed is not None and observed < generation:
            annotations[MARK] = step  # intent first: a rollout to a new generation begins
            stored = self.writer.update(controller.MODELSERVICES, ms)
            ms.clear()
            ms.update(stored)
        return super().ensure_child(ms, desired, resource, mutate, rlog)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", StepAnnotationReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
