// controller.go: the ModelService reconciler.
//
// Python twin: python_operator/controller.py. Read the two side by side: the same functions in
// the same order under the same section headers, the same steps with the same numbers and
// titles, the same desired objects, conditions, Events and log messages. The exact contract both
// follow is conformance/CONTRACT.md.
//
// The one idea to take from this file: Reconcile is level-triggered. A request carries only a
// namespace/name, never "what happened". Each call reads the world as it is now (from the
// informer cache), computes what the ModelService with that name requires, and writes only
// the difference. A crash, a missed event or a restart therefore loses nothing: the next call
// computes the same answer from the same world.
//
// The order of both files (Python names are these in snake_case):
//
//	the reconciler   ModelServiceReconciler; Reconcile (steps 1 to 7); finalize, readLive,
//	                 readDeletingLive, finalizeChild, removeFinalizer, deleteChild,
//	                 deleteChildOfVanished, deleteChildIf, deleteChildrenOfGone
//	                 (step 2, and a vanished ModelService); ensureChild, confirmHolder,
//	                 confirmAdopter, confirmSuccessor, replaceChild, ensureService (steps 4
//	                 and 5);
//	                 reportRefusal, updateStatus (step 6)
//	step 1           modelServiceSpec, readSpec, defaultResources
//	step 2           orphansChildren
//	steps 4 and 5    desiredDeployment, desiredService, childObjectMeta, childLabels,
//	                 selectorLabels, ownerReference, controlledBy, controlledByVanished,
//	                 adoptable, immutableChange, mutateDeployment, mutateService,
//	                 mergeLabels, ensureOwnerReference
//	step 6           ownedConditions, computeStatus, judgeRollout, boundMessage,
//	                 setCondition
//	Events           failedWrite, failureEvent, errorMessage, refusedWrite,
//	                 asRefusedWrite, modelServiceString
//	crash points     crashPoint
//
// What only Go has is marked "Go only:" where it stands (now, kindOf, modelServiceStatus,
// storedCondition, mergeConditions, recordEvent); what only Python has (typing dicts, parsing
// quantities) is the last section of controller.py.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// modelServiceGVK is the one kind this operator reconciles. There are no generated Go types
// for it: the ModelService is read as unstructured JSON, so the CRD in crds/ stays the only
// definition of the API, for Go and Python alike.
var modelServiceGVK = schema.GroupVersionKind{Group: "modeldock.io", Version: "v1alpha1", Kind: "ModelService"}

const (
	// finalizerName holds deletion of a ModelService until its children are deleted.
	finalizerName = "modeldock.io/cleanup"

	// Labels every child carries. labelModelService alone is the selector: it names the
	// ModelService, so two ModelServices never select each other's pods.
	labelName         = "app.kubernetes.io/name"
	labelManagedBy    = "app.kubernetes.io/managed-by"
	labelModelService = "modeldock.io/modelservice"
	managedBy         = "modeldock"

	containerName = "server"
	portName      = "http"

	defaultReplicas = 1
	defaultPort     = 8000

	// Condition types, in the order they are written, and their reasons.
	conditionReady            = "Ready"
	conditionProgressing      = "Progressing"
	reasonChildConflict       = "ChildConflict"
	reasonReplicasUnavailable = "ReplicasUnavailable"
	reasonRolloutInProgress   = "RolloutInProgress"
	reasonReplicasAvailable   = "ReplicasAvailable"
	reasonRolloutComplete     = "RolloutComplete"
	// The Deployment's own reason for a rollout that gave up (appsv1 has no constant for it;
	// kubectl rollout status and the deployment controller use the same string).
	reasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// What judgeRollout concludes, in kubectl rollout status's terms.
	rolloutProgressing, rolloutStalled, rolloutComplete = "progressing", "stalled", "complete"
	// The CRD's bound on a condition's message (maxLength, in characters), and what a
	// message cut to fit it ends with.
	messageMaxLength            = 32768
	truncatedMarker             = " ... [truncated]"
	crashExitCode               = 86
	deletionRequeueAfter        = time.Second
	conflictRequeueAfter        = 5 * time.Second
	crashAtEnv                  = "MODELDOCK_CRASH_AT"
	kindDeployment, kindService = "Deployment", "Service"
)

// Event reasons (CONTRACT.md, "Events"), besides reasonChildConflict: Normal "Created<Kind>",
// "Updated<Kind>", "Deleted<Kind>" for a child this reconcile wrote, reasonRemovedFinalizer;
// Warning "Failed<Verb>" for a write that failed.
const reasonRemovedFinalizer = "RemovedFinalizer"

// ==============================================================================================
// The reconciler (CONTRACT.md, "Reconcile, step by step")
// ==============================================================================================

// ModelServiceReconciler reconciles a ModelService into a Deployment and a Service.
//
// Its Client reads from the manager's informer cache and writes to the API server; APIReader
// reads from the API server itself (mgr.GetAPIReader()), for the one decision the cache
// cannot be trusted with: that no child is left (see finalize). The reconciler holds no other
// state: everything it decides, it decides again on the next call, so any number of
// reconcilers (a restarted process, a new leader) built with only these reach the same result.
//
// Python: the ModelServiceReconciler class, whose reader and writer are the embedded
// client.Client, live the APIReader, now the Clock, recorder the Recorder.
type ModelServiceReconciler struct {
	client.Client
	APIReader client.Reader
	// Recorder records Events about the ModelService, written in the background; nil records
	// none.
	Recorder record.EventRecorder
	// Clock tells the time of a condition's transition (lastTransitionTime), the one time
	// the reconciler reads; nil is the real clock. Tests set a clocktesting.FakePassiveClock,
	// so that no test has to wait for the time to pass.
	Clock clock.PassiveClock
	// Catalog is the model catalog each generation is registered with (catalog.go); nil
	// registers nothing (MODELDOCK_CATALOG_URL unset).
	Catalog *catalogClient
}

// now is the time on r.Clock, or on the real clock when r has none. Go only: Python's
// reconciler is given now, a function, where Go is given a clock.PassiveClock.
func (r *ModelServiceReconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// Reconcile makes the cluster hold what the ModelService req names requires, now.
//
// Outcomes: a nil error and an empty Result when the cluster matches (or the ModelService is
// gone); RequeueAfter 1s while deletion waits for children to leave the cache; RequeueAfter 5s
// while a same-named child belongs to someone else; an error when a read or write failed (the
// API server's, or readSpec's for a spec that cannot be read), in which case
// controller-runtime requeues the request with rate-limited backoff and the next call starts
// again from the cache. A 409 Conflict is such an error: the object this call read was stale,
// and retrying the same write can only fail again.
func (r *ModelServiceReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx).WithValues("modelservice", req.String())
	ctx = logf.IntoContext(ctx, log)
	log.Info("Reconciling ModelService")

	// 1: Load the ModelService
	//
	// From the cache, by name. The request says nothing else: not "created", not "replicas
	// changed". Not found means it is gone, finalizer and all; there is nothing left to do,
	// and the children, if any, belong to the garbage collector through their ownerReference.
	ms := newModelService()
	if err := r.Get(ctx, req.NamespacedName, ms); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	spec, err := readSpec(ms)
	if err != nil {
		return ctrl.Result{}, err
	}

	// 2: Finalize if being deleted
	//
	// A deletionTimestamp is the API server saying "delete once the finalizers are gone".
	// Cleanup is a state to reach like any other, so a process that stops halfway finds the
	// same deleting object on restart and carries on.
	if beingDeletedSeam(ms) {
		return r.finalize(ctx, ms)
	}

	// 3: Ensure the finalizer
	//
	// It goes on before any child exists, so no child can be created for a ModelService that
	// could then vanish without its cleanup running. The Update returns the stored object,
	// with its new resourceVersion, and the next steps continue from that.
	if !controllerutil.ContainsFinalizer(ms, finalizerName) {
		addFinalizer(ms, finalizerName)
		if err := r.Update(ctx, ms); err != nil {
			return ctrl.Result{}, failedWrite(r.Recorder, ms, "update", modelServiceString(ms), err)
		}
		log.Info("Added finalizer")
		crashPointSeam("after-finalizer")
	}

	// 4: Ensure the Deployment
	//
	// CreateOrUpdate, with the ownership decision first: a Deployment of this name that
	// another owner controls (or an ownerless one without our label) is reported, never
	// adopted or overwritten; an ownerless one with our label is adopted; one of ours whose
	// immutable selector differs is replaced.
	// A write the API server refuses reaches the status before the error goes back to the
	// queue (reportRefusal).
	dep, conflict, err := ensureChild(ctx, r, ms, desiredDeployment(ms, spec), &appsv1.Deployment{}, mutateDeploymentSeam)
	if err != nil {
		return ctrl.Result{}, r.reportRefusal(ctx, ms, spec, dep, err)
	}

	// 5: Ensure the Service
	//
	// Skipped when the Deployment is in conflict: the status reports the first conflict, and
	// a ModelService that cannot run its pods has no use for a Service yet.
	var svc *corev1.Service
	if conflict == "" {
		svc, conflict, err = ensureServiceSeam(ctx, r, ms, spec)
		if err != nil {
			return ctrl.Result{}, r.reportRefusal(ctx, ms, spec, dep, err)
		}
	}

	// 6: Update the status
	//
	// Status is rebuilt from what the Deployment reports, never patched from what this call
	// did, and written only if it differs from the stored status: an unchanged world costs
	// no write, and lastTransitionTime moves only when a condition's status does.
	status, err := stepStatus(ms, spec, dep, conflict, r.now(), nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	// With a catalog, the generation is registered first, once (catalog.go).
	if err := r.registerInCatalog(ctx, ms, spec, conflict, status); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.updateStatus(ctx, ms, status); err != nil {
		if statusTargetGone(err) {
			// The ModelService is gone although this pass holds it with our finalizer:
			// the API server deleted it while the finalizer went on (kubernetes#77988).
			// (dep is nil after a replacement, svc when step 5 did not run.)
			var children []client.Object
			if dep != nil {
				children = append(children, dep)
			}
			if svc != nil {
				children = append(children, svc)
			}
			return ctrl.Result{}, modelServiceGone(ctx, r, ms, err, children)
		}
		return ctrl.Result{}, err
	}

	// 7: Return
	//
	// Nothing to requeue: the watches on the ModelService and on its children bring the
	// request back when anything this result depends on changes. Except after a conflict: the foreign
	// child has no ownerReference to us, so Owns never maps its events here, and only polling
	// notices when it is gone.
	if conflict != "" {
		return ctrl.Result{RequeueAfter: conflictRequeueAfter}, nil
	}
	return settledResult(), nil
}

// nothingToRequeue is step 7's result when the cluster matches: an empty Result, nothing
// requeued (the watches bring the request back). Reconcile returns it through the seam
// settledResult (seams.go).
func nothingToRequeue() ctrl.Result {
	return ctrl.Result{}
}

// ----------------------------------------------------------------------------------------------
// Step 2: Finalize if being deleted
// ----------------------------------------------------------------------------------------------

// finalize is step 2: delete the children this ModelService controls, wait until the API
// server no longer holds them, then remove the finalizer, last. The finalizer only orders the
// cleanup; what is ours is decided by the ownerReference UID, so a same-named child that was
// replaced by someone else's is never deleted.
//
// The deletion policy the user chose is honoured (CONTRACT.md, "Deletion"): with the orphan
// finalizer on the object (kubectl delete --cascade=orphan) the children must survive, so only
// our finalizer is removed and no child is deleted; the garbage collector then strips their
// ownerReferences. Finalizers that are not ours are never touched.
//
// The children are read with the APIReader, not from the cache. The cache can lag the
// operator's own writes: a Deployment this process created a moment ago, in the reconcile
// that added the finalizer, may not be in the cache yet. Concluding "no child left" from the
// cache would remove the finalizer while the child exists, and the child would outlive its
// ModelService, owned by a UID that no longer exists.
//
// Before any child is deleted, the ModelService is read live (readDeletingLive): a policy
// switched to orphan since the cache last heard of it is honoured, and so is a ModelService
// gone meanwhile (nothing left to do).
//
// ms is the deleting ModelService as read. It returns an empty Result when the finalizer is
// gone or was never there, RequeueAfter 1s while a child of ours remains, and the error of a
// live read, a delete (other than 404 and 409) or the final Update.
func (r *ModelServiceReconciler) finalize(ctx context.Context, ms *unstructured.Unstructured) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	if !controllerutil.ContainsFinalizer(ms, finalizerName) {
		return ctrl.Result{}, nil
	}
	if orphansChildren(ms) {
		log.Info("Orphaned children", "propagationPolicy", string(metav1.DeletePropagationOrphan))
		return r.removeFinalizer(ctx, ms)
	}
	// The policy as it stands, not as the cache last heard it: a later delete may have switched
	// it to orphan (deletion-policy[switched-to-orphan]).
	live, err := deletingModelServiceSeam(ctx, r, ms)
	if err != nil || live == nil || !controllerutil.ContainsFinalizer(live, finalizerName) {
		return ctrl.Result{}, err
	}
	if orphansChildren(live) {
		log.Info("Orphaned children", "propagationPolicy", string(metav1.DeletePropagationOrphan))
		return r.removeFinalizer(ctx, live)
	}
	ms = live

	remaining := false
	for _, child := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}} {
		key := client.ObjectKey{Namespace: ms.GetNamespace(), Name: ms.GetName()}
		if err := r.APIReader.Get(ctx, key, child); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return ctrl.Result{}, err
		}
		if !controlledBySeam(child, ms) {
			continue
		}
		left, err := finalizeChildSeam(ctx, r, ms, child)
		if err != nil {
			return ctrl.Result{}, err
		}
		remaining = left || remaining
	}
	if remaining {
		// Come back and read again: the next pass removes the finalizer once the API server
		// shows no child of ours. No watch event of the ModelService will come to bring it
		// back, hence the timed requeue; the children's delete events may come sooner.
		return ctrl.Result{RequeueAfter: deletionRequeueAfter}, nil
	}
	return r.removeFinalizer(ctx, ms)
}

// readLive reads ms from the API server (APIReader, past the cache), for a write that rests on
// ms still holding its name: the live object, nil when it is gone or another ModelService (a
// different UID) holds the name, or the read's error. The pass's three live reads of the
// ModelService share it: readDeletingLive (step 2), confirmAdopter and confirmSuccessor
// (steps 4 and 5, through confirmHolder). Python: read_live.
func readLive(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	fresh := newModelService()
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(ms), fresh)
	if apierrors.IsNotFound(err) || (err == nil && fresh.GetUID() != ms.GetUID()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return fresh, nil
}

// readDeletingLive reads the deleting ModelService ms live (readLive) before step 2 deletes
// any child: the children must be deleted only if the policy the user asked for last says so.
// A DELETE of an object that is already deleting still sets the garbage collector's finalizers
// anew (the API server's updateForGracefulDeletionAndFinalizers), so `kubectl delete` followed
// by `kubectl delete --cascade=orphan` adds `orphan`, and a cache that has not seen that second
// request yet still shows the first policy. Mirrors the garbage collector, which reads an owner
// live before acting on its dependents (kube v1.34 GarbageCollector.isDangling). It returns
// the live object, nil when the ModelService is gone or another of its name stands there (the
// key's next event brings the rest), or the read's error. Called through
// deletingModelServiceSeam (seams.go). Python: read_deleting_live.
func readDeletingLive(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return readLive(ctx, r, ms)
}

// finalizeChild is step 2 for one child of ours that the API server still holds: it deletes
// it once (deleteChild), unless it is deleting already (held by a finalizer of its own: wait,
// do not delete again). It returns true (the child remains until a later pass reads it gone),
// or the delete's error (other than 404 and 409): the pass ends with our finalizer on, and
// the key is retried with backoff, for a child whose delete was refused is not gone
// (finalizer-ordered-delete[delete-refused], CONTRACT.md "Deletion"). Python: finalize_child.
func finalizeChild(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
	child client.Object) (bool, error) {
	if child.GetDeletionTimestamp() == nil {
		if err := deleteChild(ctx, r.Client, r.Recorder, ms, child); err != nil {
			return true, err
		}
	}
	return true, nil
}

// removeFinalizer removes our finalizer, and only ours (controllerutil.RemoveFinalizer), with
// one Update of ms, and records Normal RemovedFinalizer. It returns an empty Result, or the
// Update's error (CONTRACT.md, "Deletion").
func (r *ModelServiceReconciler) removeFinalizer(ctx context.Context, ms *unstructured.Unstructured) (ctrl.Result, error) {
	controllerutil.RemoveFinalizer(ms, finalizerName)
	if err := r.Update(ctx, ms); err != nil {
		return ctrl.Result{}, failedWrite(r.Recorder, ms, "update", modelServiceString(ms), err)
	}
	logf.FromContext(ctx).Info("Removed finalizer")
	recordEvent(r.Recorder, ms, corev1.EventTypeNormal, reasonRemovedFinalizer, fmt.Sprintf("Removed finalizer \"%s\"", finalizerName))
	return ctrl.Result{}, nil
}

// deleteChild deletes child, a child of the ModelService ms, as the garbage collector
// would: with preconditions.uid = the child's UID and propagationPolicy Background. The UID
// precondition makes the delete mean "this object", not "whatever is called this now": if
// the child was replaced since it was read, the API server refuses with 409 and the
// replacement survives. Background: the API server removes the child at once and the garbage
// collector (where one runs) takes its dependents after. A success logs "Deleted child" and
// records Normal Deleted<Kind> about ms; a 404 or 409 counts as gone (nil); any other error
// records Warning FailedDelete and is returned (CONTRACT.md, "Deletion"). Used by finalize
// and modelServiceGone; a child of a vanished ModelService goes by deleteChildOfVanished.
func deleteChild(ctx context.Context, c client.Writer, rec record.EventRecorder, ms *unstructured.Unstructured, child client.Object) error {
	return deleteChildIf(ctx, c, rec, ms, child, client.Preconditions{UID: ptr.To(child.GetUID())})
}

// deleteChildOfVanished deletes child, the child of a ModelService of ms's name that no longer
// exists, as the garbage collector deletes a dependent it judged from its own graph (kube
// v1.34 GarbageCollector.deleteObject): preconditions UID and the resourceVersion as read,
// propagationPolicy Background. The resourceVersion makes the delete mean "this object as I
// read it": the cache may not yet have seen the orphaning that stripped the dead owner's
// ownerReference (kubectl delete --cascade=orphan, then a ModelService of the same name
// again), and such a child is the successor's to adopt, its pods kept, not to delete
// (vanished-owner[orphaned-unseen]). A 409 is returned as it came (no Event): the key is
// retried, and the next pass reads the child again. Otherwise as deleteChild. Called through
// deleteVanishedChild (seams.go). Python: delete_vanished_child.
func deleteChildOfVanished(ctx context.Context, c client.Writer, rec record.EventRecorder, ms *unstructured.Unstructured, child client.Object) error {
	return deleteChildIf(ctx, c, rec, ms, child, client.Preconditions{
		UID: ptr.To(child.GetUID()), ResourceVersion: ptr.To(child.GetResourceVersion())})
}

// deleteChildIf is deleteChild with the given preconditions. A 409 counts as gone (replaced)
// when they name only the UID, and is returned when they name a resourceVersion too (changed
// since read: deleteChildOfVanished).
func deleteChildIf(ctx context.Context, c client.Writer, rec record.EventRecorder, ms *unstructured.Unstructured,
	child client.Object, preconditions client.Preconditions) error {
	err := c.Delete(ctx, child, preconditions,
		client.PropagationPolicy(metav1.DeletePropagationBackground))
	switch {
	case apierrors.IsConflict(err) && preconditions.ResourceVersion != nil:
		return err
	case err == nil:
		logf.FromContext(ctx).Info("Deleted child", "child", kindOf(child)+"/"+child.GetName())
		recordEvent(rec, ms, corev1.EventTypeNormal, "Deleted"+kindOf(child), fmt.Sprintf("Deleted %s \"%s\"", kindOf(child), child.GetName()))
		crashPoint("after-child-delete")
		return nil
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		// Gone already, or replaced: either way not ours to delete any more.
		return nil
	}
	return failedWrite(rec, ms, "delete", fmt.Sprintf("%s \"%s\"", kindOf(child), child.GetName()), err)
}

// deleteChildrenOfGone is what a pass does when its status update is answered 404 (the seam
// modelServiceGone; CONTRACT.md, "When the ModelService vanishes"): the ModelService ms it
// holds, finalizer and all, no longer exists. A finalizer is not a lock the API server always
// honours: a DELETE without preconditions that read the object before our finalizer Update
// committed removes it anyway (kubernetes/kubernetes#77988, present in 1.34). The children
// this pass holds that ms controls (created by it, or found) would stay owned by a UID that
// no longer exists, for ever where no garbage collector runs, so it deletes them now, each by
// deleteChild (UID precondition, Background). gone is the 404; it returns nil when every
// delete succeeded or found the child gone, else the first failed delete's error.
func deleteChildrenOfGone(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured, gone error, children []client.Object) error {
	logf.FromContext(ctx).Info("ModelService gone", "uid", string(ms.GetUID()), "error", gone.Error())
	for _, child := range children {
		if child.GetUID() == "" || !controlledBySeam(child, ms) {
			continue
		}
		if err := deleteChild(ctx, r.Client, r.Recorder, ms, child); err != nil {
			return err
		}
	}
	return nil
}

// ----------------------------------------------------------------------------------------------
// Steps 4 and 5: Ensure the Deployment, Ensure the Service
// ----------------------------------------------------------------------------------------------

// readChild reads the live child named like desired into live, from the cache: the one read
// that decides whether ensureChild creates it (a NotFound) or compares with it (CONTRACT.md,
// steps 4 and 5; Python reads it with self.reader.get in ensure_child).
func readChild(ctx context.Context, c client.Client, desired, live client.Object) error {
	return c.Get(ctx, client.ObjectKeyFromObject(desired), live)
}

// ensureChild is controllerutil.CreateOrUpdate with the ownership decision first
// (CONTRACT.md, "Ownership"). It reads the child named like desired into live (from the
// cache), and:
//   - absent: creates desired;
//   - ours and being deleted: waits for it to go (no write);
//   - controlled by someone else, or ownerless without our selector label: returns a conflict
//     message and writes nothing;
//   - ownerless with our selector label (adoptable, as the garbage collector leaves the
//     children of a ModelService deleted with --cascade=orphan): adopts it, one update that
//     adds our controller ownerReference and the desired fields, after a live read of the
//     ModelService confirms it still exists with this UID and is not being deleted (kube's
//     ControllerRefManager, RecheckDeletionTimestamp);
//   - ours: applies mutate to a deep copy and updates only if the copy differs from live, by
//     semantic equality (quantities compare by value: 1000m equals 1);
//   - ours, but a field the API server will not change (immutableChange: a Deployment's
//     spec.selector) differs: replaces it, a delete with the UID precondition and
//     propagationPolicy Background; the delete event brings the ModelService back and the
//     next pass creates the child. An ownerless child that would need replacing is not
//     adopted: a conflict.
//
// It returns the child as now stored (or as last read, when nothing was written; the zero T,
// nil, after a replacement), the conflict message ("" when there is none), and the error of a
// failed read, create, update or delete, or of a ModelService the live read shows deleted or
// deleting (before an adoption, confirmAdopter; before a vanished owner's child is deleted,
// confirmSuccessor): a *refusedWrite wrapping it when the API server refused a create or update with an
// answer other than 409 (CONTRACT.md, steps 4 and 5). A function, not a method: Go methods
// take no type parameters (Python's ensure_child is a method).
func ensureChild[T client.Object](ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
	desired, live T, mutate func(live, desired T)) (T, string, error) {
	log := logf.FromContext(ctx)
	c, rec := r.Client, r.Recorder
	kind := kindOf(desired)
	child := kind + "/" + desired.GetName()
	what := fmt.Sprintf("%s \"%s\"", kind, desired.GetName())

	err := readChildSeam(ctx, c, desired, live)
	vanished := err == nil && ownerVanished(live, ms)
	if vanished {
		// The child of a ModelService of our name that no longer exists (names are unique
		// and UIDs never reused): the garbage collector's to delete, and envtest has none.
		// Delete it as it would, then create ours; an AlreadyExists while it is still going
		// is a 409 like any other (step 7).
		log.Info("Child of a vanished ModelService", "child", child, "ownerUID", string(metav1.GetControllerOf(live).UID))
		if err := replacementRecheck(r, ctx, ms, what); err != nil {
			return live, "", err
		}
		if err := deleteVanishedChild(ctx, c, rec, ms, live); err != nil {
			return live, "", err
		}
	}
	if apierrors.IsNotFound(err) || vanished {
		if err := c.Create(ctx, desired); err != nil {
			return live, "", classifyChildWriteError(failedWrite(rec, ms, "create", what, err), "create", what)
		}
		log.Info("Created " + kind)
		recordEvent(rec, ms, corev1.EventTypeNormal, "Created"+kind, "Created "+what)
		crashPoint("after-" + strings.ToLower(kind))
		return desired, "", nil
	}
	if err != nil {
		return live, "", err
	}

	ours := controlledBySeam(live, ms)
	if ours && live.GetDeletionTimestamp() != nil {
		// Deleted (a replacement, or by hand) and held by a finalizer: its removal event comes
		// through Owns, and the pass after it creates the child again.
		return live, "", nil
	}

	updated := live.DeepCopyObject().(T)
	mutate(updated, desired)
	immutable := immutableChangeSeam(live, updated)
	if !ours && (immutable != "" || !adoptableSeam(live, ms)) {
		log.Info("Child conflict", "child", child)
		conflict := what + " exists and is not controlled by this ModelService"
		recordEvent(rec, ms, corev1.EventTypeWarning, reasonChildConflict, conflict)
		return live, conflict, nil
	}

	if immutable != "" {
		var none T
		return none, "", r.replaceChild(ctx, ms, live, immutable)
	}
	if childUnchanged(live, updated) {
		return live, "", nil
	}
	if !ours {
		if err := adoptionRecheck(r, ctx, ms, what); err != nil {
			return live, "", err
		}
	}
	// updated carries the resourceVersion read from the cache: if the cache was behind, the
	// API server answers 409 and the error goes back to the queue (step 7).
	if err := c.Update(ctx, updated); err != nil {
		return live, "", classifyChildWriteError(failedWrite(rec, ms, "update", what, err), "update", what)
	}
	if ours {
		log.Info("Updated " + kind)
		recordEvent(rec, ms, corev1.EventTypeNormal, "Updated"+kind, "Updated "+what)
	} else {
		log.Info("Adopted "+kind, "child", child)
		recordEvent(rec, ms, corev1.EventTypeNormal, "Adopted"+kind, "Adopted "+what)
	}
	crashPoint("after-" + strings.ToLower(kind))
	return updated, "", nil
}

// confirmHolder is called before a write to the child (what) that rests on ms holding its
// name and not being deleted: it reads ms live (readLive) and returns the error "not <doing>
// <what>: <ms> with uid U no longer exists" when it is gone or another UID holds the name,
// "... is being deleted" when it carries a deletionTimestamp, the read's error, or nil.
// Python: confirm_holder.
func (r *ModelServiceReconciler) confirmHolder(ctx context.Context, ms *unstructured.Unstructured, doing, what string) error {
	fresh, err := readLive(ctx, r, ms)
	if err != nil {
		return err
	}
	if fresh == nil {
		return fmt.Errorf("not %s %s: %s with uid %s no longer exists", doing, what, modelServiceString(ms), ms.GetUID())
	}
	if fresh.GetDeletionTimestamp() != nil {
		return fmt.Errorf("not %s %s: %s is being deleted", doing, what, modelServiceString(ms))
	}
	return nil
}

// confirmAdopter is called before an adoption (through adoptionRecheck, seams.go): it is
// confirmHolder, whose error names the child (what) when ms is gone, has another UID or is
// being deleted. The cache may not have seen a deletion yet, and a child adopted by a
// ModelService that the garbage collector is orphaning, or has already forgotten, would be
// left owned by a vanished UID and collected: the very workload --cascade=orphan was meant to
// keep (mirrors RecheckDeletionTimestamp in kube's ControllerRefManager, k8s.io/kubernetes
// v1.34 pkg/controller/controller_ref_manager.go). Python: confirm_adopter.
func (r *ModelServiceReconciler) confirmAdopter(ctx context.Context, ms *unstructured.Unstructured, what string) error {
	return r.confirmHolder(ctx, ms, "adopting", what)
}

// confirmSuccessor is confirmAdopter's twin for the child of a vanished ModelService: before
// steps 4 and 5 delete it, confirmHolder. "Its owner is gone" rests on the cache's
// ModelService holding the name now, and a ModelService watch that lags a delete and
// re-create, while the Deployment watch has brought the new one's child (made by another
// writer: an earlier leader), would make the living owner's child look like a dead one's, and
// the pass would delete it (vanished-owner[successor-unseen]). The garbage collector reads an
// owner live before it deletes a dependent (kube v1.34 GarbageCollector.isDangling). It
// returns an error naming the child (what) when ms is gone, another UID holds the name or ms
// is being deleted (retried with backoff; the new one's event brings its own pass), the
// read's error, or nil. Called through replacementRecheck (seams.go). Python:
// confirm_successor.
func (r *ModelServiceReconciler) confirmSuccessor(ctx context.Context, ms *unstructured.Unstructured, what string) error {
	return r.confirmHolder(ctx, ms, "replacing", what)
}

// replaceChild deletes live, a child of ms whose immutable field (e.g. "spec.selector")
// differs from the desired one, so that the next pass creates it anew: with the UID
// precondition (a replacement made meanwhile by someone else survives: 409) and
// propagationPolicy Background (the garbage collector removes the old Deployment's
// ReplicaSets and pods; Orphan would leave pods that match neither selector running for ever,
// Foreground would hold the name until every pod is gone). It records Normal
// Replacing<Kind>. A 404 (gone already) is success; any other failure records Warning
// FailedDelete (none for a 409) and is returned (CONTRACT.md, "Ownership").
func (r *ModelServiceReconciler) replaceChild(ctx context.Context, ms *unstructured.Unstructured, live client.Object, field string) error {
	kind := kindOf(live)
	what := fmt.Sprintf("%s \"%s\"", kind, live.GetName())
	err := r.Delete(ctx, live,
		client.Preconditions{UID: ptr.To(live.GetUID())},
		client.PropagationPolicy(metav1.DeletePropagationBackground))
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return failedWrite(r.Recorder, ms, "delete", what, err)
	}
	logf.FromContext(ctx).Info("Replacing "+kind, "child", kind+"/"+live.GetName(), "field", field)
	recordEvent(r.Recorder, ms, corev1.EventTypeNormal, "Replacing"+kind,
		fmt.Sprintf("Deleted %s to re-create it: %s is immutable and differs from the desired one", what, field))
	crashPoint("after-child-delete")
	return nil
}

// ----------------------------------------------------------------------------------------------
// Step 6: Update the status
// ----------------------------------------------------------------------------------------------

// ensureService is step 5: ensureChild of the desired Service. A refused write comes back
// as the error (a *refusedWrite), which Reconcile reports in the status and returns, though
// step 4's Deployment was written: one child's success never hides the other's refusal
// (refused-write-reported[service-refused]). Python: ensure_service.
func ensureService(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
	spec modelServiceSpec) (*corev1.Service, string, error) {
	return ensureChild(ctx, r, ms, desiredService(ms, spec), &corev1.Service{}, mutateServiceSeam)
}

// reportRefusal is step 6 after step 4 or 5 failed with err. When err is a *refusedWrite it
// writes the status that names the refusal (Ready and Progressing False, the Warning Event's
// reason and message, this generation), so that a user who reads the ModelService, not the
// log, sees that its current spec was refused and why (CONTRACT.md, "Status"). dep is the
// Deployment as last read (empty: there is none). It returns err unchanged, for the queue to
// retry with backoff; the status is not written again while the refusal stays the same. A
// failure of this status write is recorded (Warning FailedUpdate) and otherwise dropped: the
// error that goes back to the queue is the child's.
func (r *ModelServiceReconciler) reportRefusal(ctx context.Context, ms *unstructured.Unstructured, spec modelServiceSpec,
	dep *appsv1.Deployment, err error) error {
	var refused *refusedWrite
	if !errors.As(err, &refused) {
		return err
	}
	if status, cerr := computeStatus(ms, spec, dep, "", r.now(), refused); cerr == nil {
		_ = r.updateStatus(ctx, ms, status)
	}
	return err
}

// updateStatus writes status as ms's .status through the status subresource if it differs
// from the stored one, and does nothing otherwise. It returns the error of the write
// (recorded as Warning FailedUpdate).
func (r *ModelServiceReconciler) updateStatus(ctx context.Context, ms *unstructured.Unstructured, status map[string]interface{}) error {
	stored, _, _ := unstructured.NestedMap(ms.Object, "status")
	if equality.Semantic.DeepEqual(stored, status) {
		return nil
	}
	crashPoint("before-status")
	ms.Object["status"] = status
	if err := r.Status().Update(ctx, ms); err != nil {
		return failedWrite(r.Recorder, ms, "update", "status of "+modelServiceString(ms), err)
	}
	logf.FromContext(ctx).Info("Updated status")
	return nil
}

// kindOf names the kind of a child for logs and messages. Go only: Python's children are
// read through a client.Resource, which carries its kind.
func kindOf(obj client.Object) string {
	switch obj.(type) {
	case *appsv1.Deployment:
		return kindDeployment
	case *corev1.Service:
		return kindService
	}
	return fmt.Sprintf("%T", obj)
}

// ==============================================================================================
// Step 1: Load the ModelService (its spec)
// ==============================================================================================

// modelServiceSpec is the part of a ModelService the children are built from, read from the
// unstructured object (CRD crds/, spec). Hand-written, not generated: the CRD is the schema.
type modelServiceSpec struct {
	Model     string                      `json:"model"`
	Image     string                      `json:"image"`
	Replicas  *int32                      `json:"replicas,omitempty"`
	Port      *int32                      `json:"port,omitempty"`
	Args      []string                    `json:"args,omitempty"`
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// readSpec reads ms's .spec, with the CRD's defaults (replicas 1, port 8000) filled in for an
// object that somehow lacks them (the API server applies them on every read, so this is belt
// and braces). A field of the wrong type, or a quantity whose exponent is beyond
// quantityMaxExponent (checkResourceExponents), is an error naming the ModelService: the
// reconcile fails and is retried, the process lives on.
func readSpec(ms *unstructured.Unstructured) (modelServiceSpec, error) {
	var spec modelServiceSpec
	raw, _, _ := unstructured.NestedMap(ms.Object, "spec")
	// A quantity whose exponent FromUnstructured's ParseQuantity would take minutes over
	// ("1e-999999999"), refused first: the CRD refuses it, an older CRD or an edit with
	// validation off does not.
	if err := checkResourceExponents(raw); err != nil {
		return spec, fmt.Errorf("reading spec of ModelService %s/%s: %w", ms.GetNamespace(), ms.GetName(), err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec); err != nil {
		return spec, fmt.Errorf("reading spec of ModelService %s/%s: %w", ms.GetNamespace(), ms.GetName(), err)
	}
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](defaultReplicas)
	}
	if spec.Port == nil {
		spec.Port = ptr.To[int32](defaultPort)
	}
	applyResourceDefaults(&spec.Resources)
	return spec, nil
}

// defaultResources rounds every quantity of r's limits and requests up to a whole number of
// thousandths, away from zero (1.5m -> 2m, 1e-4 -> 1e-3, -0.5m -> -1m), in place. The API
// server's defaulting does this to every ResourceList it decodes (mirrors
// SetDefaults_ResourceList, k8s.io/kubernetes pkg/apis/core/v1, v1.34: val.RoundUp(-3)), so a
// desired value it would round never equals the stored one, and the operator would update the
// Deployment on every reconcile for ever. RoundUp keeps the quantity's Format, so the JSON
// written is the text the API server stores for the user's spelling (CONTRACT.md, "Desired
// Deployment", Quantities; conformance/quantity-spellings.json). Each quantity is then read
// back from that text: apimachinery writes a DecimalSI value of 10^21 or more without a
// suffix ("1000E" as "1"), so the stored value is not the spelled one, and only the value read
// back compares equal to what is stored. readSpec calls it through the seam
// applyResourceDefaults (seams.go).
func defaultResources(r *corev1.ResourceRequirements) {
	for _, list := range []corev1.ResourceList{r.Limits, r.Requests} {
		for name, q := range list {
			q.RoundUp(resource.Milli)
			text := q.String()
			if checkQuantityExponent(text) != nil {
				// Not read back: ParseQuantity would compute ten to the exponent. Only a
				// DecimalExponent text has one, and reading it back changes nothing
				// ("1000e99" is written "1e102" and read back as 1e102).
				list[name] = q
				continue
			}
			if stored, err := resource.ParseQuantity(text); err == nil {
				q = stored
			}
			list[name] = q
		}
	}
}

// ==============================================================================================
// Step 2: Finalize if being deleted (the reconciler's finalize and removeFinalizer are above)
// ==============================================================================================

// beingDeleted says whether the ModelService ms is being deleted (deletionTimestamp set):
// step 2 then finalizes, and no later step runs, whatever the spec says now (CONTRACT.md,
// "Deletion"). Reconcile calls it through the seam beingDeletedSeam (seams.go).
func beingDeleted(ms *unstructured.Unstructured) bool {
	return ms.GetDeletionTimestamp() != nil
}

// orphansChildren says whether the ModelService is being deleted with the orphan policy
// (kubectl delete --cascade=orphan, DeleteOptions propagationPolicy Orphan): the API server
// then puts the "orphan" finalizer on it, and its dependents must survive it (CONTRACT.md,
// "Deletion").
func orphansChildren(ms *unstructured.Unstructured) bool {
	return controllerutil.ContainsFinalizer(ms, metav1.FinalizerOrphanDependents)
}

// ==============================================================================================
// Steps 4 and 5: the desired children, and how they are applied to the live ones
// ==============================================================================================

// desiredDeployment is the Deployment the ModelService ms requires, as it would be created
// (CONTRACT.md, "Desired Deployment").
func desiredDeployment(ms *unstructured.Unstructured, spec modelServiceSpec) *appsv1.Deployment {
	name := ms.GetName()
	args := []string{"--model=" + spec.Model, fmt.Sprintf("--port=%d", *spec.Port)}
	return &appsv1.Deployment{
		ObjectMeta: childObjectMeta(ms),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(*spec.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: selectorLabels(name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: childLabels(name)},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:      containerName,
						Image:     spec.Image,
						Args:      append(args, spec.Args...),
						Ports:     []corev1.ContainerPort{{Name: portName, ContainerPort: *spec.Port, Protocol: corev1.ProtocolTCP}},
						Resources: *spec.Resources.DeepCopy(),
					}},
				},
			},
		},
	}
}

// desiredService is the Service the ModelService ms requires, as it would be created
// (CONTRACT.md, "Desired Service").
func desiredService(ms *unstructured.Unstructured, spec modelServiceSpec) *corev1.Service {
	name := ms.GetName()
	return &corev1.Service{
		ObjectMeta: childObjectMeta(ms),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selectorLabels(name),
			Ports: []corev1.ServicePort{{
				Name:       portName,
				Port:       *spec.Port,
				TargetPort: intstr.FromString(portName),
				Protocol:   corev1.ProtocolTCP,
			}},
		},
	}
}

// childObjectMeta is the metadata both children share: the ModelService's name and namespace,
// the three labels, and the controller ownerReference that maps the child's events back here.
func childObjectMeta(ms *unstructured.Unstructured) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            ms.GetName(),
		Namespace:       ms.GetNamespace(),
		Labels:          childLabels(ms.GetName()),
		OwnerReferences: []metav1.OwnerReference{ownerReference(ms)},
	}
}

// childLabels are the labels on both children and on the pod template, for the ModelService
// called name (CONTRACT.md, "Desired Deployment").
func childLabels(name string) map[string]string {
	return map[string]string{labelName: name, labelManagedBy: managedBy, labelModelService: name}
}

// selectorLabels select the pods of the ModelService called name, and only its pods.
func selectorLabels(name string) map[string]string {
	return map[string]string{labelModelService: name}
}

// ownerReference makes a child's controller the ModelService: the child's changes are then
// routed to it (Owns), the garbage collector deletes the child after it, and no other
// controller may claim the child.
func ownerReference(ms *unstructured.Unstructured) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         modelServiceGVK.GroupVersion().String(),
		Kind:               modelServiceGVK.Kind,
		Name:               ms.GetName(),
		UID:                ms.GetUID(),
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// controlledBy says whether obj's controller ownerReference is this ModelService (also used
// by step 2). The UID
// decides, not the name: a ModelService deleted and re-created under the same name is another
// object, and so is a child someone else made under our name. Called through controlledBySeam
// (seams.go).
func controlledBy(obj metav1.Object, ms *unstructured.Unstructured) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == ms.GetUID()
}

// controlledByVanished says whether obj's controller ownerReference names a ModelService
// (group modeldock.io, any version) called like ms but with another UID: the child of a
// ModelService that no longer exists, since names are unique at any one time and UIDs are
// never reused (the seam ownerVanished; CONTRACT.md, "When the ModelService vanishes").
// The garbage collector deletes such a child on its own (a dangling owner, kubernetes v1.34
// garbagecollector); where none runs it would block ms's own child for ever. A child
// controlled by anything else, or by nothing, is not one.
func controlledByVanished(obj metav1.Object, ms *unstructured.Unstructured) bool {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != modelServiceGVK.Kind || ref.Name != ms.GetName() || ref.UID == ms.GetUID() {
		return false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == modelServiceGVK.Group
}

// adoptable says whether ms may adopt obj, a same-named child it does not control: obj has
// no controller ownerReference at all and carries our selector label
// modeldock.io/modelservice=<ms name> (what the garbage collector leaves of a child of a
// ModelService deleted with --cascade=orphan). A child another controller owns never is; nor
// is an ownerless one without the label: a name is not ownership (mirrors the ReplicaSet
// controller, which adopts only ownerless pods its selector matches; kube v1.34 ClaimObject).
// Called through adoptableSeam (seams.go).
func adoptable(obj metav1.Object, ms *unstructured.Unstructured) bool {
	return metav1.GetControllerOf(obj) == nil && obj.GetLabels()[labelModelService] == ms.GetName()
}

// immutableChange is the field of a child that the API server refuses to change and that
// mutate changed in updated (a mutated copy of live), or "" when there is none. Of the fields
// the operator sets, only a Deployment's spec.selector is immutable (apps/v1 validation:
// "field is immutable"); a Service's clusterIP, clusterIPs and ipFamilies are immutable too,
// but the operator never sets them (CONTRACT.md, "Ownership"). Python's immutable_change is
// given the child's resource where Go switches on its type. Called through
// immutableChangeSeam (seams.go).
func immutableChange(live, updated client.Object) string {
	before, ok := live.(*appsv1.Deployment)
	after, ok2 := updated.(*appsv1.Deployment)
	if !ok || !ok2 || equality.Semantic.DeepEqual(before.Spec.Selector, after.Spec.Selector) {
		return ""
	}
	return "spec.selector"
}

// mutateDeployment (called through the seam mutateDeploymentSeam, seams.go) applies the fields the ModelService decides to live, a copy of the stored
// Deployment, and nothing else (CONTRACT.md, "Desired Deployment", Mutate). Everything the API server defaulted (strategy,
// imagePullPolicy, terminationMessagePath, ...) and everything other writers set (annotations,
// extra labels, extra containers) stays as stored, so that a copy with nothing to change
// compares equal to the stored object and no write is sent.
func mutateDeployment(live, desired *appsv1.Deployment) {
	desired = desired.DeepCopy()
	mergeLabels(&live.Labels, desired.Labels)
	live.OwnerReferences = ensureOwnerReferenceSeam(live.OwnerReferences, desired.OwnerReferences[0])
	live.Spec.Replicas = desired.Spec.Replicas
	live.Spec.Selector = desired.Spec.Selector
	mergeLabels(&live.Spec.Template.Labels, desired.Spec.Template.Labels)

	want := desired.Spec.Template.Spec.Containers[0]
	containers := live.Spec.Template.Spec.Containers
	for i := range containers {
		if containers[i].Name == want.Name {
			containers[i].Image = want.Image
			containers[i].Args = want.Args
			containers[i].Ports = want.Ports
			containers[i].Resources = want.Resources
			return
		}
	}
	live.Spec.Template.Spec.Containers = append(containers, want)
}

// mutateService (called through the seam mutateServiceSeam, seams.go) applies the fields the ModelService decides to live, a copy of the stored
// Service (CONTRACT.md, "Desired Service", Mutate). clusterIP, ipFamilies, sessionAffinity and the other server defaults stay.
func mutateService(live, desired *corev1.Service) {
	desired = desired.DeepCopy()
	mergeLabels(&live.Labels, desired.Labels)
	live.OwnerReferences = ensureOwnerReferenceSeam(live.OwnerReferences, desired.OwnerReferences[0])
	live.Spec.Type = desired.Spec.Type
	live.Spec.Selector = desired.Spec.Selector
	live.Spec.Ports = desired.Spec.Ports
}

// mergeLabels sets the desired labels and keeps any others.
func mergeLabels(labels *map[string]string, desired map[string]string) {
	if *labels == nil {
		*labels = map[string]string{}
	}
	for k, v := range desired {
		(*labels)[k] = v
	}
}

// ensureOwnerReference replaces the reference to the same owner (by UID) with want, or
// appends want; references to other owners are kept. Called through ensureOwnerReferenceSeam
// (seams.go).
func ensureOwnerReference(refs []metav1.OwnerReference, want metav1.OwnerReference) []metav1.OwnerReference {
	for i := range refs {
		if refs[i].UID == want.UID {
			refs[i] = want
			return refs
		}
	}
	return append(refs, want)
}

// ==============================================================================================
// Step 6: Update the status
// ==============================================================================================

// ownedConditions are the condition types this operator writes, in the order it appends
// them when they are absent. Every other type in status.conditions belongs to someone else.
var ownedConditions = []string{conditionReady, conditionProgressing}

// modelServiceStatus is .status as this operator writes it. Go only: Python builds the dict. Every scalar is always written,
// zeros included (no omitempty), so the stored status and a computed one compare exactly.
// Conditions are not in it: they are merged into the stored list by type (mergeConditions).
type modelServiceStatus struct {
	ObservedGeneration int64  `json:"observedGeneration"`
	Replicas           int32  `json:"replicas"`
	ReadyReplicas      int32  `json:"readyReplicas"`
	AvailableReplicas  int32  `json:"availableReplicas"`
	Selector           string `json:"selector"`
	URL                string `json:"url"`
}

// computeStatus rebuilds the status from the Deployment (dep; nil when there is none of ours),
// the conflict message of step 4 or 5 (empty when there is none) and the refused write of step
// 4 or 5 (nil when there is none). Ready and Progressing start from the stored ones so that a
// condition whose status does not change keeps its lastTransitionTime; now is the time of any
// transition. It returns .status as unstructured JSON, the form it is stored in, so the caller
// compares like with like (CONTRACT.md, "Status"), or the error of converting it.
//
// The conditions follow the table of CONTRACT.md, first row that applies: a conflict; a refused
// write (the Warning Event's reason and message); otherwise the Deployment's rollout as
// judgeRollout judges it (kubectl rollout status's rule): stalled, in progress (Ready False:
// old pods may still serve) or complete (Ready True). Every message is cut to the CRD's bound
// (boundMessage).
//
// status.conditions is a map keyed by type (the CRD says x-kubernetes-list-type: map), and
// the Kubernetes API conventions let other controllers add their own types. This operator
// owns Ready, Progressing and the scalar fields, nothing else: every other condition is kept
// exactly as stored, in its place, with its timestamps.
func computeStatus(ms *unstructured.Unstructured, spec modelServiceSpec, dep *appsv1.Deployment,
	conflict string, now time.Time, refused *refusedWrite) (map[string]interface{}, error) {
	name, generation := ms.GetName(), ms.GetGeneration()

	stored, _, _ := unstructured.NestedSlice(ms.Object, "status", "conditions")
	var conditions []metav1.Condition
	for _, raw := range stored {
		m, _ := raw.(map[string]interface{})
		if condType, _ := m["type"].(string); !slices.Contains(ownedConditions, condType) {
			continue
		}
		var c metav1.Condition
		// A stored condition of ours that cannot be read is rebuilt from scratch.
		if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
			conditions = append(conditions, c)
		}
	}

	status := modelServiceStatus{
		ObservedGeneration: generation,
		Selector:           labelModelService + "=" + name,
		URL:                fmt.Sprintf("http://%s.%s.svc:%d", name, ms.GetNamespace(), *spec.Port),
	}
	if conflict == "" && dep != nil {
		status.Replicas = dep.Status.Replicas
		status.ReadyReplicas = dep.Status.ReadyReplicas
		status.AvailableReplicas = dep.Status.AvailableReplicas
	}

	set := func(condType string, s metav1.ConditionStatus, reason, message string) {
		setCondition(&conditions, condType, s, reason, boundMessage(message), generation, now)
	}
	switch {
	case conflict != "":
		set(conditionReady, metav1.ConditionFalse, reasonChildConflict, conflict)
		set(conditionProgressing, metav1.ConditionFalse, reasonChildConflict, conflict)
	case refused != nil:
		set(conditionReady, metav1.ConditionFalse, refused.reason, refused.message)
		set(conditionProgressing, metav1.ConditionFalse, refused.reason, refused.message)
	default:
		switch rollout, message := judgeDeploymentRollout(name, dep); rollout {
		case rolloutStalled:
			set(conditionReady, metav1.ConditionFalse, reasonProgressDeadlineExceeded, message)
			set(conditionProgressing, metav1.ConditionFalse, reasonProgressDeadlineExceeded, message)
		case rolloutProgressing:
			set(conditionReady, metav1.ConditionFalse, reasonReplicasUnavailable, message)
			set(conditionProgressing, metav1.ConditionTrue, reasonRolloutInProgress, message)
		default:
			set(conditionReady, metav1.ConditionTrue, reasonReplicasAvailable, message)
			set(conditionProgressing, metav1.ConditionFalse, reasonRolloutComplete, message)
		}
	}

	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	if err != nil {
		return nil, err
	}
	owned := map[string]interface{}{}
	for _, condType := range ownedConditions {
		c, err := runtime.DefaultUnstructuredConverter.ToUnstructured(meta.FindStatusCondition(conditions, condType))
		if err != nil {
			return nil, err
		}
		// A condition whose status did not change keeps its stored lastTransitionTime as
		// written: metav1.Time would re-encode it (dropping fractional seconds, moving an
		// offset to UTC), a change of nothing that would cost a write.
		if raw := storedCondition(stored, condType); raw != nil && raw["status"] == c["status"] {
			if t, ok := raw["lastTransitionTime"]; ok {
				c["lastTransitionTime"] = t
			}
		}
		owned[condType] = c
	}
	out["conditions"] = mergeConditions(stored, owned)
	if c := storedCatalog(ms); c != nil {
		out["catalog"] = c // the catalog's answer is kept as stored (catalog.go)
	}
	return out, nil
}

// judgeRollout judges the rollout of the Deployment dep (named name; nil counts as one with no
// status yet) as kubectl rollout status does, in its order (mirrors DeploymentStatusViewer,
// k8s.io/kubectl pkg/polymorphichelpers/rollout_status.go, v0.34), and says why in one line.
// It returns rolloutProgressing, rolloutStalled or rolloutComplete, and the message:
//
//  1. its generation is newer than status.observedGeneration: the deployment controller has
//     not seen the current spec yet, so no count says anything about it (progressing);
//  2. its Progressing condition has reason ProgressDeadlineExceeded: stalled, with the
//     Deployment's own message;
//  3. status.updatedReplicas < spec.replicas: pods of the current template still missing;
//  4. status.replicas > status.updatedReplicas: old pods still to terminate;
//  5. status.availableReplicas < status.updatedReplicas: new pods not available yet;
//  6. otherwise complete.
//
// Availability alone is not enough: in the middle of a rolling update every replica can be
// available while half of them still run the old template. computeStatus calls it through the
// seam judgeDeploymentRollout (seams.go).
func judgeRollout(name string, dep *appsv1.Deployment) (string, string) {
	if dep == nil {
		dep = &appsv1.Deployment{}
	}
	replicas := int32(defaultReplicas)
	if dep.Spec.Replicas != nil {
		replicas = *dep.Spec.Replicas
	}
	st := dep.Status
	what := fmt.Sprintf("Deployment \"%s\"", name)
	if dep.Generation > st.ObservedGeneration {
		// No numbers in the message: a generation bump alone (an annotation, a repair) changes
		// no state, and so writes no status.
		return rolloutProgressing, what + " is waiting for the deployment controller to observe its latest spec"
	}
	for _, c := range st.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == reasonProgressDeadlineExceeded {
			return rolloutStalled, fmt.Sprintf("%s exceeded its progress deadline: %s", what, c.Message)
		}
	}
	switch {
	case st.UpdatedReplicas < replicas:
		return rolloutProgressing, fmt.Sprintf("%s has %d/%d updated replicas", what, st.UpdatedReplicas, replicas)
	case st.Replicas > st.UpdatedReplicas:
		return rolloutProgressing, fmt.Sprintf("%s has %d old replicas pending termination", what, st.Replicas-st.UpdatedReplicas)
	case st.AvailableReplicas < st.UpdatedReplicas:
		return rolloutProgressing, fmt.Sprintf("%s has %d/%d updated replicas available", what, st.AvailableReplicas, st.UpdatedReplicas)
	}
	return rolloutComplete, fmt.Sprintf("%s has %d/%d available replicas", what, st.AvailableReplicas, replicas)
}

// boundMessage is message as a condition may hold it: unchanged when it has at most
// messageMaxLength characters (the CRD's maxLength, counted in runes as the API server's
// OpenAPI validation counts them), else its beginning followed by truncatedMarker,
// messageMaxLength characters in all. A refusal's message can be arbitrarily long (an
// admission webhook's, a list of invalid fields), and a status that breaks the CRD's bound is
// itself refused: the report of the refusal would be lost with it.
func boundMessage(message string) string {
	runes := []rune(message)
	if len(runes) <= messageMaxLength {
		return message
	}
	return string(runes[:messageMaxLength-len([]rune(truncatedMarker))]) + truncatedMarker
}

// storedCondition is the stored condition of type condType, as stored, or nil. Go only:
// Python's conditions are the stored dicts already.
func storedCondition(stored []interface{}, condType string) map[string]interface{} {
	for _, raw := range stored {
		if m, ok := raw.(map[string]interface{}); ok && m["type"] == condType {
			return m
		}
	}
	return nil
}

// mergeConditions is the stored conditions list with each owned type replaced in place by
// its new value, and owned types that were absent appended in ownedConditions order. Entries
// of other types are kept as stored, untouched (not even re-encoded: a foreign timestamp with
// fractional seconds stays as written). Go only: Python's setCondition edits the stored list
// in place, which leaves the same list.
func mergeConditions(stored []interface{}, owned map[string]interface{}) []interface{} {
	merged := make([]interface{}, 0, len(stored)+len(owned))
	seen := map[string]bool{}
	for _, raw := range stored {
		m, _ := raw.(map[string]interface{})
		condType, _ := m["type"].(string)
		if c, ok := owned[condType]; ok {
			if !seen[condType] {
				merged = append(merged, c)
				seen[condType] = true
			}
			continue
		}
		merged = append(merged, raw)
	}
	for _, condType := range ownedConditions {
		if !seen[condType] {
			merged = append(merged, owned[condType])
		}
	}
	return merged
}

// setCondition sets one condition in conditions with meta.SetStatusCondition (apimachinery
// v0.34): reason,
// message and observedGeneration always, lastTransitionTime (now, to the second, UTC) only
// when the condition is new or its status changes. A condition's lastTransitionTime answers
// "since when has this been so?", and rewriting it on every reconcile would both lie and cost
// a write per reconcile. It returns whether anything changed.
func setCondition(conditions *[]metav1.Condition, condType string, status metav1.ConditionStatus,
	reason, message string, generation int64, now time.Time) bool {
	return meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: generation,
		LastTransitionTime: metav1.NewTime(now.UTC().Truncate(time.Second)),
	})
}

// ==============================================================================================
// Events (CONTRACT.md, "Events")
// ==============================================================================================

// failedWrite records Warning "Failed<Verb>" with message "Failed to <verb> <what>: <error>"
// about the ModelService and returns err unchanged, for the caller to return and the queue to
// retry (Python's failed_write records, and the caller re-raises). A 409 (Conflict,
// AlreadyExists) records nothing: it says the cache was behind, and the next reconcile
// recomputes from a fresher one. A Warning is for what a user may have to act on, not for
// optimistic concurrency doing its job.
func failedWrite(rec record.EventRecorder, ms *unstructured.Unstructured, verb, what string, err error) error {
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return err
	}
	reason, message := failureEvent(verb, what, err)
	recordEvent(rec, ms, corev1.EventTypeWarning, reason, message)
	return err
}

// failureEvent is the Warning Event of a failed write: reason "Failed<Verb>", message
// "Failed to <verb> <what>: <error>", the error as errorMessage gives it (through the seam
// refusalText, seams.go).
func failureEvent(verb, what string, err error) (string, string) {
	return "Failed" + strings.ToUpper(verb[:1]) + verb[1:], fmt.Sprintf("Failed to %s %s: %s", verb, what, refusalText(err))
}

// errorMessage is the text of err as an Event and a condition carry it: err.Error(), except
// for an answer of the API server that lists two or more causes. Its message then ends with
// them as apimachinery writes them (`[<field>: <message>, ...]`, each once, in the order of
// details.causes), and that order is the order validation met them in, which ranges over
// maps (a ResourceList): it changes from one try to the next. errorMessage puts that list in
// sorted order (byte order of the strings), so the same refusal gives the same bytes on every
// retry and in both operators, and step 6 does not write the status again for a refusal that
// did not change (CONTRACT.md, "A refused child write"). A message that does not end with its
// causes so (an admission webhook's own wording) is kept as it is. Python: error_message.
func errorMessage(err error) string {
	message := err.Error()
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return message
	}
	var listed []string
	for _, cause := range status.Status().Details.Causes {
		if item := cause.Field + ": " + cause.Message; !slices.Contains(listed, item) {
			listed = append(listed, item)
		}
	}
	asSent := "[" + strings.Join(listed, ", ") + "]"
	if len(listed) < 2 || !strings.HasSuffix(message, asSent) {
		return message
	}
	slices.Sort(listed)
	return strings.TrimSuffix(message, asSent) + "[" + strings.Join(listed, ", ") + "]"
}

// refusedWrite is a child write the API server refused with an answer other than 409 (422
// Invalid, 403 from an admission policy or a quota, ...): the error itself (Error and Unwrap
// give it, so apierrors' predicates and the log see it unchanged), with the Warning Event's
// reason and message, which step 6 puts in the conditions (reportRefusal). Python:
// RefusedWrite, a client.ApiError.
type refusedWrite struct {
	reason, message string
	err             error
}

func (e *refusedWrite) Error() string { return e.err.Error() }
func (e *refusedWrite) Unwrap() error { return e.err }

// asRefusedWrite is err, the failure of a child's create or update (verb) of what
// (`Deployment "web"`), wrapped in a *refusedWrite when it is the API server's refusal: an
// API status error other than 409. A 409 (Conflict, AlreadyExists) only says the cache was
// behind, and an error that is not an answer (no connection) says nothing about the spec;
// both are returned as they are. ensureChild calls it through the seam classifyChildWriteError
// (seams.go).
func asRefusedWrite(err error, verb, what string) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return err
	}
	reason, message := failureEvent(verb, what, err)
	return &refusedWrite{reason: reason, message: message, err: err}
}

// modelServiceString is how Event messages name the ModelService ms: ModelService "<name>".
func modelServiceString(ms *unstructured.Unstructured) string {
	return fmt.Sprintf("%s \"%s\"", modelServiceGVK.Kind, ms.GetName())
}

// recordEvent records an Event about the ModelService through rec (none when rec is nil).
// client-go's recorder queues it and returns at once; a background goroutine writes it,
// counting repeats into the existing Event instead of creating another, and a failed Event
// write is logged, never returned: Events are best-effort and never fail a reconcile. Go
// only: Python's reconciler always has a recorder (a NullRecorder when given none).
func recordEvent(rec record.EventRecorder, ms *unstructured.Unstructured, eventType, reason, message string) {
	if rec != nil {
		rec.Event(ms, eventType, reason, message)
	}
}

// ==============================================================================================
// Crash points (CONTRACT.md, "Crash points")
// ==============================================================================================

// crashPoint exits the process at once, with code 86, when MODELDOCK_CRASH_AT names this
// point. Fault tests use it to stop the operator between two writes, exactly where a real
// crash would hurt most; os.Exit runs no deferred function and releases no Lease, like a
// SIGKILL.
func crashPoint(name string) {
	if os.Getenv(crashAtEnv) != name {
		return
	}
	ctrl.Log.Info("crash point reached", "point", name)
	os.Exit(crashExitCode)
}
