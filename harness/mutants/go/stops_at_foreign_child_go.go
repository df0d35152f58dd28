// stops-at-foreign-child-go: the cleanup stops at the first child that is not ours, and removes the finalizer over our Service (Go).
//
// Anti-pattern: step 2 walks the children in order (Deployment, then Service) and takes the
// first same-named child that is not ours for the end of its own: a break where a continue
// belongs. When the Deployment was replaced by someone else's while the Service is still
// ours, the Service is never looked at: nothing of ours "remains", the finalizer comes off,
// and our Service outlives its ModelService, owned by a UID that no longer exists.
//
// Why people write it: children are usually all ours or all gone, and a loop that stops at
// the first surprise looks careful; tests that replace a child replace the last one.
//
// What the correct operator does: every child is read and judged on its own (CONTRACT.md,
// "Deletion"): a child that is not ours is skipped, the ones that are ours are deleted, and
// the finalizer comes off only when none of ours is left
// (replaced-child-kept[foreign-deployment]).
package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// finalizeStoppingAtForeign is finalize with a break where the first child that is not ours
// is met.
func finalizeStoppingAtForeign(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured) (reconcile.Result, error) {
	remaining := false
	for _, child := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}} {
		key := client.ObjectKey{Namespace: ms.GetNamespace(), Name: ms.GetName()}
		if err := r.APIReader.Get(ctx, key, child); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return reconcile.Result{}, err
		}
		if !controlledBy(child, ms) {
			break // the mutant: "not ours" ends the cleanup's walk
		}
		left, err := finalizeChild(ctx, r, ms, child)
		if err != nil {
			return reconcile.Result{}, err
		}
		remaining = left || remaining
	}
	if remaining {
		return reconcile.Result{RequeueAfter: deletionRequeueAfter}, nil
	}
	return r.removeFinalizer(ctx, ms)
}

func init() {
	controllerReconciler = func(r *ModelServiceReconciler) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			ms := newModelService()
			if err := r.Get(ctx, req.NamespacedName, ms); err == nil && beingDeleted(ms) &&
				controllerutil.ContainsFinalizer(ms, finalizerName) && !orphansChildren(ms) {
				return finalizeStoppingAtForeign(ctx, r, ms)
			}
			return r.Reconcile(ctx, req)
		})
	}
}
