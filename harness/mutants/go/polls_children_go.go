// polls-children-go: does not watch its children; looks at them again every 20 s instead (Go).
//
// Anti-pattern: the controller is built with For(ModelService) only, no Owns, and every
// Reconcile that finds the ModelService settled returns RequeueAfter 20s. It still reads its
// children from the cache (controller-runtime starts their informers on the first Get), so
// each timed pass costs no request, and it notices a deleted Service or a hand-edited replica
// count at its next pass: drift is repaired, up to 20 s late, and a bound that asks only for
// convergence within a minute never sees the difference.
//
// Why people write it: a periodic RequeueAfter is the first fix people reach for once they
// find that edits of the children go unnoticed, and it makes every demo work: wait long
// enough and the child is right again. It also looks cheap, since the reads hit the cache.
//
// What the correct operator does: Owns(&appsv1.Deployment{}) and Owns(&corev1.Service{}): a
// child's event enqueues its owner at once, so the repair follows the edit within one watch
// delivery and one reconcile (child-repaired bounds it by CHILD_REACT_BOUND,
// conformance/reactions.py), and with nothing changing the operator is never woken at all.
package main

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// pollPeriod is the polling period.
const pollPeriod = 20 * time.Second

func init() {
	// The mutant: no watch on the children ...
	childWatches = func(b *ctrl.Builder) *ctrl.Builder { return b }
	// ... and a timed requeue after every settled reconcile, to look at them again.
	settledResult = func() ctrl.Result { return ctrl.Result{RequeueAfter: pollPeriod} }
}
