// release-unreported-go: a release that succeeded is reported as none (Go).
//
// Anti-pattern: the result of the release is read the wrong way round (`if err == nil` where
// `!= nil` was meant): the Lease is given up, but the stopping leader logs no "Released
// Lease", and a release that failed would be reported as done. Whoever reads the log of a
// rolling update cannot tell a hand-over from a standby waiting out the lease.
//
// Why people write it: the Lease itself is released either way, so every test that looks at
// the Lease passes.
//
// What the correct operator does: once the release's update succeeded it logs "Released Lease"
// (CONTRACT.md, "Process"); leader-failover reads the SIGTERMed leader's log.
package main

import (
	"context"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

func init() {
	leaseRelease = func(ctx context.Context, lock *resourcelock.LeaseLock, identity string, timeout time.Duration) (bool, error) {
		released, err := releaseLease(ctx, lock, identity, timeout)
		if err == nil {
			return false, nil
		}
		return released, nil
	}
}
