// gives-up-after-refusal-go: drops the key after a child write the API server refused, so a spec changed while refused is never written once the refusal is lifted (Go).
//
// Anti-pattern: a reconcile whose Deployment or Service write was refused (403 from an
// admission policy or a webhook, 422 Invalid) reports the refusal in the status, logs it and
// returns success, as if a refusal were final: the workqueue forgets the key. Nothing brings it
// back when the cause goes away: removing an admission policy changes nothing the operator
// watches, so the ModelService keeps its old Deployment and the stale refusal in its status
// until some unrelated event arrives, which for a quiet object is never.
//
// Why people write it: "a refusal is the user's problem, retrying cannot help" (true of a 422
// until the spec is fixed, and the spec's change is an event), or a wish to stop the stream of
// refused requests; in tests the policy is never removed, so the lost retry never shows.
//
// What the correct operator does: it reports the refusal and returns the error, and the
// rate-limited workqueue tries the key again with backoff (5 ms doubling per failure, at most
// 1000 s): once the policy is gone, the next attempt, within the backoff of the failures so
// far, reads the current spec and writes it (refused-write-reported[refusal-lifted]).
package main

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func init() {
	// The mutant: a refused child write (after its report) is logged and dropped.
	controllerReconciler = func(r *ModelServiceReconciler) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			result, err := r.Reconcile(ctx, req)
			var refused *refusedWrite
			if errors.As(err, &refused) {
				log.FromContext(ctx).Info("child write refused, not retried", "error", err.Error())
				return reconcile.Result{}, nil
			}
			return result, err
		})
	}
}
