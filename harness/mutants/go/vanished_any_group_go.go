// vanished-any-group-go: a same-named child controlled by a ModelService of any API group, with another UID, is taken for the child of a vanished one of ours, and deleted (Go).
//
// Anti-pattern: the successor rule (CONTRACT.md, "When the ModelService vanishes") is read as
// "a child whose controller is a ModelService called like me, with another UID": the owner's
// kind and name are compared, its group is not. A child that a live ModelService of another
// API group controls (another team's CRD of the same kind name) is deleted as the garbage
// collector would delete a dangling dependent, and ours is created in its place.
//
// Why people write it: the kind is what the code has at hand (a constant, or
// ownerReference.Kind), and no test cluster has two CRDs of one kind.
//
// What the correct operator does: a ModelService is modeldock.io's. Only a child whose
// controller ownerReference's apiVersion is in group modeldock.io (any version) can be a
// vanished ModelService's; one of another group is a foreign child: ChildConflict, never
// written (child-conflict[other-group]).
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	ownerVanished = func(obj metav1.Object, ms *unstructured.Unstructured) bool {
		ref := metav1.GetControllerOf(obj)
		return ref != nil && ref.Kind == modelServiceGVK.Kind && ref.Name == ms.GetName() && ref.UID != ms.GetUID()
	}
}
