// trusts-stale-owner-go: the child of a vanished ModelService is deleted on the cache's word: a child orphaned since, which the cache still shows owned by the dead ModelService, is deleted instead of adopted (Go).
//
// Anti-pattern: steps 4 and 5 delete a same-named child controlled by a ModelService of our
// name that no longer exists with the UID precondition only. The child was read from the
// informer cache; if `kubectl delete --cascade=orphan` stripped its ownerReference after the
// cache last heard of it, the UID still matches, the delete succeeds, and the workload the
// user asked to keep is taken down and created anew.
//
// Why people write it: "the UID precondition already makes the delete safe", and it does
// against a replaced object, not against a changed one.
//
// What the correct operator does: it deletes as the garbage collector does, with the
// resourceVersion it read as a precondition too (kube v1.34 GarbageCollector.deleteObject):
// a child changed since is answered 409, the key is retried, and the next pass reads it
// ownerless with our label and adopts it, same UID (vanished-owner[orphaned-unseen]).
package main

func init() {
	deleteVanishedChild = deleteChild
}
