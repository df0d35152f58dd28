// never-adopts-go: reports ChildConflict for the ownerless children its own ModelService made (Go).
//
// Anti-pattern: every same-named child without this ModelService's controller ownerReference
// is treated as someone else's, including the ownerless Deployment and Service that still carry
// the operator's own selector label. After `kubectl delete msvc web --cascade=orphan` and the
// same ModelService applied again, the status says ChildConflict for ever, and the only way out
// is to delete the running Deployment by hand, taking down the workload the orphaning kept.
//
// Why people write it: "never adopt" is the safe half of the ownership rule (a name is not
// ownership, and taking another controller's object is a real bug), and the orphaned state is
// never seen in a test cluster without a garbage collector, where --cascade=orphan leaves the
// ownerReferences in place.
//
// What the correct operator does: it adopts as the Kubernetes controllers do (the ReplicaSet
// controller's ClaimObject): an ownerless child that carries its selector label
// modeldock.io/modelservice=<name> gets its controller ownerReference in one Update, after a
// live read confirms the ModelService is not being deleted; one controlled by another owner,
// or ownerless without the label, stays a ChildConflict.
package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	// The mutant: no ownerless child is ever ours again.
	adoptableSeam = func(metav1.Object, *unstructured.Unstructured) bool { return false }
}
