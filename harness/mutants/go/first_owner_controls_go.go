// first-owner-controls-go: the first ownerReference is taken for the controller (Go).
//
// Anti-pattern: "whose child is this?" is answered by ownerReferences[0], not by the reference
// that says controller: true. The operator writes one reference and reads it back first, so it
// works until another writer puts a reference of its own (controller unset: a co-owner, not a
// controller) before ours. From then on our own Deployment is "someone else's": a ChildConflict
// on a ModelService that owns it, and no repair of a hand edit.
//
// Why people write it: every child the operator made has exactly one reference, so index 0 and
// "the controller" never differ in a test that only the operator writes.
//
// What the correct operator does: it reads the controller as metav1.GetControllerOf does, the
// one reference with controller: true wherever it stands, keeps the others untouched
// (foreign-fields-kept: a ConfigMap's non-controller reference put before ours).
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	// The mutant: the first ownerReference, controller or not.
	controlledBySeam = func(obj metav1.Object, ms *unstructured.Unstructured) bool {
		refs := obj.GetOwnerReferences()
		return len(refs) > 0 && refs[0].UID == ms.GetUID()
	}
}
