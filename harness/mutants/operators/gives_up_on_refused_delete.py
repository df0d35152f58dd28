"""gives-up-on-refused-delete: a child whose delete is refused is counted as gone, so the finalizer comes off over it.

Anti-pattern: cleanup is best effort. Step 2 sends the children's deletes, and one that the
API server refuses (403 from an admission policy or a webhook, a 5xx) is logged and the child
taken for gone: "a stuck child must not block the user's delete for ever". The finalizer comes
off, the ModelService vanishes, and the child stays behind, owned by a UID that no longer
exists (for ever where no garbage collector runs).

Why people write it: a cleanup that raises looks like it can hang a namespace deletion;
swallowing the error makes ``kubectl delete`` return.

What the correct operator does: the refused delete is the pass's error (Warning FailedDelete),
the finalizer stays, and the key is retried with backoff until the delete is admitted and the
child is read gone (finalizer-ordered-delete[delete-refused]).
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client, log

_finalize_child = controller.ModelServiceReconciler.finalize_child


def finalize_child_best_effort(
    self: controller.ModelServiceReconciler, ms: Any, resource: Any, child: Any, rlog: Any
) -> bool:
    """The real finalize_child, but a failed delete is logged and the child counted as gone."""
    try:
        return _finalize_child(self, ms, resource, child, rlog)
    except client.ApiError as err:
        log.get_logger("mutant").info("child not deleted; taken for gone", error=str(err))
        return False


PATCHES = (
    mutants.Patch(controller.ModelServiceReconciler, "finalize_child", finalize_child_best_effort),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
