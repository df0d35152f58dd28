// forgets-conflict-go: after a ChildConflict the pass asks for no requeue, so the ModelService waits for ever once the foreign child is gone (Go).
//
// Anti-pattern: a conflict is reported and the pass ends like any other, with nothing to
// requeue: "the watches bring the key back when anything changes". They do not here: the
// foreign child carries no ownerReference to this ModelService, so Owns never maps its events
// to it, and its removal goes unnoticed; the ModelService reports ChildConflict until
// something else (an edit, a restart) happens to bring it back.
//
// Why people write it: the no-requeue rule is right for every other outcome, and a test that
// removes the foreign child right after the conflict often meets a pass still pending from
// the start-up's own writes.
//
// What the correct operator does: after a ChildConflict, RequeueAfter 5 s (CONTRACT.md, step
// 7): the conflict is judged again every 5 s while it lasts (a Warning ChildConflict Event
// each time), and the pass after the foreign child is gone creates ours (child-conflict).
package main

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func init() {
	controllerReconciler = func(r *ModelServiceReconciler) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			result, err := r.Reconcile(ctx, req)
			if err == nil && result.RequeueAfter == conflictRequeueAfter {
				log.FromContext(ctx).Info("conflict reported; not requeued")
				return reconcile.Result{}, nil
			}
			return result, err
		})
	}
}
