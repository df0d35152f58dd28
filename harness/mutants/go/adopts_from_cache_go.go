// adopts-from-cache-go: adopts on the cache's word that the ModelService still exists (Go).
//
// Anti-pattern: an ownerless child with our selector label is adopted as soon as the cache
// holds a ModelService of its name, without reading the ModelService from the API server. The
// cache lags: a ModelService deleted (and perhaps created again under the same name) may still
// be there, and the child gets a controller ownerReference to a UID that no longer exists. The
// garbage collector then deletes the very workload an orphaning delete was meant to keep, and a
// successor of the name finds a child of a vanished owner to delete and re-create.
//
// Why people write it: everything else a reconcile decides is decided on the cache, and the
// cache is "eventually consistent" enough for every other write: a stale update gets 409. An
// adoption of an ownerless child is not stale in that sense; the object it is wrong about is
// the owner, which the update does not touch.
//
// What the correct operator does: it reads the ModelService live before each adoption (kube's
// ControllerRefManager, RecheckDeletionTimestamp) and refuses the adoption (an error, retried)
// when it is gone, has another UID or is being deleted (child-conflict[adopt-recheck]).
package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	// The mutant: no live read; whatever the cache holds is the owner.
	adoptionRecheck = func(*ModelServiceReconciler, context.Context, *unstructured.Unstructured, string) error {
		return nil
	}
}
