// cleans-up-held-go: when the status update says the ModelService is gone, deletes every child
// the pass holds, its own or not (Go).
//
// Anti-pattern: the children a pass "holds" are taken to be the ModelService's: when its status
// update is answered 404 (the ModelService deleted under the pass, kubernetes#77988), the
// cleanup deletes each of them. But a pass in ChildConflict holds the foreign same-named child
// it found (to report it), and that one is deleted too: another controller's Service, gone
// because our ModelService vanished.
//
// Why people write it: the pass created the children it holds, in the common case; the
// ownership decision was made a few lines earlier and looks settled.
//
// What the correct operator does: it deletes, with the UID precondition, only the held children
// that the gone ModelService controls (its UID in their controller ownerReference); a foreign
// child survives (vanished-owner[foreign-held]).
package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

func init() {
	modelServiceGone = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured, gone error, children []client.Object) error {
		logf.FromContext(ctx).Info("ModelService gone", "uid", string(ms.GetUID()), "error", gone.Error())
		for _, child := range children {
			// The mutant: every held child is taken for the gone ModelService's.
			if child.GetUID() == "" {
				continue
			}
			if err := deleteChild(ctx, r.Client, r.Recorder, ms, child); err != nil {
				return err
			}
		}
		return nil
	}
}
