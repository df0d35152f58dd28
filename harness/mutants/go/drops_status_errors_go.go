// drops-status-errors-go: a status write that fails is logged and dropped, so a refused status is never written once the refusal is lifted (Go).
//
// Anti-pattern: the status is treated as best effort. Step 6's write fails (403 from an
// admission policy or a webhook, a 422, a 5xx) and the reconcile logs it and returns success:
// the workqueue forgets the key. The Warning Event is there, but nothing brings the key back
// when the cause goes away, since removing a policy changes nothing the operator watches: the
// status keeps describing an older generation until some unrelated event arrives.
//
// Why people write it: "the children are right, the status is only a report", often written
// as `_ = r.Status().Update(ctx, obj)`; a status that fails to write looks harmless in a demo,
// where the next event comes soon enough.
//
// What the correct operator does: it returns the status write's error (a 404 excepted: the
// ModelService is gone), and the rate-limited workqueue tries the key again with backoff (5 ms
// doubling per failure, at most 1000 s); once the refusal is lifted that attempt writes the
// status (refused-write-reported[status-refused]).
package main

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

func init() {
	// The mutant: every failed status update of step 6 goes to modelServiceGone, which
	// handles a 404 as the real operator does and drops any other error.
	statusTargetGone = func(error) bool { return true }
	modelServiceGone = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
		err error, children []client.Object) error {
		if apierrors.IsNotFound(err) {
			return deleteChildrenOfGone(ctx, r, ms, err, children)
		}
		log.FromContext(ctx).Info("status not written, not retried", "error", err.Error())
		return nil
	}
}
