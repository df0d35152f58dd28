// trusts-cached-policy-go: the cleanup decides the deletion policy from the cache's copy of the ModelService: a delete switched to orphan since is not seen, and the children are deleted (Go).
//
// Anti-pattern: step 2 reads the `orphan` finalizer from the informer cache only. `kubectl
// delete` followed by `kubectl delete --cascade=orphan` sets the garbage collector's
// finalizers anew on the object already deleting, so the user's last word is "keep the
// children"; a cache that has not heard of the second request yet still shows the first
// policy, and the cleanup deletes the workload the user asked to keep.
//
// Why people write it: "the object is deleting, its policy was set when the delete came",
// but a later delete request may change it, and nothing about the child's own delete (its
// UID precondition) knows the owner's policy.
//
// What the correct operator does: before deleting any child it reads the ModelService live,
// as the garbage collector reads an owner live before acting on its dependents (kube v1.34
// GarbageCollector.isDangling), and takes the orphan path when the live object says so
// (deletion-policy[switched-to-orphan]).
package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	deletingModelServiceSeam = func(_ context.Context, _ *ModelServiceReconciler, ms *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return ms, nil
	}
}
