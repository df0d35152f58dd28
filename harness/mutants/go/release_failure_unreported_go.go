// release-failure-unreported-go: on SIGTERM, gives up a Lease release that failed without
// saying so (Go).
//
// Anti-pattern: the shutdown path treats a failed release as nothing to report ("we are
// exiting anyway"), so the log of a leader whose release was refused reads like that of one
// that had nothing to release, and whoever wonders why the next leader took a whole lease
// duration to come finds no line about it.
//
// Why people write it: the release is best effort by design (standbys take an expired Lease
// anyway), and errors during shutdown are often noise.
//
// What the correct operator does: a release that failed is logged once at level error,
// "could not release the Lease; standbys wait for it to expire", and never as released
// (CONTRACT.md, "Process"); leader-failover[release-refused] refuses every release attempt
// with 409 and reads the leader's log.
package main

import (
	"context"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

func init() {
	leaseRelease = func(ctx context.Context, lock *resourcelock.LeaseLock, identity string, timeout time.Duration) (bool, error) {
		released, err := releaseLease(ctx, lock, identity, timeout)
		if err != nil {
			return false, nil // the mutant: the failure dropped
		}
		return released, nil
	}
}
