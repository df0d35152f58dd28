"""swallows-service-refusal: a refused Service write is logged and dropped because the Deployment is fine.

Anti-pattern: step 5's error is taken for less than step 4's. The Service update (or create)
that an admission policy, a webhook or a quota refuses is logged, and the reconcile carries on
to step 6 as if the Service were written: the status is rebuilt from the Deployment, which
rolled out, so it says Ready while the Service still routes the old port; and the reconcile
returns success, so the work queue forgets the key and nothing writes the Service once the
refusal is lifted.

Why people write it: "the Service is a detail, the pods are what matters"; or a status
computed from the last child's result alone, or an error variable that the next child's
success overwrites.

What the correct operator does: a refused Service write goes through step 6 with the refusal
(Ready and Progressing False, FailedUpdate naming the Service), then back to the queue as the
error, retried with backoff until it is written (refused-write-reported[service-refused]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import log

_ensure_service = controller.ModelServiceReconciler.ensure_service


def ensure_service_optional(
    self: controller.ModelServiceReconciler, ms: Any, spec: Any, rlog: Any
) -> tuple[Any, str]:
    """The real ensure_service, but a refused Service write is logged and taken for written."""
    try:
        return _ensure_service(self, ms, spec, rlog)
    except controller.RefusedWrite as refused:
        log.get_logger("mutant").info(
            "Service not written; the Deployment is fine", error=str(refused)
        )
        return None, ""


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "ensure_service", ensure_service_optional),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
