// adopts-unlabelled-go: adopts every ownerless same-named child, with our label or without (Go).
//
// Anti-pattern: "no controller ownerReference" is taken to mean "ours for the taking": a
// Deployment or Service that has our ModelService's name and no controller is adopted (our
// controller ownerReference added in one update, its fields set to the desired ones) whether or
// not it carries the operator's selector label. A Service someone made by hand under that name,
// for something else entirely, is taken over and re-pointed at the ModelService's pods.
//
// Why people write it: the orphans an orphaning delete leaves are the case adoption exists for,
// and they are ownerless; the label check looks redundant beside the name. For a Deployment the
// mistake often hides: an unlabelled one usually has another selector, which is immutable, so it
// is a conflict anyway. A Service has no immutable field the operator sets.
//
// What the correct operator does: it adopts only an ownerless child that carries its selector
// label modeldock.io/modelservice=<name> (the ReplicaSet controller's ClaimObject adopts only
// what its selector matches); an ownerless child without it is a ChildConflict and is never
// written (child-conflict[adopt-ownerless], the Service "bare").
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	// The mutant: every ownerless child of our name is adoptable, label or not.
	adoptableSeam = func(obj metav1.Object, _ *unstructured.Unstructured) bool {
		return metav1.GetControllerOf(obj) == nil
	}
}
