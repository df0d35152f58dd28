// fails-on-gone-child-go: a child delete answered 404 or 409 is reported as a failed delete
// (Go).
//
// Anti-pattern: the cleanup treats every error of a child's delete alike: a Warning
// FailedDelete Event about the ModelService, and the pass ends with the error (retried with
// backoff). But the delete carries the child's UID as precondition, so a 409 means the child
// was replaced since it was read (the one the operator meant is gone, and the replacement is
// someone else's to keep), and a 404 means it is gone already: no failure happened, and the
// user is told of one.
//
// Why people write it: "check every error" is the rule, and the two answers that mean
// "already done" are easy to forget where a delete is written without its precondition in
// mind.
//
// What the correct operator does: a 404 or 409 on a child delete counts the child as gone (no
// Event, no error); only other answers record Warning FailedDelete and end the pass
// (finalizer-ordered-delete[delete-not-found]; CONTRACT.md, "Deletion").
package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func init() {
	finalizeChildSeam = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
		child client.Object) (bool, error) {
		if child.GetDeletionTimestamp() != nil {
			return true, nil
		}
		what := fmt.Sprintf("%s \"%s\"", kindOf(child), child.GetName())
		err := r.Client.Delete(ctx, child,
			client.Preconditions{UID: ptr.To(child.GetUID())},
			client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil {
			// The mutant: a 404 or 409 is a failed delete like any other.
			return true, failedWrite(r.Recorder, ms, "delete", what, err)
		}
		recordEvent(r.Recorder, ms, corev1.EventTypeNormal, "Deleted"+kindOf(child), "Deleted "+what)
		return true, nil
	}
}
