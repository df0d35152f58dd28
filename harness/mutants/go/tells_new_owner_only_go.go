// tells-new-owner-only-go: a child's update enqueues the owner of the new object only (Go).
//
// Anti-pattern: the watches on the children map an updated child to the ModelService its new
// controller ownerReference names and forget the old one (here Owns replaced by Watches with
// a handler that, on an update, looks at ObjectNew alone): when someone moves a child's
// controller ownerReference to another ModelService, the one that lost it is never told, and
// its status goes on saying all is well while it controls nothing.
//
// Why people write it: "the object as it is now" is what a create and a delete hand over, and
// an update handler written the same way passes every test in which a child keeps its owner.
//
// What the correct operator does: Owns uses controller-runtime's EnqueueRequestForOwner, which
// on an update enqueues the owners of both the old and the new object
// (child-conflict[owner-moved]: ChildConflict reported within 10 s).
package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// enqueueControllerOwner adds the ModelService that obj's controller ownerReference names.
func enqueueControllerOwner(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != modelServiceGVK.Kind {
		return
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != modelServiceGVK.Group {
		return
	}
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}})
}

func init() {
	// The mutant: an update tells the new owner only.
	childWatches = func(b *ctrl.Builder) *ctrl.Builder {
		h := handler.Funcs{
			CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				enqueueControllerOwner(e.Object, q)
			},
			UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				enqueueControllerOwner(e.ObjectNew, q)
			},
			DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				enqueueControllerOwner(e.Object, q)
			},
		}
		return b.Watches(&appsv1.Deployment{}, h).Watches(&corev1.Service{}, h)
	}
}
