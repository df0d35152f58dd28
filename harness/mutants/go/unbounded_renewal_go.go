// unbounded-renewal-go: waits for a renewal's answer however long it takes, past the renew
// deadline (Go).
//
// Anti-pattern: the Lease lock writes with a context of its own, detached from the one
// client-go's elector bounds by RenewDeadline, "so that a slow API server does not cost the
// leadership". A renewal whose write stalls then keeps the leader leading, its workers
// writing, long after its lease ran out and a standby took it over: two writers until the
// stalled request ends (the client's request timeout, 35 s by default).
//
// Why people write it: the renew deadline reads like a budget for retries, not for one
// request, and a partition of the whole connection hides the fault, since the leader's other
// writes stall with its renewal.
//
// What the correct operator does: a renewal that has not succeeded within the renew deadline
// has failed, whatever its request would have answered, and the leader stops (client-go
// bounds the renewal's context by RenewDeadline; CONTRACT.md, "Process");
// leader-failover[lease-stalled] holds the leader's Lease writes while its other requests are
// served.
package main

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// detached is the Lease lock whose Update ignores the deadline of the context it is given.
type detached struct{ *resourcelock.LeaseLock }

func (l detached) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.LeaseLock.Update(context.WithoutCancel(ctx), ler)
}

func init() {
	electionLock = func(lock *resourcelock.LeaseLock) resourcelock.Interface {
		return detached{lock}
	}
}
