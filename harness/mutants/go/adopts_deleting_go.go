// adopts-deleting-go: adopts for a ModelService the API server holds deleting (Go).
//
// Anti-pattern: before an adoption the ModelService is read live, as it must be, but the read
// is asked one question only: is the same UID still there? A ModelService being deleted (its
// deletionTimestamp set, held by someone else's finalizer, or by the orphan finalizer of a
// --cascade=orphan delete) answers yes, and the ownerless child gets a controller
// ownerReference to an owner on its way out: once the finalizer goes, the garbage collector
// deletes the child with it, the very workload the orphaning delete was meant to keep.
//
// Why people write it: the recheck exists for the cache's lag, and the lag everyone pictures is
// a delete and re-create under the same name (another UID); a deletion still pending, same UID,
// is the case nobody stages.
//
// What the correct operator does: it refuses the adoption (an error, retried) when the live
// ModelService is gone, has another UID or carries a deletionTimestamp (confirmAdopter;
// child-conflict[adopt-recheck-deleting]).
package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func init() {
	adoptionRecheck = func(r *ModelServiceReconciler, ctx context.Context, ms *unstructured.Unstructured, what string) error {
		fresh := newModelService()
		err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(ms), fresh)
		if apierrors.IsNotFound(err) || (err == nil && fresh.GetUID() != ms.GetUID()) {
			return fmt.Errorf("not adopting %s: no longer exists", what)
		}
		// The mutant: a deletionTimestamp on the live ModelService is not looked at.
		return err
	}
}
