// recreates-drifted-go: repairs a hand-edited child by deleting it and creating it again (Go).
//
// Anti-pattern: whenever the stored child differs from the desired one, the operator treats
// the difference as it treats an immutable field: it deletes the child (UID precondition,
// Background propagation) and creates a new one from the desired object. Every field ends as
// the contract wants, so a check that compares fields alone sees a repair.
//
// Why people write it: "delete and recreate" needs no merge of the live object with the
// desired one, no thought about defaulted fields, and no 409 handling; it is also how
// `kubectl replace --force` fixes an object by hand.
//
// What the correct operator does: it updates the child it has (mutate a copy of the stored
// object, one Update), so the object keeps its UID, its history, its pods and its clusterIP;
// only an immutable field (a Deployment's spec.selector) is a reason to replace it.
package main

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func init() {
	// The mutant: any difference is treated as one of an immutable field.
	immutableChangeSeam = func(live, updated client.Object) string {
		if reason := immutableChange(live, updated); reason != "" {
			return reason
		}
		if !equality.Semantic.DeepEqual(live, updated) {
			return "spec"
		}
		return ""
	}
}
