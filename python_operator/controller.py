"""controller.py: the ModelService reconciler.

Go twin: go_reference/controller.go. Read the two side by side: the same functions in the same
order under the same section headers, the same steps with the same numbers and titles, the
same desired objects, conditions, Events and log messages. The exact contract both follow is
conformance/CONTRACT.md.

The one idea to take from this file: reconcile is level-triggered. A request carries only a
namespace/name, never "what happened". Each call reads the world as it is now (from the
informer cache), computes what the ModelService with that name requires, and writes only the
difference. A crash, a missed event or a restart therefore loses nothing: the next call
computes the same answer from the same world.

The order of both files (Go name / Python name where they differ only by convention):

====================  ==========================================================================
the reconciler        ModelServiceReconciler; reconcile (steps 1 to 7); finalize, read_live,
                      read_deleting_live, finalize_child, remove_finalizer,
                      delete_vanished_child, delete_child, delete_children_of_gone (step 2,
                      and a vanished ModelService);
                      ensure_child, AdoptionRefused, ReplacementRefused, confirm_holder,
                      confirm_adopter, confirm_successor, replace_child,
                      ensure_service
                      (steps 4 and 5); report_refusal, update_status (step 6)
step 1                ModelServiceSpec, SpecError, RECONCILE_ERRORS, read_spec,
                      default_resources
step 2                orphans_children
steps 4 and 5         desired_deployment, desired_service, child_object_meta, child_labels,
                      selector_labels, owner_reference, controlled_by,
                      controlled_by_vanished, adoptable, immutable_change,
                      mutate_deployment, mutate_service, merge_labels, ensure_owner_reference
step 6                OWNED_CONDITIONS, compute_status, judge_rollout, bound_message,
                      set_condition
Events                failed_write, failure_event, error_message, RefusedWrite,
                      as_refused_write, model_service_string
crash points          crash_point
Python only           Reader, APIReader, Writer; typed_field; desired_resources,
                      quantity_string, semantic_resources, same_quantity;
                      find_condition
====================  ==========================================================================

Go has a few of its own, marked "Go only:" where they stand (kindOf, modelServiceStatus,
storedCondition, mergeConditions, recordEvent, the now method of the injected clock).

Where Python differs from Go, once: objects are plain dicts (Go reads the ModelService as
unstructured too, but its children as typed structs); an error is raised, not returned; reads
go through ``reader`` (the informer cache, which returns deep copies, or None for "not
found") and writes through ``writer`` (the API server), where Go has one client for both;
durations are ``timedelta``. Everything that exists only because of that (typing a dict,
comparing quantities) is in the last section, "Python only".
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from python_operator import catalog as catalog_
from python_operator.runtime import client as client_
from python_operator.runtime import controller as controller_
from python_operator.runtime import controllerutil, informer, quantity
from python_operator.runtime import events as events_
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Request, Result

Obj = client_.Obj

# MODELSERVICES is the one kind this operator reconciles. There are no generated classes for
# it: the ModelService is read as JSON, so the CRD in crds/ stays the only definition of the
# API, for Go and Python alike.
MODELSERVICES = client_.Resource(
    group="modeldock.io", version="v1alpha1", plural="modelservices", kind="ModelService"
)
DEPLOYMENTS = client_.DEPLOYMENTS
SERVICES = client_.SERVICES

# FINALIZER_NAME holds deletion of a ModelService until its children are deleted.
FINALIZER_NAME = "modeldock.io/cleanup"
# FINALIZER_ORPHAN is the API server's own finalizer for "delete, but keep the dependents"
# (Go: metav1.FinalizerOrphanDependents).
FINALIZER_ORPHAN = "orphan"

# Labels every child carries. LABEL_MODELSERVICE alone is the selector: it names the
# ModelService, so two ModelServices never select each other's pods.
LABEL_NAME = "app.kubernetes.io/name"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_MODELSERVICE = "modeldock.io/modelservice"
MANAGED_BY = "modeldock"

CONTAINER_NAME = "server"
PORT_NAME = "http"

DEFAULT_REPLICAS = 1
DEFAULT_PORT = 8000

# Condition types, in the order they are written, and their reasons.
CONDITION_READY = "Ready"
CONDITION_PROGRESSING = "Progressing"
REASON_CHILD_CONFLICT = "ChildConflict"
REASON_REPLICAS_UNAVAILABLE = "ReplicasUnavailable"
REASON_ROLLOUT_IN_PROGRESS = "RolloutInProgress"
REASON_REPLICAS_AVAILABLE = "ReplicasAvailable"
REASON_ROLLOUT_COMPLETE = "RolloutComplete"
# The Deployment's own reason for a rollout that gave up (Go: appsv1 has no constant for it;
# kubectl's rollout status and the deployment controller use the same string).
REASON_PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"
# What judge_rollout concludes, in kubectl rollout status's terms.
ROLLOUT_PROGRESSING, ROLLOUT_STALLED, ROLLOUT_COMPLETE = "progressing", "stalled", "complete"
# The CRD's bound on a condition's message (maxLength, in characters), and what a message cut
# to fit it ends with.
MESSAGE_MAX_LENGTH = 32768
TRUNCATED_MARKER = " ... [truncated]"
CRASH_EXIT_CODE = 86
DELETION_REQUEUE_AFTER = timedelta(seconds=1)
CONFLICT_REQUEUE_AFTER = timedelta(seconds=5)
CRASH_AT_ENV = "MODELDOCK_CRASH_AT"
KIND_DEPLOYMENT, KIND_SERVICE = "Deployment", "Service"

# Event reasons (CONTRACT.md, "Events"), besides REASON_CHILD_CONFLICT: Normal "Created<Kind>",
# "Updated<Kind>", "Deleted<Kind>" for a child this reconcile wrote, REASON_REMOVED_FINALIZER;
# Warning "Failed<Verb>" for a write that failed.
REASON_REMOVED_FINALIZER = "RemovedFinalizer"

log = log_.get_logger("controller").with_values(controller="modelservice")


# ================================================================================================
# The reconciler (CONTRACT.md, "Reconcile, step by step")
# ================================================================================================


class AdoptionRefused(RuntimeError):
    """A child not adopted because the ModelService that would adopt it is gone or being
    deleted, as the live read shows (confirm_adopter): one of RECONCILE_ERRORS, retried with
    backoff (Go: confirmHolder's fmt.Errorf, through confirmAdopter)."""


class ReplacementRefused(RuntimeError):
    """The child of a vanished ModelService not deleted because the ModelService in hand no
    longer holds the name, or is being deleted, as the live read shows (confirm_successor):
    one of RECONCILE_ERRORS, retried with backoff (Go: confirmHolder's fmt.Errorf, through
    confirmSuccessor)."""


class ModelServiceReconciler:
    """Reconciles a ModelService into a Deployment and a Service.

    It reads from the manager's informer cache (``reader``) and writes to the API server
    (``writer``); ``live`` reads from the API server itself, for the one decision the cache
    cannot be trusted with: that no child is left (see finalize). ``now`` is its clock, the
    time of a condition's transition; ``recorder`` records Events about the ModelService,
    written in the background (None records none). The reconciler holds no other state:
    everything it decides, it decides again on the next call, so any number of reconcilers
    (a restarted process, a new leader) built with only these reach the same result.

    Go: the ModelServiceReconciler struct. ``reader`` and ``writer`` are its embedded
    client.Client (cache reads, API server writes), ``live`` its APIReader
    (mgr.GetAPIReader()), ``now`` its Clock (clock.PassiveClock; Go's ``r.now()`` is this
    ``self.now()``), ``recorder`` its Recorder. The methods are the ones Go has on the
    struct, plus ensure_child (a generic function in Go, a method here: the seam the mutants
    in harness/mutants/ override).
    """

    def __init__(
        self,
        *,
        reader: Reader,
        writer: Writer,
        live: APIReader,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        recorder: events_.Recorder | None = None,
        catalog: catalog_.CatalogClient | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.live = live
        self.now = now
        # Events about the ModelService, written in the background; None records none.
        self.recorder: events_.Recorder = recorder or events_.NullRecorder()
        # The model catalog each generation is registered with (catalog.py); None: none.
        self.catalog = catalog

    def reconcile(self, req: Request) -> Result:
        """Make the cluster hold what the ModelService req names requires, now.

        Outcomes: an empty Result when the cluster matches (or the ModelService is gone);
        requeue_after 1 s while deletion waits for children to leave the cache; requeue_after
        5 s while a same-named child belongs to someone else; an exception when a read or
        write failed (client.ApiError from the API server; SpecError for a spec that cannot
        be read; RECONCILE_ERRORS lists every kind), in which case the controller requeues the request with rate-limited
        backoff and the next call starts again from the cache. A 409 Conflict is such an
        error: the object this call read was stale, and retrying the same write can only
        fail again.
        """
        rlog = log.with_values(modelservice=str(req))
        rlog.info("Reconciling ModelService")

        # 1: Load the ModelService
        #
        # From the cache, by name. The request says nothing else: not "created", not "replicas
        # changed". Not found means it is gone, finalizer and all; there is nothing left to do,
        # and the children, if any, belong to the garbage collector through their
        # ownerReference.
        ms = self.reader.get(MODELSERVICES, req.namespace, req.name)
        if ms is None:
            return Result()
        spec = read_spec(ms)

        # 2: Finalize if being deleted
        #
        # A deletionTimestamp is the API server saying "delete once the finalizers are gone".
        # Cleanup is a state to reach like any other, so a process that stops halfway finds
        # the same deleting object on restart and carries on.
        if being_deleted(ms):
            return self.finalize(ms, rlog)

        # 3: Ensure the finalizer
        #
        # It goes on before any child exists, so no child can be created for a ModelService
        # that could then vanish without its cleanup running. The update returns the stored
        # object, with its new resourceVersion, and the next steps continue from that.
        if not controllerutil.contains_finalizer(ms, FINALIZER_NAME):
            controllerutil.add_finalizer(ms, FINALIZER_NAME)
            try:
                ms = self.writer.update(MODELSERVICES, ms)
            except Exception as err:
                failed_write(self.recorder, ms, "update", model_service_string(ms), err)
                raise
            rlog.info("Added finalizer")
            crash_point("after-finalizer")

        # 4: Ensure the Deployment
        #
        # CreateOrUpdate, with the ownership decision first: a Deployment of this name that
        # another owner controls (or an ownerless one without our label) is reported, never
        # adopted or overwritten; an ownerless one with our label is adopted; one of ours
        # whose immutable selector differs is replaced. A write the API server refuses
        # reaches the status before the error goes back to the queue (report_refusal).
        try:
            dep, conflict = self.ensure_child(
                ms, desired_deployment(ms, spec), DEPLOYMENTS, mutate_deployment, rlog
            )
        except RefusedWrite as refused:
            self.report_refusal(ms, spec, refused.live, refused, rlog)
            raise

        # 5: Ensure the Service
        #
        # Skipped when the Deployment is in conflict: the status reports the first conflict,
        # and a ModelService that cannot run its pods has no use for a Service yet.
        svc: Obj | None = None
        if not conflict:
            try:
                svc, conflict = self.ensure_service(ms, spec, rlog)
            except RefusedWrite as refused:
                self.report_refusal(ms, spec, dep, refused, rlog)
                raise

        # 6: Update the status
        #
        # Status is rebuilt from what the Deployment reports, never patched from what this
        # call did, and written only if it differs from the stored status: an unchanged world
        # costs no write, and lastTransitionTime moves only when a condition's status does.
        status = compute_status(ms, spec, dep, conflict, self.now())
        # With a catalog, the generation is registered first, once (catalog.py).
        catalog_.register_in_catalog(
            self.catalog, ms, spec.model, spec.image, conflict, status, rlog
        )
        try:
            self.update_status(ms, status, rlog)
        except Exception as err:
            if not client_.is_not_found(err):
                raise
            # The ModelService is gone although this pass holds it with our finalizer:
            # the API server deleted it while the finalizer went on (kubernetes#77988).
            children = [(r, c) for r, c in ((DEPLOYMENTS, dep), (SERVICES, svc)) if c]
            return self.delete_children_of_gone(ms, err, children, rlog)

        # 7: Return
        #
        # Nothing to requeue: the watches on the ModelService and on its children bring the
        # request back when anything this result depends on changes. Except after a conflict:
        # the foreign child has no ownerReference to us, so Owns never maps its events here,
        # and only polling notices when it is gone.
        if conflict:
            return Result(requeue_after=CONFLICT_REQUEUE_AFTER)
        return Result()

    # -------------------------------------------------------------------------------------------
    # Step 2: Finalize if being deleted
    # -------------------------------------------------------------------------------------------

    def finalize(self, ms: Obj, rlog: log_.Logger) -> Result:
        """Step 2: delete the children this ModelService controls, wait until the API server
        no longer holds them, then remove the finalizer, last. The finalizer only orders the
        cleanup; what is ours is decided by the ownerReference UID, so a same-named child that
        was replaced by someone else's is never deleted.

        The deletion policy the user chose is honoured (CONTRACT.md, "Deletion"): with the
        orphan finalizer on the object (kubectl delete --cascade=orphan) the children must
        survive, so only our finalizer is removed and no child is deleted; the garbage
        collector then strips their ownerReferences. Finalizers that are not ours are never
        touched.

        The children are read with ``live``, not from the cache. The cache can lag the
        operator's own writes: a Deployment this process created a moment ago, in the
        reconcile that added the finalizer, may not be in the cache yet. Concluding "no child
        left" from the cache would remove the finalizer while the child exists, and the child
        would outlive its ModelService, owned by a UID that no longer exists.

        Before any child is deleted, the ModelService is read live (read_deleting_live): a
        policy switched to orphan since the cache last heard of it is honoured, and so is a
        ModelService gone meanwhile (nothing left to do).

        ms is the deleting ModelService as read. Returns Result() when the finalizer is gone
        or was never there, Result(requeue_after=1 s) while a child of ours remains; raises
        client.ApiError when a live read, a delete (other than 404 and 409) or the final
        update fails.
        """
        if not controllerutil.contains_finalizer(ms, FINALIZER_NAME):
            return Result()
        if orphans_children(ms):
            rlog.info("Orphaned children", propagationPolicy="Orphan")
            return self.remove_finalizer(ms, rlog)
        # The policy as it stands, not as the cache last heard it: a later delete may have
        # switched it to orphan (deletion-policy[switched-to-orphan]).
        live = self.read_deleting_live(ms)
        if live is None or not controllerutil.contains_finalizer(live, FINALIZER_NAME):
            return Result()
        if orphans_children(live):
            rlog.info("Orphaned children", propagationPolicy="Orphan")
            return self.remove_finalizer(live, rlog)
        ms = live

        namespace, name = ms["metadata"]["namespace"], ms["metadata"]["name"]
        remaining = False
        for resource in (DEPLOYMENTS, SERVICES):
            child = self.live.get(resource, namespace, name)
            if child is None:
                continue
            if not controlled_by(child, ms):
                continue
            remaining = self.finalize_child(ms, resource, child, rlog) or remaining
        if remaining:
            # Come back and read again: the next pass removes the finalizer once the API
            # server shows no child of ours. No watch event of the ModelService will come to
            # bring it back, hence the timed requeue; the children's delete events may come
            # sooner.
            return Result(requeue_after=DELETION_REQUEUE_AFTER)
        return self.remove_finalizer(ms, rlog)

    def read_live(self, ms: Obj) -> Obj | None:
        """ms as the API server holds it now (``live``, past the cache), for a write that
        rests on ms still holding its name: None when it is gone or another ModelService (a
        different UID) holds the name. Raises client.ApiError when the read fails. The pass's
        three live reads of the ModelService share it: read_deleting_live (step 2),
        confirm_adopter and confirm_successor (steps 4 and 5, through confirm_holder). Go:
        readLive."""
        meta = ms["metadata"]
        fresh = self.live.get(MODELSERVICES, meta["namespace"], meta["name"])
        if fresh is None or fresh["metadata"].get("uid") != meta.get("uid"):
            return None
        return fresh

    def read_deleting_live(self, ms: Obj) -> Obj | None:
        """Read the deleting ModelService ms live (read_live) before step 2 deletes any
        child: the children are deleted only if the policy the user asked for last says so.
        A DELETE of an object that is already deleting still sets the garbage collector's
        finalizers anew (the API server's updateForGracefulDeletionAndFinalizers), so
        ``kubectl delete`` followed by ``kubectl delete --cascade=orphan`` adds ``orphan``,
        and a cache that has not seen that second request yet still shows the first policy.
        Mirrors the garbage collector, which reads an owner live before acting on its
        dependents (kube v1.34 GarbageCollector.isDangling). Returns the live object, None
        when the ModelService is gone or another of its name stands there; raises
        client.ApiError when the read fails. Go: readDeletingLive, called through the seam
        deletingModelServiceSeam."""
        return self.read_live(ms)

    def finalize_child(
        self, ms: Obj, resource: client_.Resource, child: Obj, rlog: log_.Logger
    ) -> bool:
        """Step 2 for one child of ours (of resource) that the API server still holds: delete
        it once (delete_child), unless it is deleting already (held by a finalizer of its
        own: wait, do not delete again). Returns True: the child remains until a later pass
        reads it gone. Raises client.ApiError when the delete fails (other than 404 and
        409): the pass ends with our finalizer on, and the key is retried with backoff, for a
        child whose delete was refused is not gone (finalizer-ordered-delete[delete-refused],
        CONTRACT.md "Deletion"). Go: finalizeChild, called through the seam
        finalizeChildSeam."""
        if not child["metadata"].get("deletionTimestamp"):
            self.delete_child(ms, resource, child, rlog)
        return True

    def remove_finalizer(self, ms: Obj, rlog: log_.Logger) -> Result:
        """Remove our finalizer, and only ours (controllerutil.remove_finalizer), with one
        update of ms; record Normal RemovedFinalizer. Returns Result(); raises
        client.ApiError when the update fails (CONTRACT.md, "Deletion")."""
        controllerutil.remove_finalizer(ms, FINALIZER_NAME)
        try:
            self.writer.update(MODELSERVICES, ms)
        except Exception as err:
            failed_write(self.recorder, ms, "update", model_service_string(ms), err)
            raise
        rlog.info("Removed finalizer")
        self.recorder.event(
            ms, events_.NORMAL, REASON_REMOVED_FINALIZER, f'Removed finalizer "{FINALIZER_NAME}"'
        )
        return Result()

    def delete_vanished_child(
        self, ms: Obj, resource: client_.Resource, child: Obj, rlog: log_.Logger
    ) -> None:
        """Delete child, the child of a ModelService of ms's name that no longer exists, as
        the garbage collector deletes a dependent it judged from its own graph (kube v1.34
        GarbageCollector.deleteObject): preconditions uid and the resourceVersion as read,
        propagationPolicy Background. The resourceVersion makes the delete mean "this object
        as I read it": the cache may not yet have seen the orphaning that stripped the dead
        owner's ownerReference (kubectl delete --cascade=orphan, then a ModelService of the
        same name again), and such a child is the successor's to adopt, its pods kept, not to
        delete (vanished-owner[orphaned-unseen]). A 409 raises client.ApiError (no Event): the
        key is retried, and the next pass reads the child again. Otherwise as delete_child.
        Go: deleteChildOfVanished."""
        version = child["metadata"]["resourceVersion"]
        self.delete_child(ms, resource, child, rlog, resource_version=version)

    def delete_child(
        self,
        ms: Obj,
        resource: client_.Resource,
        child: Obj,
        rlog: log_.Logger,
        resource_version: str | None = None,
    ) -> None:
        """Delete child (of resource), a child of the ModelService ms, as the garbage
        collector would: with preconditions.uid = the child's UID and propagationPolicy
        Background. The UID precondition makes the delete mean "this object", not "whatever
        is called this now": if the child was replaced since it was read, the API server
        refuses with 409 and the replacement survives. Background: the API server removes the
        child at once and the garbage collector (where one runs) takes its dependents after.
        A success logs "Deleted child" and records Normal Deleted<Kind> about ms; a 404 or
        409 counts as gone; any other error records Warning FailedDelete and raises
        client.ApiError (CONTRACT.md, "Deletion"). With resource_version, that precondition
        too, and a 409 is raised (changed since read: delete_vanished_child). Used by
        finalize, delete_children_of_gone and delete_vanished_child."""
        meta = child["metadata"]
        namespace, name = meta["namespace"], meta["name"]
        try:
            self.writer.delete(
                resource,
                namespace,
                name,
                uid=meta["uid"],
                resource_version=resource_version,
                propagation_policy="Background",
            )
        except Exception as err:
            if resource_version is not None and client_.is_conflict(err):
                raise
            if not (client_.is_not_found(err) or client_.is_conflict(err)):
                failed_write(self.recorder, ms, "delete", f'{resource.kind} "{name}"', err)
                raise
            # Gone already, or replaced: either way not ours to delete any more.
            return
        rlog.info("Deleted child", child=f"{resource.kind}/{name}")
        self.recorder.event(
            ms, events_.NORMAL, "Deleted" + resource.kind, f'Deleted {resource.kind} "{name}"'
        )
        crash_point("after-child-delete")

    def delete_children_of_gone(
        self,
        ms: Obj,
        gone: Exception,
        children: list[tuple[client_.Resource, Obj]],
        rlog: log_.Logger,
    ) -> Result:
        """What a pass does when its status update is answered 404 (CONTRACT.md, "When the
        ModelService vanishes"): the ModelService ms it holds, finalizer and all, no longer
        exists. A finalizer is not a lock the API server always honours: a DELETE without
        preconditions that read the object before our finalizer update committed removes it
        anyway (kubernetes/kubernetes#77988, present in 1.34). The children this pass holds
        (children: (resource, object) pairs, as created or found) that ms controls would stay
        owned by a UID that no longer exists, for ever where no garbage collector runs, so
        they are deleted now, each by delete_child (UID precondition, Background). gone is
        the 404. Returns Result() (nothing is left to retry); raises client.ApiError when a
        delete fails other than with 404 or 409. Go: deleteChildrenOfGone, called through the seam
        modelServiceGone."""
        rlog.info("ModelService gone", uid=ms["metadata"].get("uid"), error=str(gone))
        for resource, child in children:
            if (child.get("metadata") or {}).get("uid") and controlled_by(child, ms):
                self.delete_child(ms, resource, child, rlog)
        return Result()

    # -------------------------------------------------------------------------------------------
    # Steps 4 and 5: Ensure the Deployment, Ensure the Service
    # -------------------------------------------------------------------------------------------

    def ensure_child(
        self,
        ms: Obj,
        desired: Obj,
        resource: client_.Resource,
        mutate: Callable[[Obj, Obj], None],
        rlog: log_.Logger,
    ) -> tuple[Obj | None, str]:
        """controllerutil.CreateOrUpdate with the ownership decision first (CONTRACT.md,
        "Ownership"). It reads the child named like desired from the cache, and:

        - absent: creates desired;
        - ours and being deleted: waits for it to go (no write);
        - controlled by someone else, or ownerless without our selector label: returns a
          conflict message and writes nothing;
        - ownerless with our selector label (adoptable, as the garbage collector leaves the
          children of a ModelService deleted with --cascade=orphan): adopts it, one update
          that adds our controller ownerReference and the desired fields, after a live read
          of the ModelService confirms it still exists with this UID and is not being
          deleted (kube's ControllerRefManager, RecheckDeletionTimestamp);
        - ours: applies mutate to a deep copy and updates only if the copy differs from live,
          by semantic equality (quantities compare by value: 1000m equals 1, which mutate
          ensures by keeping the live spelling of an equal quantity);
        - ours, but a field the API server will not change (immutable_change: a Deployment's
          spec.selector) differs: replaces it, a delete with the UID precondition and
          propagationPolicy Background; the delete event brings the ModelService back and the
          next pass creates the child. An ownerless child that would need replacing is not
          adopted: a conflict.

        It returns the child as now stored (or as last read, when nothing was written; None
        after a replacement), and the conflict message ("" when there is none); a failed
        create or update raises RefusedWrite (a client.ApiError) when the API server refused
        it with an answer other than 409, and the error as it came otherwise; a failed delete
        raises client.ApiError, and a ModelService that the live read shows deleted or
        deleting raises AdoptionRefused before an adoption and ReplacementRefused before a
        vanished owner's child is deleted (confirm_successor; both retried with backoff)
        (CONTRACT.md, steps 4 and 5).
        """
        kind = resource.kind
        name = desired["metadata"]["name"]
        child = f"{kind}/{name}"
        what = f'{kind} "{name}"'

        live = self.reader.get(resource, desired["metadata"]["namespace"], name)
        vanished = live is not None and controlled_by_vanished(live, ms)
        if live is not None and vanished:
            # The child of a ModelService of our name that no longer exists (names are unique
            # and UIDs never reused): the garbage collector's to delete, and envtest has none.
            # Delete it as it would, then create ours; an AlreadyExists while it is still
            # going is a 409 like any other (step 7).
            rlog.info(
                "Child of a vanished ModelService",
                child=child,
                ownerUID=(controller_.controller_of(live) or {}).get("uid"),
            )
            self.confirm_successor(ms, what)
            self.delete_vanished_child(ms, resource, live, rlog)
        if live is None or vanished:
            try:
                created = self.writer.create(resource, desired)
            except Exception as err:
                failed_write(self.recorder, ms, "create", what, err)
                refused = as_refused_write(err, "create", what, None)
                if refused is None:
                    raise
                raise refused from err
            rlog.info("Created " + kind)
            self.recorder.event(ms, events_.NORMAL, "Created" + kind, "Created " + what)
            crash_point("after-" + kind.lower())
            return created, ""

        ours = controlled_by(live, ms)
        if ours and live["metadata"].get("deletionTimestamp"):
            # Deleted (a replacement, or by hand) and held by a finalizer: its removal event
            # comes through Owns, and the pass after it creates the child again.
            return live, ""

        updated = informer.copy_obj(live)
        mutate(updated, desired)
        immutable = immutable_change(resource, live, updated)
        if not ours and (immutable or not adoptable(live, ms)):
            rlog.info("Child conflict", child=child)
            conflict = what + " exists and is not controlled by this ModelService"
            self.recorder.event(ms, events_.WARNING, REASON_CHILD_CONFLICT, conflict)
            return live, conflict

        if immutable:
            self.replace_child(ms, live, resource, immutable, rlog)
            return None, ""
        if updated == live:
            return live, ""
        if not ours:
            self.confirm_adopter(ms, what)
        # updated carries the resourceVersion read from the cache: if the cache was behind,
        # the API server answers 409 and the error goes back to the queue (step 7).
        try:
            stored = self.writer.update(resource, updated)
        except Exception as err:
            failed_write(self.recorder, ms, "update", what, err)
            refused = as_refused_write(err, "update", what, live)
            if refused is None:
                raise
            raise refused from err
        if ours:
            rlog.info("Updated " + kind)
            self.recorder.event(ms, events_.NORMAL, "Updated" + kind, "Updated " + what)
        else:
            rlog.info("Adopted " + kind, child=child)
            self.recorder.event(ms, events_.NORMAL, "Adopted" + kind, "Adopted " + what)
        crash_point("after-" + kind.lower())
        return stored, ""

    def confirm_holder(self, ms: Obj, doing: str, what: str, refused: type[RuntimeError]) -> None:
        """Before a write to the child (what) that rests on ms holding its name and not being
        deleted: read ms live (read_live) and raise refused (AdoptionRefused or
        ReplacementRefused) with the message ``not <doing> <what>: <ms> with uid U no longer
        exists`` when it is gone or another UID holds the name, or ``... is being deleted``;
        return otherwise. Raises client.ApiError when the read fails. Go: confirmHolder."""
        fresh = self.read_live(ms)
        if fresh is None:
            raise refused(
                f"not {doing} {what}: {model_service_string(ms)} with uid "
                f"{ms['metadata'].get('uid')} no longer exists"
            )
        if fresh["metadata"].get("deletionTimestamp"):
            raise refused(f"not {doing} {what}: {model_service_string(ms)} is being deleted")

    def confirm_adopter(self, ms: Obj, what: str) -> None:
        """Before an adoption: confirm_holder, raising AdoptionRefused naming the child (what)
        when ms is gone, has another UID or is being deleted. The cache may not have seen a
        deletion yet, and a child adopted by a ModelService that the garbage collector is
        orphaning, or has already forgotten, would be left owned by a vanished UID and
        collected: the very workload --cascade=orphan was meant to keep (mirrors
        RecheckDeletionTimestamp in kube's ControllerRefManager, k8s.io/kubernetes v1.34
        pkg/controller/controller_ref_manager.go). Go: confirmAdopter, called through the
        seam adoptionRecheck."""
        self.confirm_holder(ms, "adopting", what, AdoptionRefused)

    def confirm_successor(self, ms: Obj, what: str) -> None:
        """confirm_adopter's twin for the child of a vanished ModelService: before steps 4
        and 5 delete it, confirm_holder, raising ReplacementRefused naming the child (what)
        when ms is gone, another UID holds the name or it is being deleted. "Its owner is
        gone" rests on the cache's ModelService holding the name now, and a ModelService
        watch that lags a delete and re-create, while the Deployment watch has brought the
        new one's child (made by another writer: an earlier leader), would make the living
        owner's child look like a dead one's, and the pass would delete it
        (vanished-owner[successor-unseen]). The garbage collector reads an owner live before
        it deletes a dependent (kube v1.34 GarbageCollector.isDangling). Go:
        confirmSuccessor, called through the seam replacementRecheck."""
        self.confirm_holder(ms, "replacing", what, ReplacementRefused)

    def replace_child(
        self, ms: Obj, live: Obj, resource: client_.Resource, field: str, rlog: log_.Logger
    ) -> None:
        """Delete live, a child of ms whose immutable field (e.g. ``spec.selector``) differs
        from the desired one, so that the next pass creates it anew: with the UID
        precondition (a replacement made meanwhile by someone else survives: 409) and
        propagationPolicy Background (the garbage collector removes the old Deployment's
        ReplicaSets and pods; Orphan would leave pods that match neither selector running
        for ever, Foreground would hold the name until every pod is gone). Records Normal
        Replacing<Kind>. A 404 (gone already) is success; any other failure records Warning
        FailedDelete (none for a 409) and raises client.ApiError (CONTRACT.md,
        "Ownership")."""
        kind, meta = resource.kind, live["metadata"]
        what = f'{kind} "{meta["name"]}"'
        try:
            self.writer.delete(
                resource,
                meta["namespace"],
                meta["name"],
                uid=meta["uid"],
                propagation_policy="Background",
            )
        except Exception as err:
            if client_.is_not_found(err):
                return
            failed_write(self.recorder, ms, "delete", what, err)
            raise
        rlog.info("Replacing " + kind, child=f"{kind}/{meta['name']}", field=field)
        self.recorder.event(
            ms,
            events_.NORMAL,
            "Replacing" + kind,
            f"Deleted {what} to re-create it: {field} is immutable and differs from the desired one",
        )
        crash_point("after-child-delete")

    # -------------------------------------------------------------------------------------------
    # Step 6: Update the status
    # -------------------------------------------------------------------------------------------

    def ensure_service(
        self, ms: Obj, spec: ModelServiceSpec, rlog: log_.Logger
    ) -> tuple[Obj | None, str]:
        """Step 5: ensure_child of the desired Service; returns (the Service, a conflict
        message or ""). A refused write raises RefusedWrite, which reconcile reports in the
        status and re-raises, though step 4's Deployment was written: one child's success
        never hides the other's refusal (refused-write-reported[service-refused]). Raises
        client.ApiError as ensure_child does. Go: ensureService, called through the seam
        ensureServiceSeam."""
        return self.ensure_child(ms, desired_service(ms, spec), SERVICES, mutate_service, rlog)

    def report_refusal(
        self,
        ms: Obj,
        spec: ModelServiceSpec,
        dep: Obj | None,
        refused: RefusedWrite,
        rlog: log_.Logger,
    ) -> None:
        """Step 6 after step 4 or 5 was refused: write the status that names the refusal
        (Ready and Progressing False, the Warning Event's reason and message, this
        generation), so that a user who reads the ModelService, not the log, sees that its
        current spec was refused and why (CONTRACT.md, "Status"). dep is the Deployment as
        last read (None: there is none). The caller then re-raises refused: the key is
        retried with backoff, and the status is not written again while the refusal stays
        the same. A failure of this status write is recorded (Warning FailedUpdate) and
        otherwise dropped: the error that goes back to the queue is the child's."""
        status = compute_status(ms, spec, dep, "", self.now(), refused)
        try:
            self.update_status(ms, status, rlog)
        except Exception:  # recorded by update_status; the child's error goes to the queue
            return

    def update_status(self, ms: Obj, status: Obj, rlog: log_.Logger) -> None:
        """Write status as ms's .status through the status subresource if it differs from
        the stored one; nothing otherwise. Raises client.ApiError (recorded as Warning
        FailedUpdate) when the write fails."""
        if ms.get("status") == status:
            return
        crash_point("before-status")
        ms["status"] = status
        try:
            self.writer.update_status(MODELSERVICES, ms)
        except Exception as err:
            failed_write(self.recorder, ms, "update", "status of " + model_service_string(ms), err)
            raise
        rlog.info("Updated status")


# ================================================================================================
# Step 1: Load the ModelService (its spec)
# ================================================================================================


@dataclasses.dataclass(frozen=True)
class ModelServiceSpec:
    """The part of a ModelService the children are built from, read from the JSON object
    (CRD crds/, spec). Hand-written, not generated: the CRD is the schema. Go: the
    modelServiceSpec struct, whose Replicas and Port are pointers until readSpec defaults
    them; here they are always set, and resources is the container's resources as JSON."""

    model: str
    image: str
    replicas: int
    port: int
    args: tuple[str, ...]
    resources: Obj


class SpecError(ValueError):
    """A ModelService whose spec cannot be read (a field of the wrong type, a quantity that
    is none): read_spec's error, one of RECONCILE_ERRORS (Go: readSpec's error, from
    FromUnstructured)."""


#: The exceptions reconcile raises for a reconcile that failed, besides every error of an API
#: request (runtime.client.REQUEST_ERRORS; RefusedWrite is a client.ApiError): a spec that
#: cannot be read, an adoption or a replacement refused, a catalog registration that failed. The controller is
#: given them (runtime.controller.Controller's ``errors``); any other exception escaping
#: reconcile is a bug, logged as ``Observed a panic`` (CONTRACT.md, "A reconcile never
#: panics"). Go returns these as its error; it has no list, a panic being another thing there.
RECONCILE_ERRORS: tuple[type[Exception], ...] = (
    SpecError,
    AdoptionRefused,
    ReplacementRefused,
    catalog_.CatalogError,
)


def read_spec(ms: Obj) -> ModelServiceSpec:
    """Read ms's .spec, with the CRD's defaults (replicas 1, port 8000) filled in for an
    object that somehow lacks them (the API server applies them on every read, so this is
    belt and braces). A field of the wrong type raises SpecError naming the ModelService and
    the field (Go: FromUnstructured's error): the reconcile fails and is retried, the process
    lives on."""
    meta = ms.get("metadata") or {}
    raw = ms.get("spec")
    where = f"reading spec of ModelService {meta.get('namespace')}/{meta.get('name')}"
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: spec is not an object")

    args = typed_field(raw, "args", list, [], where)
    if not all(isinstance(a, str) for a in args):
        raise SpecError(f"{where}: spec.args must be a list of strings")
    return ModelServiceSpec(
        model=typed_field(raw, "model", str, "", where),
        image=typed_field(raw, "image", str, "", where),
        replicas=typed_field(raw, "replicas", int, DEFAULT_REPLICAS, where),
        port=typed_field(raw, "port", int, DEFAULT_PORT, where),
        args=tuple(args),
        resources=default_resources(
            desired_resources(typed_field(raw, "resources", dict, {}, where), where)
        ),
    )


def default_resources(resources: Obj) -> Obj:
    """The container's resources as the API server will store them, a new dict: every
    quantity of limits and requests rounded up to a whole number of thousandths, away from
    zero (1.5m -> 2m, 1e-4 -> 1e-3, -0.5m -> -1m), and written as apimachinery writes it.
    The API server's defaulting does this to every ResourceList it decodes (mirrors
    SetDefaults_ResourceList, k8s.io/kubernetes pkg/apis/core/v1, v1.34: ``val.RoundUp(-3)``),
    so a desired value it would round never equals the stored one, and the operator would
    update the Deployment on every reconcile for ever. The text is the one the API server
    stores for the ModelService's spelling (``runtime.quantity``: the format of the spelling
    is kept, ``12e-1`` is written ``1200e-3``, ``0.5Gi`` ``512Mi``), the bytes Go writes
    (CONTRACT.md, "Desired Deployment"; the table conformance/quantity-spellings.json). The
    text is the desired value: apimachinery writes a DecimalSI value of 10^21 or more without
    a suffix (``1000E`` as ``"1"``), and the API server stores 1, so 1 is what is compared
    (Go reads its quantity back from the text for this). Values that do not parse are left for
    the API server to refuse. Go: defaultResources."""
    result = informer.copy_obj(resources)
    for field in ("limits", "requests"):
        values = result.get(field)
        if isinstance(values, dict):
            for name, spelled in values.items():
                try:
                    parsed = quantity.parse_quantity(spelled)
                except ValueError:
                    continue
                values[name] = parsed.round_up(quantity.MILLI).string()
    return result


# ================================================================================================
# Step 2: Finalize if being deleted (the reconciler's finalize and remove_finalizer are above)
# ================================================================================================


def being_deleted(ms: Obj) -> bool:
    """Whether the ModelService ms is being deleted (metadata.deletionTimestamp set): step 2
    then finalizes, and no later step runs, whatever the spec says now (CONTRACT.md,
    "Deletion"). Go: beingDeleted, called through the seam beingDeletedSeam."""
    return bool(ms["metadata"].get("deletionTimestamp"))


def orphans_children(ms: Obj) -> bool:
    """Whether the ModelService is being deleted with the orphan policy (kubectl delete
    --cascade=orphan, DeleteOptions propagationPolicy Orphan): the API server then puts the
    "orphan" finalizer on it (metav1.FinalizerOrphanDependents), and its dependents must
    survive it (CONTRACT.md, "Deletion")."""
    return controllerutil.contains_finalizer(ms, FINALIZER_ORPHAN)


# ================================================================================================
# Steps 4 and 5: the desired children, and how they are applied to the live ones
# ================================================================================================


def desired_deployment(ms: Obj, spec: ModelServiceSpec) -> Obj:
    """The Deployment the ModelService ms requires, as it would be created: a new apps/v1
    Deployment dict (CONTRACT.md, "Desired Deployment")."""
    name = ms["metadata"]["name"]
    args = [f"--model={spec.model}", f"--port={spec.port}"]
    return {
        "apiVersion": "apps/v1",
        "kind": KIND_DEPLOYMENT,
        "metadata": child_object_meta(ms),
        "spec": {
            "replicas": spec.replicas,
            "selector": {"matchLabels": selector_labels(name)},
            "template": {
                "metadata": {"labels": child_labels(name)},
                "spec": {
                    "containers": [
                        {
                            "name": CONTAINER_NAME,
                            "image": spec.image,
                            "args": [*args, *spec.args],
                            "ports": [
                                {"name": PORT_NAME, "containerPort": spec.port, "protocol": "TCP"}
                            ],
                            "resources": informer.deep_copy(spec.resources),
                        }
                    ],
                },
            },
        },
    }


def desired_service(ms: Obj, spec: ModelServiceSpec) -> Obj:
    """The Service the ModelService ms requires, as it would be created: a new v1 Service
    dict (CONTRACT.md, "Desired Service")."""
    name = ms["metadata"]["name"]
    return {
        "apiVersion": "v1",
        "kind": KIND_SERVICE,
        "metadata": child_object_meta(ms),
        "spec": {
            "type": "ClusterIP",
            "selector": selector_labels(name),
            "ports": [
                {"name": PORT_NAME, "port": spec.port, "targetPort": PORT_NAME, "protocol": "TCP"}
            ],
        },
    }


def child_object_meta(ms: Obj) -> Obj:
    """The metadata both children share, a new dict: the ModelService's name and namespace,
    the three labels, and the controller ownerReference that maps the child's events back
    here."""
    name = ms["metadata"]["name"]
    return {
        "name": name,
        "namespace": ms["metadata"]["namespace"],
        "labels": child_labels(name),
        "ownerReferences": [owner_reference(ms)],
    }


def child_labels(name: str) -> dict[str, str]:
    """The labels on both children and on the pod template, for the ModelService called
    name (CONTRACT.md, "Desired Deployment")."""
    return {LABEL_NAME: name, LABEL_MANAGED_BY: MANAGED_BY, LABEL_MODELSERVICE: name}


def selector_labels(name: str) -> dict[str, str]:
    """The labels that select the pods of the ModelService called name, and only its pods."""
    return {LABEL_MODELSERVICE: name}


def owner_reference(ms: Obj) -> Obj:
    """The ownerReference that makes a child's controller the ModelService ms: the child's
    changes are then routed to it (Owns), the garbage collector deletes the child after it,
    and no other controller may claim the child. Raises KeyError if ms has no uid."""
    return {
        "apiVersion": MODELSERVICES.api_version,
        "kind": MODELSERVICES.kind,
        "name": ms["metadata"]["name"],
        "uid": ms["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controlled_by(obj: Obj, ms: Obj) -> bool:
    """Whether obj's controller ownerReference is this ModelService (also used by step 2).
    The UID decides, not the name: a ModelService deleted and re-created under the same name
    is another object, and so is a child someone else made under our name."""
    ref = controller_.controller_of(obj)
    return ref is not None and ref.get("uid") == ms["metadata"].get("uid")


def controlled_by_vanished(obj: Obj, ms: Obj) -> bool:
    """Whether obj's controller ownerReference names a ModelService (group modeldock.io, any
    version) called like ms but with another UID: the child of a ModelService that no longer
    exists, since names are unique at any one time and UIDs are never reused (CONTRACT.md,
    "When the ModelService vanishes"). The garbage collector deletes such a child on its own
    (a dangling owner, kubernetes v1.34 garbagecollector); where none runs it would block
    ms's own child for ever. A child controlled by anything else, or by nothing, is not one.
    Go: controlledByVanished, called through the seam ownerVanished."""
    ref = controller_.controller_of(obj)
    if ref is None or ref.get("kind") != MODELSERVICES.kind:
        return False
    if ref.get("name") != ms["metadata"]["name"] or ref.get("uid") == ms["metadata"].get("uid"):
        return False
    return str(ref.get("apiVersion") or "").split("/")[0] == MODELSERVICES.group


def adoptable(obj: Obj, ms: Obj) -> bool:
    """Whether ms may adopt obj, a same-named child it does not control: obj has no
    controller ownerReference at all and carries our selector label
    ``modeldock.io/modelservice: <ms name>`` (what the garbage collector leaves of a child of
    a ModelService deleted with --cascade=orphan). A child another controller owns never is;
    nor is an ownerless one without the label: a name is not ownership (mirrors the
    ReplicaSet controller, which adopts only ownerless pods its selector matches; kube
    v1.34 ClaimObject)."""
    if controller_.controller_of(obj) is not None:
        return False
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return isinstance(labels, dict) and labels.get(LABEL_MODELSERVICE) == ms["metadata"]["name"]


def immutable_change(resource: client_.Resource, live: Obj, updated: Obj) -> str:
    """The field of a resource child that the API server refuses to change and that mutate
    changed in updated (a mutated copy of live), or "" when there is none. Of the fields the
    operator sets, only a Deployment's ``spec.selector`` is immutable (apps/v1 validation:
    "field is immutable"); a Service's clusterIP, clusterIPs and ipFamilies are immutable too,
    but the operator never sets them (CONTRACT.md, "Ownership"). Go: immutableChange, which
    switches on the child's type where Python is given its resource."""
    if resource.kind != KIND_DEPLOYMENT:
        return ""
    before = (live.get("spec") or {}).get("selector")
    after = (updated.get("spec") or {}).get("selector")
    return "spec.selector" if before != after else ""


def mutate_deployment(live: Obj, desired: Obj) -> None:
    """Apply the fields the ModelService decides to live, a copy of the stored Deployment,
    in place, and nothing else (CONTRACT.md, "Desired Deployment", Mutate). Everything the
    API server defaulted (strategy, imagePullPolicy, terminationMessagePath, ...) and
    everything other writers set (annotations, extra labels, extra containers) stays as
    stored, so that a copy with nothing to change compares equal to the stored object and no
    write is sent."""
    desired = informer.copy_obj(desired)
    merge_labels(live.setdefault("metadata", {}), desired["metadata"]["labels"])
    live["metadata"]["ownerReferences"] = ensure_owner_reference(
        live["metadata"].get("ownerReferences") or [], desired["metadata"]["ownerReferences"][0]
    )
    spec = live.setdefault("spec", {})
    spec["replicas"] = desired["spec"]["replicas"]
    spec["selector"] = desired["spec"]["selector"]
    template = spec.setdefault("template", {})
    merge_labels(
        template.setdefault("metadata", {}), desired["spec"]["template"]["metadata"]["labels"]
    )

    want = desired["spec"]["template"]["spec"]["containers"][0]
    containers = template.setdefault("spec", {}).setdefault("containers", [])
    for container in containers:
        if container.get("name") == want["name"]:
            container["image"] = want["image"]
            container["args"] = want["args"]
            container["ports"] = want["ports"]
            container["resources"] = semantic_resources(
                container.get("resources"), want["resources"]
            )
            return
    containers.append(want)


def mutate_service(live: Obj, desired: Obj) -> None:
    """Apply the fields the ModelService decides to live, a copy of the stored Service, in
    place (CONTRACT.md, "Desired Service", Mutate). clusterIP, ipFamilies, sessionAffinity
    and the other server defaults stay."""
    desired = informer.copy_obj(desired)
    merge_labels(live.setdefault("metadata", {}), desired["metadata"]["labels"])
    live["metadata"]["ownerReferences"] = ensure_owner_reference(
        live["metadata"].get("ownerReferences") or [], desired["metadata"]["ownerReferences"][0]
    )
    spec = live.setdefault("spec", {})
    spec["type"] = desired["spec"]["type"]
    spec["selector"] = desired["spec"]["selector"]
    spec["ports"] = desired["spec"]["ports"]


def merge_labels(meta: Obj, desired: dict[str, str]) -> None:
    """Set the desired labels in meta["labels"] (created if absent) and keep any others."""
    labels = meta.get("labels")
    if not isinstance(labels, dict):
        labels = meta["labels"] = {}
    labels.update(desired)


def ensure_owner_reference(refs: list[Obj], want: Obj) -> list[Obj]:
    """A new list: refs with the reference to the same owner (by UID) replaced by want, or
    want appended; references to other owners are kept, in order."""
    refs = list(refs)
    for i, ref in enumerate(refs):
        if ref.get("uid") == want["uid"]:
            refs[i] = want
            return refs
    return [*refs, want]


# ================================================================================================
# Step 6: Update the status
# ================================================================================================

#: The condition types this operator writes, in the order it appends them when they are
#: absent. Every other type in status.conditions belongs to someone else.
OWNED_CONDITIONS = (CONDITION_READY, CONDITION_PROGRESSING)


def compute_status(
    ms: Obj,
    spec: ModelServiceSpec,
    dep: Obj | None,
    conflict: str,
    now: datetime,
    refused: RefusedWrite | None = None,
) -> Obj:
    """Rebuild the status from the Deployment (dep; None when there is none of ours), the
    conflict message of step 4 or 5 ("" when there is none) and the refused write of step 4
    or 5 (None when there is none). Ready and Progressing start from the stored ones so that
    a condition whose status does not change keeps its lastTransitionTime; now is the time of
    any transition. It returns .status as a new dict, the form it is stored in, so the caller
    compares like with like (CONTRACT.md, "Status").

    The conditions follow the table of CONTRACT.md, first row that applies: a conflict; a
    refused write (the Warning Event's reason and message); otherwise the Deployment's
    rollout as judge_rollout judges it (kubectl rollout status's rule): stalled, in progress
    (Ready False: old pods may still serve) or complete (Ready True). Every message is cut
    to the CRD's bound (bound_message).

    status.conditions is a map keyed by type (the CRD says x-kubernetes-list-type: map), and
    the Kubernetes API conventions let other controllers add their own types. This operator
    owns Ready, Progressing and the scalar fields, nothing else: every other condition is
    kept exactly as stored, in its place, with its timestamps."""
    meta = ms["metadata"]
    name, generation = meta["name"], int(meta.get("generation") or 0)

    stored = ms.get("status")
    stored_conditions = stored.get("conditions") if isinstance(stored, dict) else None
    conditions: list[Obj] = [
        informer.copy_obj(c)
        for c in (stored_conditions if isinstance(stored_conditions, list) else [])
        if isinstance(c, dict)
    ]

    status: Obj = {
        "observedGeneration": generation,
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "selector": f"{LABEL_MODELSERVICE}={name}",
        "url": f"http://{name}.{meta['namespace']}.svc:{spec.port}",
    }
    if not conflict and dep is not None:
        dep_status = dep.get("status") or {}
        status["replicas"] = int(dep_status.get("replicas") or 0)
        status["readyReplicas"] = int(dep_status.get("readyReplicas") or 0)
        status["availableReplicas"] = int(dep_status.get("availableReplicas") or 0)

    def set_(cond_type: str, cond_status: str, reason: str, message: str) -> None:
        message = bound_message(message)
        set_condition(conditions, cond_type, cond_status, reason, message, generation, now)

    if conflict:
        set_(CONDITION_READY, "False", REASON_CHILD_CONFLICT, conflict)
        set_(CONDITION_PROGRESSING, "False", REASON_CHILD_CONFLICT, conflict)
    elif refused is not None:
        set_(CONDITION_READY, "False", refused.event_reason, refused.event_message)
        set_(CONDITION_PROGRESSING, "False", refused.event_reason, refused.event_message)
    else:
        rollout, message = judge_rollout(name, dep)
        if rollout == ROLLOUT_STALLED:
            set_(CONDITION_READY, "False", REASON_PROGRESS_DEADLINE_EXCEEDED, message)
            set_(CONDITION_PROGRESSING, "False", REASON_PROGRESS_DEADLINE_EXCEEDED, message)
        elif rollout == ROLLOUT_PROGRESSING:
            set_(CONDITION_READY, "False", REASON_REPLICAS_UNAVAILABLE, message)
            set_(CONDITION_PROGRESSING, "True", REASON_ROLLOUT_IN_PROGRESS, message)
        else:
            set_(CONDITION_READY, "True", REASON_REPLICAS_AVAILABLE, message)
            set_(CONDITION_PROGRESSING, "False", REASON_ROLLOUT_COMPLETE, message)
    # set_condition changed Ready and Progressing in place (or appended them, in that order);
    # every other condition is as stored. (Go gets the same list from mergeConditions.)
    status["conditions"] = conditions
    if isinstance(stored, dict) and isinstance(stored.get("catalog"), dict):
        status["catalog"] = informer.copy_obj(stored["catalog"])  # kept as stored (catalog.py)
    return status


def judge_rollout(name: str, dep: Obj | None) -> tuple[str, str]:
    """Judge the rollout of the Deployment dep (named name; None counts as one with no status
    yet) as ``kubectl rollout status`` does, in its order (mirrors DeploymentStatusViewer,
    k8s.io/kubectl pkg/polymorphichelpers/rollout_status.go, v0.34), and say why in one
    line. Returns (ROLLOUT_PROGRESSING, ROLLOUT_STALLED or ROLLOUT_COMPLETE, message):

    1. its generation is newer than status.observedGeneration: the deployment controller has
       not seen the current spec yet, so no count says anything about it (progressing);
    2. its Progressing condition has reason ProgressDeadlineExceeded: stalled, with the
       Deployment's own message;
    3. status.updatedReplicas < spec.replicas: pods of the current template still missing;
    4. status.replicas > status.updatedReplicas: old pods still to terminate;
    5. status.availableReplicas < status.updatedReplicas: new pods not available yet;
    6. otherwise complete.

    Availability alone is not enough: in the middle of a rolling update every replica can be
    available while half of them still run the old template."""
    dep = dep or {}
    generation = int((dep.get("metadata") or {}).get("generation") or 0)
    spec_replicas = (dep.get("spec") or {}).get("replicas")
    replicas = DEFAULT_REPLICAS if spec_replicas is None else int(spec_replicas)
    dep_status = dep.get("status") or {}
    observed = int(dep_status.get("observedGeneration") or 0)
    current = int(dep_status.get("replicas") or 0)
    updated = int(dep_status.get("updatedReplicas") or 0)
    available = int(dep_status.get("availableReplicas") or 0)
    what = f'Deployment "{name}"'
    if generation > observed:
        # No numbers in the message: a generation bump alone (an annotation, a repair)
        # changes no state, and so writes no status.
        return (
            ROLLOUT_PROGRESSING,
            f"{what} is waiting for the deployment controller to observe its latest spec",
        )
    progressing = next(
        (
            c
            for c in dep_status.get("conditions") or []
            if isinstance(c, dict) and c.get("type") == CONDITION_PROGRESSING
        ),
        None,
    )
    if progressing is not None and progressing.get("reason") == REASON_PROGRESS_DEADLINE_EXCEEDED:
        return (
            ROLLOUT_STALLED,
            f"{what} exceeded its progress deadline: {progressing.get('message') or ''}",
        )
    if updated < replicas:
        return ROLLOUT_PROGRESSING, f"{what} has {updated}/{replicas} updated replicas"
    if current > updated:
        return (
            ROLLOUT_PROGRESSING,
            f"{what} has {current - updated} old replicas pending termination",
        )
    if available < updated:
        return ROLLOUT_PROGRESSING, f"{what} has {available}/{updated} updated replicas available"
    return ROLLOUT_COMPLETE, f"{what} has {available}/{replicas} available replicas"


def bound_message(message: str) -> str:
    """message as a condition may hold it: unchanged when it has at most MESSAGE_MAX_LENGTH
    characters (the CRD's maxLength, counted in characters as the API server's OpenAPI
    validation counts them), else its beginning followed by TRUNCATED_MARKER, MESSAGE_MAX_LENGTH
    characters in all. A refusal's message can be arbitrarily long (an admission webhook's,
    a list of invalid fields), and a status that breaks the CRD's bound is itself refused:
    the report of the refusal would be lost with it."""
    if len(message) <= MESSAGE_MAX_LENGTH:
        return message
    return message[: MESSAGE_MAX_LENGTH - len(TRUNCATED_MARKER)] + TRUNCATED_MARKER


def set_condition(
    conditions: list[Obj],
    cond_type: str,
    status: str,
    reason: str,
    message: str,
    generation: int,
    now: datetime,
) -> bool:
    """Set one condition in conditions, in place, as meta.SetStatusCondition (apimachinery
    v0.34) does: reason, message and observedGeneration always, lastTransitionTime (now, to
    the second, UTC) only when the condition is new (appended) or its status changes. A
    condition's lastTransitionTime answers "since when has this been so?", and rewriting it
    on every reconcile would both lie and cost a write per reconcile. Returns whether
    anything changed."""
    transition = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    existing = next((c for c in conditions if c.get("type") == cond_type), None)
    if existing is None:
        conditions.append(
            {
                "type": cond_type,
                "status": status,
                "observedGeneration": generation,
                "lastTransitionTime": transition,
                "reason": reason,
                "message": message,
            }
        )
        return True

    changed = False
    if existing.get("status") != status:
        existing["status"] = status
        existing["lastTransitionTime"] = transition
        changed = True
    if existing.get("reason") != reason:
        existing["reason"] = reason
        changed = True
    if existing.get("message") != message:
        existing["message"] = message
        changed = True
    if int(existing.get("observedGeneration") or 0) != generation:
        existing["observedGeneration"] = generation
        changed = True
    return changed


# ================================================================================================
# Events (CONTRACT.md, "Events")
# ================================================================================================


def failed_write(recorder: events_.Recorder, ms: Obj, verb: str, what: str, err: Exception) -> None:
    """Record Warning "Failed<Verb>" with message "Failed to <verb> <what>: <error>" about
    the ModelService ms, for the write that raised err. The caller then re-raises err (a bare
    ``raise``) for the queue to retry; Go's failedWrite returns err for the caller to return.
    A 409 (Conflict, AlreadyExists) records nothing: it says the cache was behind, and the
    next reconcile recomputes from a fresher one. A Warning is for what a user may have to
    act on, not for optimistic concurrency doing its job."""
    if client_.is_conflict(err):
        return
    recorder.event(ms, events_.WARNING, *failure_event(verb, what, err))


def failure_event(verb: str, what: str, err: Exception) -> tuple[str, str]:
    """The Warning Event of a failed write: (reason "Failed<Verb>", message "Failed to <verb>
    <what>: <error>"), the error as error_message gives it."""
    return "Failed" + verb.capitalize(), f"Failed to {verb} {what}: {error_message(err)}"


def error_message(err: Exception) -> str:
    """The text of err as an Event and a condition carry it: ``str(err)``, except for an
    answer of the API server that lists two or more causes. Its message then ends with them as
    apimachinery writes them (``[<field>: <message>, ...]``, each once, in the order of
    details.causes), and that order is the order validation met them in, which ranges over Go
    maps (a ResourceList): it changes from one try to the next. error_message puts that list in
    sorted order (code point order, which is Go's byte order of UTF-8), so the same refusal
    gives the same bytes on every retry and in both operators, and step 6 does not write the
    status again for a refusal that did not change (CONTRACT.md, "A refused child write"). A
    message that does not end with its causes so (an admission webhook's own wording) is kept
    as it is. Go: errorMessage."""
    message = str(err)
    if not isinstance(err, client_.ApiError):
        return message
    listed: list[str] = []
    for field, text in err.causes:
        if (item := f"{field}: {text}") not in listed:
            listed.append(item)
    as_sent = "[" + ", ".join(listed) + "]"
    if len(listed) < 2 or not message.endswith(as_sent):
        return message
    return message[: -len(as_sent)] + "[" + ", ".join(sorted(listed)) + "]"


class RefusedWrite(client_.ApiError):
    """A child write the API server refused with an answer other than 409 (422 Invalid, 403
    from an admission policy or a quota, ...): the same client.ApiError (status, reason,
    message, and its text), with the Warning Event's reason and message, which step 6 puts in
    the conditions (report_refusal). live is the child as last read before the write (None:
    there was none); Go's ensureChild returns it beside the error. Go: refusedWrite, which
    wraps the error."""

    def __init__(
        self, err: client_.ApiError, event_reason: str, event_message: str, live: Obj | None
    ) -> None:
        super().__init__(err.status, err.reason, err.message, err.causes)
        self.event_reason = event_reason
        self.event_message = event_message
        self.live = live


def as_refused_write(err: Exception, verb: str, what: str, live: Obj | None) -> RefusedWrite | None:
    """err, the failure of a child's create or update (verb) of what (``Deployment "web"``),
    as a RefusedWrite when it is the API server's refusal: a client.ApiError other than 409;
    None otherwise, and the caller re-raises err as it is. A 409 (Conflict, AlreadyExists)
    only says the cache was behind, and an error that is not an answer (no connection) says
    nothing about the spec. Go: asRefusedWrite, which returns err itself where this returns
    None."""
    if not isinstance(err, client_.ApiError) or client_.is_conflict(err):
        return None
    return RefusedWrite(err, *failure_event(verb, what, err), live)


def model_service_string(ms: Obj) -> str:
    """How Event messages name the ModelService ms: ``ModelService "<name>"``."""
    return f'{MODELSERVICES.kind} "{ms["metadata"]["name"]}"'


# ================================================================================================
# Crash points (CONTRACT.md, "Crash points")
# ================================================================================================


def crash_point(name: str) -> None:
    """Exit the process at once, with code 86, when MODELDOCK_CRASH_AT names this point.
    Fault tests use it to stop the operator between two writes, exactly where a real crash
    would hurt most; os._exit runs no finally block or atexit hook and releases no Lease,
    like a SIGKILL. Returns (doing nothing) for any other point."""
    if os.environ.get(CRASH_AT_ENV) != name:
        return
    log_.get_logger("").info("crash point reached", point=name)
    log_.flush()
    os._exit(CRASH_EXIT_CODE)


# ================================================================================================
# Python only: what Go gets from client.Client, typed structs and resource.Quantity
# ================================================================================================


class Reader(Protocol):
    """Python only (Go: client.Reader, the cached half of client.Client). Reads objects from
    the informer cache: a deep copy, or None when it holds none."""

    def get(self, resource: client_.Resource, namespace: str, name: str) -> Obj | None:
        """A deep copy of the cached namespace/name of resource, or None."""
        ...


class APIReader(Protocol):
    """Python only (Go: client.Reader from mgr.GetAPIReader()). Reads objects from the API
    server itself, uncached: the object as stored now, or None when there is none; other
    errors raise client.ApiError."""

    def get(self, resource: client_.Resource, namespace: str, name: str) -> Obj | None:
        """namespace/name of resource as the API server holds it now, or None (404)."""
        ...


class Writer(Protocol):
    """Python only (Go: the writing half of client.Client). Writes objects to the API server
    and returns them as stored; a refused write raises client.ApiError."""

    def create(self, resource: client_.Resource, obj: Obj) -> Obj:
        """POST obj (409 AlreadyExists if the name is taken)."""
        ...

    def update(self, resource: client_.Resource, obj: Obj) -> Obj:
        """PUT obj over its resourceVersion (409 Conflict if it moved)."""
        ...

    def update_status(self, resource: client_.Resource, obj: Obj) -> Obj:
        """PUT obj's status through the status subresource (409 Conflict if it moved)."""
        ...

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
        """DELETE namespace/name, with a UID precondition (409 if the object is another), a
        resourceVersion precondition (409 if it changed since read) and a propagation policy
        when given; 404 if it is gone."""
        ...


def typed_field(raw: Obj, name: str, kind: type, default: Any, where: str) -> Any:
    """Python only: spec field name of raw, default when absent or null, checked to be a kind
    (an int that is a bool is not an int). Go gets this from decoding into the typed
    modelServiceSpec (FromUnstructured). Raises SpecError beginning with where."""
    value = raw.get(name, default)
    if value is None:
        value = default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SpecError(f"{where}: spec.{name} is {value!r}, not {kind.__name__}")
    return value


def desired_resources(raw: Obj, where: str) -> Obj:
    """Python only: spec.resources as a container's resources, a new dict: quantities as
    strings (the CRD also allows numbers), empty lists left out as Go's omitempty does, so
    that an unchanged world compares equal to what the API server stored. Raises SpecError
    beginning with where for limits or requests that are not objects, a value that is not
    a quantity, or one whose exponent is beyond ``quantity.MAX_EXPONENT`` (``1e-999999999``:
    the CRD refuses it, an older CRD or an edit with validation off does not; parsing it would
    compute ten to that power). Go: readSpec's checkResourceExponents."""
    resources: Obj = {}
    for field in ("limits", "requests"):
        values = raw.get(field) or {}
        if not isinstance(values, dict):
            raise SpecError(f"{where}: spec.resources.{field} is not an object")
        if values:
            try:
                resources[field] = {name: quantity_string(q) for name, q in values.items()}
            except ValueError as exc:
                raise SpecError(f"{where}: spec.resources.{field}: {exc}") from None
            for name, text in resources[field].items():
                try:
                    quantity.check_exponent(text)
                except ValueError as exc:
                    raise SpecError(f"{where}: spec.resources.{field}.{name}: {exc}") from None
    claims = raw.get("claims")
    if claims:
        resources["claims"] = informer.deep_copy(claims)
    return resources


def quantity_string(value: object) -> str:
    """Python only: a quantity as the string form the API server stores (a number n becomes
    str(n); Go: resource.Quantity's JSON form, before canonicalisation). Raises ValueError for
    anything that is not a string or a number (a bool included)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{value!r} is not a quantity")
    return value if isinstance(value, str) else str(value)


def semantic_resources(live: Obj | None, want: Obj) -> Obj:
    """Python only: a copy of want, except that a quantity equal by value to the live one
    keeps the live spelling.

    Go compares resource.Quantity values (equality.Semantic: 1000m equals 1); JSON compares
    strings. The API server stores quantities in canonical form, so spec "1000m" is stored
    as "1": keeping the stored spelling when the values agree makes an unchanged world compare
    equal, and a changed value still differs."""
    result = informer.copy_obj(want)
    have = live if isinstance(live, dict) else {}
    for field in ("limits", "requests"):
        wanted = result.get(field)
        stored = have.get(field)
        if not isinstance(wanted, dict) or not isinstance(stored, dict):
            continue
        for name, value in wanted.items():
            if name in stored and same_quantity(stored[name], value):
                wanted[name] = stored[name]
    return result


def same_quantity(a: object, b: object) -> bool:
    """Python only: whether two quantities are equal by value (Go: resource.Quantity.Cmp ==
    0; ``runtime.quantity``, which parses as Go does). Values that do not parse are compared
    as they are."""
    try:
        first = quantity.parse_quantity(quantity_string(a))
        second = quantity.parse_quantity(quantity_string(b))
    except ValueError:
        return a == b
    return first.compare(second) == 0


def find_condition(conditions: list[Obj], cond_type: str) -> Obj:
    """Python only (Go: meta.FindStatusCondition, which returns nil where this raises): the
    condition of type cond_type in conditions, the dict itself; KeyError if there is none."""
    for condition in conditions:
        if condition.get("type") == cond_type:
            return condition
    raise KeyError(cond_type)
