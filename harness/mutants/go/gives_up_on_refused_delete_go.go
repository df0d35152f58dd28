// gives-up-on-refused-delete-go: a child whose delete is refused is counted as gone, so the finalizer comes off over it (Go).
//
// Anti-pattern: cleanup is best effort. Step 2 sends the children's deletes, and one that the
// API server refuses (403 from an admission policy or a webhook, a 5xx) is logged and the
// child taken for gone: "a stuck child must not block the user's delete for ever". The
// finalizer comes off, the ModelService vanishes, and the child stays behind, owned by a UID
// that no longer exists (for ever where no garbage collector runs).
//
// Why people write it: a cleanup that returns its error looks like it can hang a namespace
// deletion; swallowing the error makes `kubectl delete` return.
//
// What the correct operator does: the refused delete is the pass's error (Warning
// FailedDelete), the finalizer stays, and the key is retried with backoff until the delete is
// admitted and the child is read gone (finalizer-ordered-delete[delete-refused]).
package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

func init() {
	finalizeChildSeam = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
		child client.Object) (bool, error) {
		left, err := finalizeChild(ctx, r, ms, child)
		if err != nil {
			log.FromContext(ctx).Info("child not deleted; taken for gone", "error", err.Error())
			return false, nil
		}
		return left, nil
	}
}
