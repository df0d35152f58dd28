// owner-by-kind-go: takes a same-named child that any ModelService controls for its own, whatever its name and UID (Go).
//
// Anti-pattern: "ours" is decided by the kind of the child's controller ownerReference: a
// Deployment or Service of our name whose controller is a ModelService is taken for our own
// child and updated to the desired state, its controller ownerReference replaced by ours
// (the reference "to the same owner" found by kind). A child another live ModelService
// controls is hijacked in one Update, and the child of a ModelService of our name that no
// longer exists is updated in place, where it should be deleted and created anew.
//
// Why people write it: the controller ownerReference is read the way the watch reads it
// (Owns maps a child's event to its controller by kind and name), and a check of the kind
// looks like enough to tell "made by us" from "made by someone else"; controller-runtime's own
// SetControllerReference finds an existing reference by group, kind and name, not by UID.
// In a test cluster no child of our name is ever controlled by another ModelService.
//
// What the correct operator does: the controller ownerReference's UID decides (metav1
// IsControlledBy): a child controlled by any other ModelService UID is not ours. One of a
// live ModelService (another name) is a ChildConflict and is never written; one of a
// ModelService of our name that no longer exists is deleted with its UID as precondition and
// created anew, never updated as if it were ours.
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	// The mutant: any ModelService's child is ours.
	controlledBySeam = func(obj metav1.Object, _ *unstructured.Unstructured) bool {
		ref := metav1.GetControllerOf(obj)
		return ref != nil && ref.Kind == modelServiceGVK.Kind
	}
	// ... so none is the child of a vanished one ...
	ownerVanished = func(metav1.Object, *unstructured.Unstructured) bool { return false }
	// ... and its controller reference is "ours" to replace.
	ensureOwnerReferenceSeam = func(refs []metav1.OwnerReference, want metav1.OwnerReference) []metav1.OwnerReference {
		for i := range refs {
			if refs[i].Kind == want.Kind || refs[i].UID == want.UID {
				refs[i] = want
				return refs
			}
		}
		return append(refs, want)
	}
}
