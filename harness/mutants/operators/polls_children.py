"""polls-children: does not watch its children; looks at them again every 20 s instead.

Anti-pattern: the controller is registered with ``For(ModelService)`` only, and every
reconcile that finds the ModelService settled asks to run again after 20 s. It still reads its
children from a cache, so each timed pass costs no request, and it notices a deleted Service
or a hand-edited replica count at its next pass: drift is repaired, up to 20 s late, and
convergence-only bounds (a minute) never see the difference.

Why people write it: a periodic requeue is the first fix people reach for once they find that
edits of the children go unnoticed (mutant no-owns), and it makes every demo work: wait long
enough and the child is right again. It also looks cheap, since the reads hit the cache.

What the correct operator does: ``Owns(Deployment)`` and ``Owns(Service)``: a child's event
enqueues its owner at once, so the repair follows the edit within one watch delivery and one
reconcile (child-repaired bounds it by CHILD_REACT_BOUND, conformance/reactions.py), and with
nothing changing the operator is never woken at all.
"""

from __future__ import annotations

from datetime import timedelta

from harness import mutants
from harness.mutants.operators.no_owns import setup_without_owns
from python_operator import __main__ as operator_main
from python_operator import controller
from python_operator.runtime.reconcile import Request, Result

#: The polling period, in seconds.
PERIOD = 20

_reconcile = controller.ModelServiceReconciler.reconcile


def reconcile_then_poll(self: controller.ModelServiceReconciler, req: Request) -> Result:
    """The real reconcile; a settled pass of a ModelService that still exists comes back
    after PERIOD seconds, to look at the children again."""
    result = _reconcile(self, req)
    if result == Result() and self.reader.get(controller.MODELSERVICES, req.namespace, req.name):
        return Result(requeue_after=timedelta(seconds=PERIOD))
    return result


PATCHES = (
    mutants.Patch(operator_main, "setup_with_manager", setup_without_owns),
    mutants.Patch(controller.ModelServiceReconciler, "reconcile", reconcile_then_poll),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
