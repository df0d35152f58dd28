// owner-handler-panics-go: the child watch's handler fails on a child that has no controller
// (Go).
//
// Anti-pattern: the operator maps a child's event to its owner's request with a handler of its
// own that reads the controller ownerReference without asking whether there is one ("every
// child we watch is ours"). A Deployment a user made by hand, or one a ModelService let go of
// (an orphan), has none: the nil pointer panics in the informer's goroutine, where client-go's
// HandleCrash logs it and ends the process.
//
// Why people write it: in a test every watched child is the operator's own; the ownerless
// object arrives only with other writers in the namespace.
//
// What the correct operator does: Owns() (controller-runtime v0.22's EnqueueRequestForOwner
// with OnlyControllerOwner) enqueues nothing, quietly, for an object with no controller or a
// controller of another kind or group; child-conflict[adopt-ownerless] makes an ownerless
// Deployment, and the suite-wide panic oracle fails the panic. Python twin:
// owner-handler-raises.
package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func init() {
	childWatches = func(b *ctrl.Builder) *ctrl.Builder {
		toOwner := func(_ context.Context, obj client.Object) []reconcile.Request {
			ref := metav1.GetControllerOf(obj)
			// The mutant: the controller reference is read as if every child had one.
			if ref.Kind != "ModelService" {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{
				Namespace: obj.GetNamespace(), Name: ref.Name}}}
		}
		return b.Watches(&appsv1.Deployment{}, handler.EnqueueRequestsFromMapFunc(toOwner)).
			Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(toOwner))
	}
}
