"""replay-event: edge-triggered: acts on what the event said, never on the state of the world.

Anti-pattern: the event handlers remember, per ModelService, the last event and the object it
carried ("ADDED", "spec MODIFIED", "deleting", "a child was DELETED"), and the worker carries
out that remembered intent: on ADDED it adds the finalizer and creates the children (an
"already exists" is taken as done), on a spec change it updates the children, on a deletion
it cleans up, on a child's DELETED it creates the child again. A child's MODIFIED is ignored,
and nothing is ever recomputed from the cache. After a restart every object arrives as ADDED
again, and "create" is replayed against a world that has moved on.

Why people write it: event handlers named ``on_create``/``on_update``/``on_delete`` (kopf,
shell-operator, hand-rolled watch loops) invite it: each event seems to say what to do, and
it is how one would script the steps by hand. It works in every demo that starts from an
empty cluster and never restarts the operator.

What the correct operator does: it is level-triggered. A notification carries only an address
(namespace/name); the reconcile reads the ModelService and its children as they are now,
computes what must hold, and writes the difference, so a restart, a missed event or a
changed child leads to the same answer.
"""

from __future__ import annotations

import threading

from harness import mutants
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import controller as controller_
from python_operator.runtime import controllerutil, informer, workqueue
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Request, Result

Obj = controller.Obj
ADDED, SPEC_MODIFIED, DELETING, CHILD_DELETED = "ADDED", "MODIFIED", "DELETING", "CHILD-DELETED"

# The operator's memory: key -> (what the last event said, the object it carried), and the
# ModelService as last heard of (a child's event carries only the child).
_lock = threading.Lock()
INTENTS: dict[str, tuple[str, Obj]] = {}
LAST_SEEN: dict[str, Obj] = {}


def remember(queue: workqueue.RateLimitingQueue[Request], what: str, ms: Obj) -> None:
    key = informer.key_of(ms)
    with _lock:
        INTENTS[key] = (what, ms)
        LAST_SEEN[key] = ms
    queue.add(controller_.request_for(ms))


class RememberEvent:
    """For(ModelService): remember what happened, then enqueue the key."""

    def __init__(self, queue: workqueue.RateLimitingQueue[Request]) -> None:
        self._queue = queue

    def on_add(self, obj: Obj) -> None:
        remember(self._queue, ADDED, obj)

    def on_update(self, old: Obj, new: Obj) -> None:
        if new["metadata"].get("deletionTimestamp"):
            if not old["metadata"].get("deletionTimestamp"):
                remember(self._queue, DELETING, new)
        elif new["metadata"].get("generation") != old["metadata"].get("generation"):
            remember(self._queue, SPEC_MODIFIED, new)
        # Anything else (status, annotations): nothing happened that asks for an action.

    def on_delete(self, obj: Obj) -> None:
        with _lock:
            INTENTS.pop(informer.key_of(obj), None)
            LAST_SEEN.pop(informer.key_of(obj), None)


class ChildDeleted(controller_.EnqueueRequestForOwner):
    """Owns(child): only a child's DELETED means something (create it again, unless its
    ModelService is being deleted); its ADDED is our own doing and its MODIFIED is ignored."""

    def on_add(self, obj: Obj) -> None:
        pass

    def on_update(self, old: Obj, new: Obj) -> None:
        pass

    def on_delete(self, obj: Obj) -> None:
        ref = controller_.controller_of(obj)
        if ref is None:
            return
        key = f"{obj['metadata'].get('namespace', '')}/{ref.get('name', '')}"
        with _lock:
            ms = LAST_SEEN.get(key)
        if ms is not None and not ms["metadata"].get("deletionTimestamp"):
            remember(self._queue, CHILD_DELETED, ms)


class ReplayEventController(controller_.Controller):
    def for_handler(self) -> RememberEvent:  # type: ignore[override]
        return RememberEvent(self.queue)

    def owner_handler(self, *, group: str, kind: str) -> ChildDeleted:
        return ChildDeleted(self.queue, group=group, kind=kind)


class ReplayEventReconciler(controller.ModelServiceReconciler):
    """Carries out the remembered intent for the key, with the object the event carried."""

    def reconcile(self, req: Request) -> Result:
        key = str(req)
        with _lock:
            intent = INTENTS.get(key)
        if intent is None:
            return Result()
        what, remembered = intent
        ms = informer.copy_obj(remembered)
        rlog = controller.log.with_values(modelservice=key, event=what)
        rlog.info("Reconciling ModelService")
        result = Result()
        if what == DELETING:
            result = self.finalize(ms, rlog)
        elif what == CHILD_DELETED:
            spec = controller.read_spec(ms)
            self.create_child(ms, controller.desired_deployment(ms, spec), rlog)
            self.create_child(ms, controller.desired_service(ms, spec), rlog)
        elif what == SPEC_MODIFIED:
            self.on_spec_modified(ms, rlog)
        else:
            self.on_added(ms, rlog)
        if result == Result():
            with _lock:
                if INTENTS.get(key) is intent:
                    del INTENTS[key]  # done; an error leaves it to be replayed
        return result

    def on_added(self, ms: Obj, rlog: log_.Logger) -> None:
        spec = controller.read_spec(ms)
        if not controllerutil.contains_finalizer(ms, controller.FINALIZER_NAME):
            controllerutil.add_finalizer(ms, controller.FINALIZER_NAME)
            ms = self.writer.update(controller.MODELSERVICES, ms)
            rlog.info("Added finalizer")
            controller.crash_point("after-finalizer")
        dep = self.create_child(ms, controller.desired_deployment(ms, spec), rlog)
        self.create_child(ms, controller.desired_service(ms, spec), rlog)
        self.write_status(ms, spec, dep, rlog)

    def on_spec_modified(self, ms: Obj, rlog: log_.Logger) -> None:
        spec = controller.read_spec(ms)
        dep = None
        for desired, mutate in (
            (controller.desired_deployment(ms, spec), controller.mutate_deployment),
            (controller.desired_service(ms, spec), controller.mutate_service),
        ):
            resource = (
                controller.DEPLOYMENTS if desired["kind"] == "Deployment" else controller.SERVICES
            )
            live = self.reader.get(
                resource, desired["metadata"]["namespace"], desired["metadata"]["name"]
            )
            if live is None:
                continue  # created on ADDED
            updated = informer.copy_obj(live)
            mutate(updated, desired)
            if updated != live:
                live = self.writer.update(resource, updated)
                rlog.info("Updated " + resource.kind)
                controller.crash_point("after-" + resource.kind.lower())
            if resource == controller.DEPLOYMENTS:
                dep = live
        self.write_status(ms, spec, dep, rlog)

    def create_child(self, ms: Obj, desired: Obj, rlog: log_.Logger) -> Obj | None:
        resource = (
            controller.DEPLOYMENTS if desired["kind"] == "Deployment" else controller.SERVICES
        )
        try:
            created = self.writer.create(resource, desired)
        except client_.ApiError as err:
            if client_.is_conflict(err):  # AlreadyExists: created before, nothing to do
                return None
            raise
        rlog.info("Created " + resource.kind)
        controller.crash_point("after-" + resource.kind.lower())
        return created

    def write_status(
        self, ms: Obj, spec: controller.ModelServiceSpec, dep: Obj | None, rlog: log_.Logger
    ) -> None:
        status = controller.compute_status(ms, spec, dep, "", self.now())
        if ms.get("status") != status:
            controller.crash_point("before-status")
            ms["status"] = status
            self.writer.update_status(controller.MODELSERVICES, ms)
            rlog.info("Updated status")


PATCHES = (
    mutants.Patch(controller_, "Controller", ReplayEventController),
    mutants.Patch(controller, "ModelServiceReconciler", ReplayEventReconciler),
)

if __name__ == "__main__":
    mutants.main(PATCHES)
