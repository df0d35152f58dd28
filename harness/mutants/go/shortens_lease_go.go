// shortens-lease-go: a standby judges another holder's Lease expired after a quarter of its
// leaseDurationSeconds, so after a crash it takes over long before the lease ran out (Go).
//
// Anti-pattern: the standby does not trust the duration the holder wrote: a leader renews
// every retry period, so a Lease not renewed for a few periods "must" be dead, and the
// takeover looks faster. While the holder renews nothing shows (each read sees a new
// renewTime); once it stops renewing, because it crashed or because it is cut off from the
// API server while its workers still run, the standby takes the Lease while the holder may
// still believe it leads: two writers, the split brain the lease duration exists to prevent.
//
// Why people write it: with a leader that crashed for good, an early takeover is only
// faster, and a test that bounds the takeover from above (not too late) passes it.
//
// What the correct operator does: a standby takes the Lease only once it has seen no renewal
// for the lease duration the holder wrote (CONTRACT.md, "Process"); leader-failover reads the
// takeover's time in the audit log against the dead leader's last renewal + the lease
// duration.
package main

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// shortened is the Lease lock whose Get reads another holder's lease duration as a quarter.
type shortened struct{ *resourcelock.LeaseLock }

func (l shortened) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	record, raw, err := l.LeaseLock.Get(ctx)
	if err == nil && record.HolderIdentity != l.Identity() {
		record.LeaseDurationSeconds = max(1, record.LeaseDurationSeconds/4)
	}
	return record, raw, err
}

func init() {
	electionLock = func(lock *resourcelock.LeaseLock) resourcelock.Interface {
		return shortened{lock}
	}
}
