// conflict-as-gone-go: takes a 409, 410 or 422 for a 404 NotFound (Go).
//
// Anti-pattern: the "is it gone?" test of an API error compares the status code with >= (or
// accepts any 4xx "that means it is not there"), so a stale status write (409 Conflict) is
// taken for a ModelService deleted under the operator's feet: the pass deletes the children of
// a live ModelService, and the next one creates them anew, new UIDs, a new rollout, pods
// restarted for nothing, every time the cache is a moment behind.
//
// Why people write it: 404 is the only error the author had in mind, and a range test reads as
// harmless; a 409 on a status write needs a second writer of the same object at the same
// moment, which a test with one ModelService rarely produces.
//
// What the correct operator does: only a 404 (apierrors.IsNotFound) means gone; a 409 is a
// stale write, retried from a fresh read (CONTRACT.md step 7), and the children stay
// (progressing-without-kubelet answers one status write with 409).
package main

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func init() {
	statusTargetGone = func(err error) bool {
		// The mutant: 404 and every 4xx above it that the operator meets (409, 410, 422).
		return apierrors.IsNotFound(err) || apierrors.IsConflict(err) || apierrors.IsGone(err) ||
			apierrors.IsInvalid(err)
	}
}
