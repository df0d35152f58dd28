// restamps-acquire-time-go: every renewal writes acquireTime anew, as if the Lease were taken
// again each retry period (Go).
//
// Anti-pattern: the Lease lock writes acquireTime from the time of the write, whatever the
// record client-go's elector gave it says, so acquireTime always equals renewTime: nobody
// reading the Lease can tell how long its holder has held it, and a leader that has led for
// days looks as new as one that just took over.
//
// Why people write it: acquireTime and renewTime are both "now" when the Lease is first
// taken, so a test that reads the Lease once after the first acquire cannot tell them apart.
//
// What the correct operator does: acquireTime is set once per holder, when it takes the
// Lease, and renewals keep it (client-go's tryAcquireOrRenew; CONTRACT.md, "Process");
// leader-failover[lease-record] reads it over renewals and after a hand edit of the Lease.
package main

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// restamped is the Lease lock whose Update sets acquireTime to the record's renewTime.
type restamped struct{ *resourcelock.LeaseLock }

func (l restamped) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	ler.AcquireTime = ler.RenewTime
	return l.LeaseLock.Update(ctx, ler)
}

func init() {
	electionLock = func(lock *resourcelock.LeaseLock) resourcelock.Interface {
		return restamped{lock}
	}
}
