// creates-over-dead-child-go: a refused delete of a vanished ModelService's child does not end the pass: the create is sent anyway, and answered 409 (Go).
//
// Anti-pattern: steps 4 and 5 delete the child of a ModelService of our name that no longer
// exists and then create their own; the delete's failure is logged and recorded (Warning
// FailedDelete) but not returned, so the create follows over a child that is still there and
// is answered AlreadyExists, every pass, while the delete stays refused.
//
// Why people write it: "the create will tell us if the name is still taken", and the 409 is
// retried like any other.
//
// What the correct operator does: a delete that fails other than with 404 or 409 is the
// pass's error (CONTRACT.md, "When the ModelService vanishes"): the pass ends, nothing is
// created while the child is in the way, and the key is retried with backoff until the delete
// is admitted (vanished-owner[refused-delete]).
package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

func init() {
	deleteVanishedChild = func(ctx context.Context, c client.Writer, rec record.EventRecorder,
		ms *unstructured.Unstructured, child client.Object) error {
		if err := deleteChildOfVanished(ctx, c, rec, ms, child); err != nil {
			log.FromContext(ctx).Info("dead owner's child not deleted; creating", "error", err.Error())
		}
		return nil
	}
}
