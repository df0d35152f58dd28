// gives-up-on-server-errors-go: drops a reconcile error the API server answered with 5xx, so the key is never retried (Go).
//
// Anti-pattern: a reconcile that failed with 500 InternalError or 503 ServiceUnavailable
// (without Retry-After) logs the error and returns success, as if the server's trouble were
// not the operator's: the workqueue forgets the key, and nothing brings it back until some
// unrelated event about that ModelService arrives, which for a quiet object is never.
//
// Why people write it: "5xx is the server's fault, retrying will not help", or an error path
// that was meant to stop a hot loop; in tests the API server never answers 5xx, so the lost
// object never shows.
//
// What the correct operator does: it returns the error, and the rate-limited workqueue tries
// the key again with backoff (5 ms doubling per failure): a transient 5xx heals at the next
// attempt (errors-retried[server-error]: ten in a row on the finalizer update, then it
// converges).
package main

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func init() {
	// The mutant: an error whose API status is 500 or above is logged and dropped.
	controllerReconciler = func(r *ModelServiceReconciler) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			result, err := r.Reconcile(ctx, req)
			var status apierrors.APIStatus
			if errors.As(err, &status) && status.Status().Code >= 500 {
				log.FromContext(ctx).Info("API server error, not retried", "error", err.Error())
				return reconcile.Result{}, nil
			}
			return result, err
		})
	}
}
