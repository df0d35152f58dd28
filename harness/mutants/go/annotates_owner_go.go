// annotates-owner-go: labels the user's ModelService with who manages it (Go).
//
// Anti-pattern: when step 3 adds the finalizer, the operator also puts its
// app.kubernetes.io/managed-by=modeldock label on the ModelService, the one it puts on the
// children. The spec is untouched, so metadata.generation stays 1 and everything converges;
// but the user's object now carries a label the user never wrote, which `kubectl apply` with
// a pruning field manager, a GitOps tool comparing with the repository, or the user's own
// label selectors see as drift nobody asked for.
//
// Why people write it: `kubectl get modelservices -l app.kubernetes.io/managed-by=modeldock`
// looks like a handy list of what the operator manages, and the finalizer update is "a write
// of the object anyway".
//
// What the correct operator does: the ModelService's spec, labels and annotations are the
// user's; the operator's only writes of it are its finalizer and, through the status
// subresource, its status. Whatever it wants to note goes into the status, or is recomputed.
package main

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// withManagedBy is obj's labels with app.kubernetes.io/managed-by=modeldock added.
func withManagedBy(obj client.Object) map[string]string {
	labels := map[string]string{}
	for k, v := range obj.GetLabels() {
		labels[k] = v
	}
	labels[labelManagedBy] = "modeldock"
	return labels
}

func init() {
	// The mutant: the finalizer, and a label of the operator's on the user's object.
	addFinalizer = func(obj client.Object, finalizer string) bool {
		changed := controllerutil.AddFinalizer(obj, finalizer)
		obj.SetLabels(withManagedBy(obj))
		return changed
	}
}
