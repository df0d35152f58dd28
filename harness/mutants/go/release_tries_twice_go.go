// release-tries-twice-go: on SIGTERM, retries a Lease release that meets 409 Conflict, but
// only twice in all (Go).
//
// Anti-pattern: the release retries a conflict, as it should, but with a budget of its own
// (two attempts) instead of client-go's retry.DefaultRetry (five, 10 ms apart). On a busy API
// server the renewal the shutdown cancelled, and the standby's reads, can move the Lease more
// than once between the release's read and its update; after the second 409 the operator
// gives up, exits 0 and leaves the Lease held, so every standby waits out the whole lease.
//
// Why people write it: one retry is enough for the race a developer has seen (one renewal in
// flight), and a test that scripts a single 409 cannot tell two attempts from five.
//
// What the correct operator does: a 409 on the release is read again and retried, up to 5
// attempts in all (CONTRACT.md, "Process"); leader-failover[release-conflict] answers the
// first four release writes with 409 and expects the Lease released.
package main

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/retry"
)

// releaseTwice is releaseLease with a retry budget of two attempts.
func releaseTwice(ctx context.Context, lock *resourcelock.LeaseLock, identity string, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	released := false
	twice := retry.DefaultRetry
	twice.Steps = 2 // the mutant: a retry budget of its own
	err := retry.RetryOnConflict(twice, func() error {
		record, _, err := lock.Get(ctx)
		if err != nil {
			return err
		}
		if record.HolderIdentity != identity {
			released = false
			return nil
		}
		now := metav1.NewTime(time.Now())
		released = true
		return lock.Update(ctx, resourcelock.LeaderElectionRecord{
			LeaderTransitions:    record.LeaderTransitions,
			LeaseDurationSeconds: 1,
			RenewTime:            now,
			AcquireTime:          now,
		})
	})
	if err != nil {
		return false, err
	}
	return released, nil
}

func init() {
	leaseRelease = releaseTwice
}
