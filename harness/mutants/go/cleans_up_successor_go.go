// cleans-up-successor-go: the cleanup's live read of the deleting ModelService compares its name only: a successor of the same name that holds our finalizer is taken for it, and our finalizer is removed from the successor (Go).
//
// Anti-pattern: step 2 reads the ModelService live before any child delete, and takes
// whatever the API server holds under the name for the object it is cleaning up. When the
// ModelService went and was applied again behind the cache, and another writer (an earlier
// leader) has put our finalizer on the successor, the pass finds none of the children its
// own (they name the gone UID) and removes our finalizer from the successor, which is not
// deleting: its own cleanup then never runs.
//
// Why people write it: a Get by namespace and name looks like "the same object, fresher",
// and the UID is compared where children are matched, not where the owner is read.
//
// What the correct operator does: another UID under the name is "gone" for this pass, which
// ends with nothing done (deletion-policy[replaced-unseen]), as the garbage collector compares
// an owner's UID when it reads it live (kube v1.34 GarbageCollector.isDangling).
package main

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func init() {
	deletingModelServiceSeam = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		fresh := newModelService()
		err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(ms), fresh)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return fresh, nil
	}
}
