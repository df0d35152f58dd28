// resets-lease-transitions-go: takes the Lease without reading how often it changed hands, so
// leaseTransitions starts again from 1 at every takeover (Go).
//
// Anti-pattern: the Lease lock reads only the fields the elector decides by (holderIdentity,
// leaseDurationSeconds, renewTime) and leaves leaseTransitions at its zero value, so
// client-go's elector counts the next takeover from 0: every takeover writes
// leaseTransitions 1, and a leader that flaps every minute reads, to kubectl and to an alert
// on hand-overs, like one that took over once.
//
// Why people write it: the counter decides nothing in the election itself, and a test with a
// fresh Lease (transitions 0, then 1) cannot tell it from counting.
//
// What the correct operator does: a takeover writes the Lease's leaseTransitions + 1, a
// renewal keeps it (CONTRACT.md, "Process"); leader-failover[lease-record] leaves a released
// Lease with leaseTransitions 5 and expects 6 from the first holder.
package main

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// uncounted is the Lease lock whose Get reads leaseTransitions as 0.
type uncounted struct{ *resourcelock.LeaseLock }

func (l uncounted) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	record, raw, err := l.LeaseLock.Get(ctx)
	if err == nil {
		record.LeaderTransitions = 0
	}
	return record, raw, err
}

func init() {
	electionLock = func(lock *resourcelock.LeaseLock) resourcelock.Interface {
		return uncounted{lock}
	}
}
