// rewrites-spec-go: writes the defaults it applies back into the user's spec (Go).
//
// Anti-pattern: when step 3 adds the finalizer, the operator also fills in what the user left
// out: resource requests copied from the limits (what Kubernetes itself does for a container
// with limits and no requests). The Update that carries the finalizer carries the changed
// spec too, so metadata.generation moves to 2 although the user wrote the spec once, and the
// children and status are built from the rewritten spec, so everything still looks converged.
//
// Why people write it: defaulting "in one place, visibly, in the object" looks tidier than
// defaulting in memory on every reconcile, and observedGeneration equal to generation hides
// that the generation is not the user's.
//
// What the correct operator does: the spec is the user's; its only writes to the ModelService
// are the finalizer and the status, and defaults are applied in memory (readSpec).
package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

func init() {
	addFinalizer = func(obj client.Object, finalizer string) bool {
		changed := controllerutil.AddFinalizer(obj, finalizer)
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return changed
		}
		limits, found, _ := unstructured.NestedMap(u.Object, "spec", "resources", "limits")
		_, hasRequests, _ := unstructured.NestedMap(u.Object, "spec", "resources", "requests")
		if found && len(limits) > 0 && !hasRequests {
			_ = unstructured.SetNestedMap(u.Object, limits, "spec", "resources", "requests")
		}
		return changed
	}
}
