// cleans-up-gone-owner-go: a cleanup pass whose live read finds the deleting ModelService gone goes on with the cache's copy: it deletes children the garbage collector owns now, and writes a ModelService that is not there (Go).
//
// Anti-pattern: step 2 reads the ModelService live before any child delete, and a "gone"
// answer (404, or another UID under the name) is taken for "nothing new": the pass falls
// back on the object in hand, the cache's copy, and deletes the children and removes its
// finalizer from an object the API server no longer holds (an Update answered 404).
//
// Why people write it: the live read was added for the deletion policy only ("read the
// policy as it stands"), and a missing object looks like a read that brought no news.
//
// What the correct operator does: gone is the answer; the pass ends with nothing done, and
// the dead owner's children are the garbage collector's (deletion-policy[gone-unseen]). A
// hand-made twin of gremlins' `||`->`&&` mutants of finalize's `live == nil` test, which that
// case kills through the panic they end in (stop 50).
package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	deletingModelServiceSeam = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		live, err := readDeletingLive(ctx, r, ms)
		if err == nil && live == nil {
			return ms, nil
		}
		return live, err
	}
}
