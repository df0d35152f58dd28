// waits-on-foreign-deleting-go: takes a same-named child that is being deleted for its own (Go).
//
// Anti-pattern: a Deployment or Service of our name that has a deletionTimestamp is waited for
// ("it is going; the next pass creates ours"), whoever controls it. A child someone else owns,
// or an ownerless one, held by a finalizer of its own (a backup tool's, a policy engine's) is
// then reported as our child: the status reads its replicas as ours, no ChildConflict is said,
// and the Service is created beside it, pointing at pods that are not ours.
//
// Why people write it: "deleting" is checked before "ours", since a deleting child must never
// be written; the two checks look independent.
//
// What the correct operator does: it waits for a deleting child only when the child is its own
// (controller ownerReference with its UID); someone else's, deleting or not, is a ChildConflict,
// and nothing is created beside it (child-conflict[adopt-ownerless], the Deployment "held").
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	// The mutant: a child that is being deleted counts as ours, whoever controls it.
	controlledBySeam = func(obj metav1.Object, ms *unstructured.Unstructured) bool {
		return obj.GetDeletionTimestamp() != nil || controlledBy(obj, ms)
	}
}
