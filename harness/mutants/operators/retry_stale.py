"""retry-stale: on 409 Conflict, retries the Update with the same object, in a loop.

Anti-pattern: when an Update or a status Update is refused with 409 Conflict, the operator
sends the very same object again, after a short pause, until it is accepted. The object
carries the resourceVersion it was read at, which is exactly why it was refused, so every
retry is refused too: the worker spins on it for ever, hammering the API server, and every
other ModelService waits behind it.

Why people write it: a 409 looks like a transient error, and "retry on transient errors" is
good advice elsewhere; ``retry.RetryOnConflict`` exists, and wrapping the Update in it
without re-reading the object inside the loop looks like using it.

What the correct operator does: it returns the error. The key goes back to the work queue
with rate-limited backoff, and the next reconcile starts again from the cache, which by then
holds the newer object; it recomputes and writes the difference (or nothing).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_

#: Seconds between two attempts of the same write.
RETRY_INTERVAL = 0.2

log = log_.get_logger("retry")


def retry_on_conflict(write: Callable[[], controller.Obj], what: str) -> controller.Obj:
    """The mutant: resend the same request until it is not a conflict."""
    attempt = 1
    while True:
        try:
            return write()
        except client_.ApiError as err:
            if not client_.is_conflict(err):
                raise
            log.info("conflict, retrying the same update", object=what, attempt=attempt)
            attempt += 1
            time.sleep(RETRY_INTERVAL)


class RetryStaleWriter:
    """The API client with update and update_status wrapped in ``retry_on_conflict``."""

    def __init__(self, inner: controller.Writer) -> None:
        self._inner = inner

    def create(self, resource: client_.Resource, obj: controller.Obj) -> controller.Obj:
        return self._inner.create(resource, obj)

    def update(self, resource: client_.Resource, obj: controller.Obj) -> controller.Obj:
        return retry_on_conflict(lambda: self._inner.update(resource, obj), _name(resource, obj))

    def update_status(self, resource: client_.Resource, obj: controller.Obj) -> controller.Obj:
        return retry_on_conflict(
            lambda: self._inner.update_status(resource, obj), _name(resource, obj) + "/status"
        )

    def delete(
        self,
        resource: client_.Resource,
        namespace: str,
        name: str,
        *,
        uid: str | None = None,
        resource_version: str | None = None,
        propagation_policy: str | None = None,
    ) -> None:
        self._inner.delete(
            resource,
            namespace,
            name,
            uid=uid,
            resource_version=resource_version,
            propagation_policy=propagation_policy,
        )


def _name(resource: client_.Resource, obj: controller.Obj) -> str:
    return f"{resource.kind}/{obj['metadata']['name']}"


class RetryStaleReconciler(controller.ModelServiceReconciler):
    def __init__(self, *, writer: controller.Writer, **options: Any) -> None:
        super().__init__(writer=RetryStaleWriter(writer), **options)


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", RetryStaleReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
