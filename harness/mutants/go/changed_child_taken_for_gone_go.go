// changed-child-taken-for-gone-go: the delete of a vanished ModelService's child answered 409 (the child changed since it was read) is taken for "gone", and a create is sent over the child (Go).
//
// Anti-pattern: steps 4 and 5 delete a dead owner's child with its UID and the
// resourceVersion they read as preconditions, then create their own. A 409 to that delete
// says the child changed since it was read (its ownerReferences stripped by an Orphan delete
// the cache has not seen yet); read as "deleted already", the pass goes on to create a child
// that is still there, answered 409 AlreadyExists.
//
// Why people write it: a 409 to a delete with only the UID as precondition does mean "not
// this object any more" (replaced), and the same branch is reused for the stricter delete.
//
// What the correct operator does: a 409 to the resourceVersion precondition ends the pass;
// the next pass reads the child again and adopts it (vanished-owner[orphaned-unseen]).
package main

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func init() {
	deleteVanishedChild = func(ctx context.Context, c client.Writer, rec record.EventRecorder, ms *unstructured.Unstructured, child client.Object) error {
		if err := deleteChildOfVanished(ctx, c, rec, ms, child); err != nil && !apierrors.IsConflict(err) {
			return err
		}
		return nil
	}
}
