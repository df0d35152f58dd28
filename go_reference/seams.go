// seams.go: the seams of the Go mutants.
//
// A Go mutant (harness/mutants/go/<id>.go, built by harness/mutants/gobuild.py with
// `go build -overlay`) is this operator with one behaviour replaced, as a Python mutant is
// python_operator with its PATCHES applied. Go cannot replace a function from outside, so each
// behaviour a mutant replaces is called through a package-level variable here, which the
// mutant's init() assigns in the mutant's own build. The real operator never assigns them:
// each holds the function it is named after, and reads as a call of that function.
//
// Keep them few: one per behaviour a Go mutant needs, named for what it does, with the
// mutants that use it.
package main

import (
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

var (
	// clientUserAgent is modeldockUserAgent (the User-Agent main sets in the rest.Config, hence
	// the field manager "modeldock-go" of writes). Mutant: library-user-agent-go.
	clientUserAgent = modeldockUserAgent

	// applyResourceDefaults is defaultResources (step 1: quantities as the API server stores
	// them). Mutants: raw-quantities-go (no rounding), rounds-to-millis-go (a rounded quantity
	// written in millis, its format lost).
	applyResourceDefaults = defaultResources

	// quantityExponentCheck is checkQuantityExponent as step 1 applies it to the spelled
	// quantities of spec.resources (checkResourceExponents). Mutant: fraction-as-exponent-go
	// (the digits after a '.' judged as an exponent: 0.125 refused as beyond 99).
	quantityExponentCheck = checkQuantityExponent

	// processConfig is configFromEnv (the process configuration, CONTRACT.md "Process", read
	// once in main: the default workers, the request timeout, the Lease timings). Mutants:
	// single-worker-go, pads-lease-go, polls-lease-go.
	processConfig = configFromEnv

	// ownerVanished is controlledByVanished (steps 4 and 5: a child controlled by a
	// ModelService of this name with another UID, which ensureChild deletes and replaces).
	// Mutants: ignores-vanished-owner-go (never: a ChildConflict for ever), vanished-any-group-go
	// (the owner's group not compared).
	ownerVanished = controlledByVanished

	// deleteVanishedChild is deleteChildOfVanished as steps 4 and 5 call it for the child of
	// a vanished ModelService (its error, other than 404, ends the pass before any create).
	// Mutants: creates-over-dead-child-go (the error dropped: the create follows, answered
	// 409), trusts-stale-owner-go (deleteChild: the UID precondition only, so a child the
	// cache still shows owned by the dead ModelService is deleted after its orphaning),
	// changed-child-taken-for-gone-go (a 409 to the resourceVersion precondition taken for gone:
	// the create follows, over the child).
	deleteVanishedChild = deleteChildOfVanished

	// modelServiceGone is deleteChildrenOfGone (step 6: a status update answered 404; the
	// children this pass holds of the vanished ModelService are deleted). Mutant:
	// ignores-vanished-owner-go (returns the 404 and deletes nothing); drops-status-errors-go
	// (with statusTargetGone: any other failed status update dropped, never retried).
	modelServiceGone = deleteChildrenOfGone

	// statusTargetGone is apierrors.IsNotFound as step 6 asks it of a failed status update
	// (is the ModelService gone? Then modelServiceGone). Mutant: conflict-as-gone-go (a 409,
	// 410 or 422 taken for a 404); drops-status-errors-go (every failure, then dropped).
	statusTargetGone = apierrors.IsNotFound

	// controlledBySeam is controlledBy (steps 2, 4, 5 and 6: is this child ours? The
	// controller ownerReference's UID decides). Mutant: owner-by-kind-go (any ModelService's
	// child of our name is ours).
	controlledBySeam = controlledBy

	// ensureOwnerReferenceSeam is ensureOwnerReference (the Mutate of steps 4 and 5: our
	// controller ownerReference on a child of ours, the reference to the same owner found by
	// UID). Mutant: owner-by-kind-go (finds "the same owner" by kind, so another
	// ModelService's reference is replaced by ours).
	ensureOwnerReferenceSeam = ensureOwnerReference

	// adoptableSeam is adoptable (steps 4 and 5: may this ModelService adopt an ownerless
	// same-named child?). Mutant: never-adopts-go.
	adoptableSeam = adoptable

	// adoptionRecheck is confirmAdopter (steps 4 and 5: the live read of the ModelService
	// before an adoption, which refuses one for an owner the API server no longer holds).
	// Mutant: adopts-from-cache-go (no read: the cache's word is taken).
	adoptionRecheck = (*ModelServiceReconciler).confirmAdopter

	// replacementRecheck is confirmSuccessor (steps 4 and 5: the live read of the ModelService
	// before the child of a vanished one is deleted, which refuses when the cache's
	// ModelService no longer holds the name). Mutant: trusts-cached-holder-go (no read).
	replacementRecheck = (*ModelServiceReconciler).confirmSuccessor

	// immutableChangeSeam is immutableChange (steps 4 and 5: which immutable field of a child
	// of ours differs from the desired one, so that it must be replaced?). Mutant:
	// updates-immutable-go.
	immutableChangeSeam = immutableChange

	// judgeDeploymentRollout is judgeRollout (step 6: the Deployment's rollout as kubectl
	// rollout status judges it). Mutant: ready-when-available-go.
	judgeDeploymentRollout = judgeRollout

	// classifyChildWriteError is asRefusedWrite (steps 4 and 5: which failed child writes
	// are refusals that reach the status). Mutant: refusal-not-reported-go.
	classifyChildWriteError = asRefusedWrite

	// catalogFromEnvironment is catalogFromEnv as main calls it (the catalog the
	// environment names, or the error that makes the process exit 2). Mutant:
	// refuses-http-catalog-go (only https:// accepted).
	catalogFromEnvironment = catalogFromEnv

	// bindAddressesFree is addressesFree as main calls it (the metrics and probe addresses
	// tried before any request; an error makes the process exit 2). Mutants:
	// ignores-held-port-go (never tried), refuses-metrics-off-go ("0" tried as an address).
	bindAddressesFree = addressesFree

	// electionLock is electionLockOf (the Lease lock the manager's leader election reads and
	// writes). Mutants: takes-live-lease-go (a Lease another instance holds read as free),
	// resets-lease-transitions-go (leaseTransitions read as 0), restamps-acquire-time-go
	// (acquireTime written anew at every renewal), shortens-lease-go (another holder's lease
	// duration read as a quarter), unbounded-renewal-go (a Lease write not bounded by the renew
	// deadline).
	electionLock = electionLockOf

	// leaseRelease is releaseLease (main, after the manager stopped: the Lease given up,
	// "Released Lease" logged when it was). Mutant: release-unreported-go (a release that
	// succeeded reported as none), release-tries-twice-go (a 409 retried twice in all, not
	// five times), release-failure-unreported-go (a failed release not logged).
	leaseRelease = releaseLease

	// managerFailed is exitAfterManagerError (main, when the manager stopped with an error,
	// "leader election lost" included: log it and exit 1 at once). Mutant:
	// lost-lease-graceful-go (the workers given the SIGTERM grace first).
	managerFailed = exitAfterManagerError

	// refusalText is errorMessage (the error's text in a failed write's Event, and so in the
	// conditions of a refused child write: causes in sorted order). Mutant:
	// unsorted-causes-go (the causes in another order on every other refusal).
	refusalText = errorMessage

	// stepStatus is computeStatus as step 6 calls it (the status a reconcile with no refused
	// write writes when it differs from the stored one). Mutants: heartbeat-go (stamps the
	// Ready condition with the current 20 s period), status-from-memory-go (returns the
	// status it computed last while the generations stay the same), remembers-status-go
	// (returns the stored status when the computed one equals what it remembers sending).
	stepStatus = computeStatus

	// settledResult is nothingToRequeue (step 7: the Result when the cluster matches, no
	// conflict). Mutant: heartbeat-go (RequeueAfter 20 s).
	settledResult = nothingToRequeue

	// addFinalizer is controllerutil.AddFinalizer as step 3 calls it (the finalizer goes on
	// the ModelService, and nothing else changes in it). Mutants: rewrites-spec-go (also
	// writes defaulted resource requests into the spec), annotates-owner-go (also labels the
	// ModelService app.kubernetes.io/managed-by).
	addFinalizer = controllerutil.AddFinalizer

	// catalogRequestKey is requestKey (step 6: the durable identity of a generation's
	// registration with the model catalog, catalog.go). Mutants: fresh-request-key-go (a new
	// key per attempt), object-request-key-go (the UID alone, for every generation).
	catalogRequestKey = requestKey

	// mutateDeploymentSeam and mutateServiceSeam are mutateDeployment and mutateService as
	// steps 4 and 5 pass them to ensureChild (the fields of a live child the ModelService
	// decides; every other field stays as stored). Mutant: clobbers-foreign-go (also removes
	// other containers, env, pod-template annotations and session affinity).
	mutateDeploymentSeam = mutateDeployment
	mutateServiceSeam    = mutateService

	// finalizeChildSeam is finalizeChild (step 2: one child of ours deleted once, then waited
	// for; a failed delete is the pass's error). Mutant: gives-up-on-refused-delete-go (a
	// child whose delete failed is counted as gone, so the finalizer comes off over it).
	finalizeChildSeam = finalizeChild

	// deletingModelServiceSeam is readDeletingLive (step 2: the deleting ModelService read
	// live before any child is deleted). Mutants: trusts-cached-policy-go (the cache's copy:
	// a delete switched to orphan since is not seen, and the children are deleted),
	// cleans-up-gone-owner-go (the cache's copy when the live read finds it gone: the
	// children of a vanished owner deleted, its finalizer removed from nothing),
	// cleans-up-successor-go (the name compared, not the UID: a successor holding our
	// finalizer is cleaned up in the gone one's place).
	deletingModelServiceSeam = readDeletingLive

	// ensureServiceSeam is ensureService (step 5: the Service ensured, its refused write
	// returned as the error). Mutant: swallows-service-refusal-go (a refused Service write is
	// logged and dropped: the status shows the Deployment's rollout, and the key is forgotten).
	ensureServiceSeam = ensureService

	// beingDeletedSeam is beingDeleted (step 2: a ModelService with a deletionTimestamp is
	// finalized, and nothing else is done for it). Mutant: reconciles-deleting-go (rolls a
	// spec change out first).
	beingDeletedSeam = beingDeleted

	// childWatches is ownsChildren (SetupWithManager: the watches on the Deployment and the
	// Service, Owns). Mutants: polls-children-go (no watch on the children; with settledResult
	// RequeueAfter 20 s it looks at them on a timer instead), list-not-notified-go (the initial
	// list's Create events dropped), owner-handler-panics-go (a handler of its own that reads a
	// child's controller reference without a nil check).
	childWatches = ownsChildren

	// readChildSeam is readChild (steps 4 and 5: the cache read of a child that decides
	// between create and compare). Mutant: blind-create-go (the first time a process
	// handles a child, also POSTs it when the cache shows it, and takes the AlreadyExists as
	// "it is there").
	readChildSeam = readChild

	// crdWait is waitForCRD (main, before the manager: discovery until the ModelService CRD
	// is served, with backoff, for as long as the process runs). Mutant: exits-without-crd-go
	// (asks once and returns an error: the process exits 1).
	crdWait = waitForCRD

	// cacheWaitEnded is pastCacheWait (main, after SIGTERM: a manager still waiting for caches
	// that cannot sync is left behind and the process stops). Mutant: deaf-until-synced-go
	// (waits for the manager to return, which controller-runtime v0.22's never does then).
	cacheWaitEnded = pastCacheWait

	// crdRetryDelay is crdBackoff (the delay after the n-th discovery that did not find the
	// CRD). Mutant: hot-retries-crd-go (50 ms, never growing).
	crdRetryDelay = crdBackoff

	// requeueRateLimiter is defaultRateLimiter (SetupWithManager: how soon a failed reconcile
	// of a key runs again, CONTRACT.md step 7). Mutants: no-backoff-go (every 100 ms, never
	// backing off), never-forgets-go (Forget does nothing: a success never resets a key).
	requeueRateLimiter = defaultRateLimiter

	// requeueQueue is newControllerQueue (SetupWithManager's controller option NewQueue:
	// client-go's rate-limiting workqueue named after the controller, as controller-runtime
	// builds it by default; its delaying queue keeps the earlier of two ready times of a key,
	// and its metrics are workqueue_depth and workqueue_adds_total{name="modelservice"}).
	// Mutants: keeps-later-requeue-go (a failure's retry waits for a pending RequeueAfter),
	// stuck-after-moved-requeue-go (once a key was moved earlier, nothing due after its old
	// time is added again), unmetered-queue-go (an unnamed queue: no metrics).
	requeueQueue = newControllerQueue

	// apiTransport is clientGoTransport (main: the round tripper of every client, as client-go
	// builds it; its REST client honours Retry-After, CONTRACT.md "Errors"). Mutants:
	// ignores-retry-after-go (drops the header from every answer, so a 429 or a 503 asking
	// for a wait goes back to the workqueue and is retried within milliseconds);
	// forgets-refused-event-go (every Event create sent with count 1, so an Event refused
	// once is counted afresh); hot-rewatch-go (a watch answered 403 sent again at once);
	// resumes-from-list-go (every watch of a resource sent from its first watch's version).
	apiTransport = clientGoTransport

	// managerCacheOptions is cacheOptions (main: the manager's informer cache, limited to the
	// watch namespace). Mutants: relist-ignores-new-go (its informers' relists after the first
	// list keep only the objects the cache already holds), relist-drops-deletions-go (its
	// informers' handlers ignore the tombstones a relist's deletions come as).
	managerCacheOptions = cacheOptions

	// eventBroadcaster is managerBroadcaster (main: nil, so the manager's recorder provider
	// builds client-go's record.NewBroadcaster(), its default EventCorrelator: counting,
	// aggregation and the spam filter, CONTRACT.md "Events"). Mutants: no-spam-filter-go (a
	// broadcaster whose spam filter lets everything through), spam-key-by-name-go (its spam
	// filter keyed without the involvedObject's uid), creates-on-refused-patch-go (its sink
	// reports a refused patch as 404, so a refused repeat is created anew).
	eventBroadcaster = managerBroadcaster

	// crashPointSeam is crashPoint as step 3 calls it once the finalizer is on (the point
	// "after-finalizer", CONTRACT.md "Crash points"). Mutant: panics-after-finalizer-go (builds
	// the failed write's Event there with a nil error, a panic that controller-runtime
	// recovers; the next reconcile finds the finalizer and converges).
	crashPointSeam = crashPoint

	// controllerReconciler is reconcilerOf (SetupWithManager: the reconciler the controller
	// calls, whose errors the workqueue retries with backoff). Mutants:
	// gives-up-on-server-errors-go (drops an error the API server answered with 5xx: the key
	// is never retried), forgets-conflict-go (drops the conflict's RequeueAfter),
	// stops-at-foreign-child-go (step 2's walk ends at the first child that is not ours).
	controllerReconciler = reconcilerOf

	// childUnchanged is equality.Semantic.DeepEqual as steps 4 and 5 ask it of a live child and
	// its mutated copy (equal: no write; quantities compare by value, CONTRACT.md "Desired
	// Deployment", Quantities). Mutant: respelled-written-go (the server container's
	// quantities also compared as text, so an equal respelling of the ModelService is written).
	childUnchanged = equality.Semantic.DeepEqual

	// metricsRegistry is controllerRuntimeRegistry (main: the registry /metrics serves,
	// controller-runtime's metrics.Registry as it is). Mutant: reconcile-time-wall-clock-go (its
	// Gather reports the reconcile-time histogram's sum as if each observation were the Unix
	// time).
	metricsRegistry = controllerRuntimeRegistry
)
