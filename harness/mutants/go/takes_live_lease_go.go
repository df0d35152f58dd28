// takes-live-lease-go: a standby takes the Lease while its holder still renews it (Go).
//
// Anti-pattern: the standby judges the Lease by what it read last time rather than by whether
// it changed since: here the lock it reads through reports a Lease another instance holds as
// held by nobody, so client-go's elector takes it at its next retry, and the old leader, whose
// renewal then meets a 409, reads it and takes it back. The Lease changes hands every retry
// period, and two instances reconcile in turn.
//
// Why people write it: the expiry test is written against a clock or a record the standby
// keeps for itself, and with one instance, or a standby started after the leader died, every
// Lease it reads is one it may take.
//
// What the correct operator does: a standby takes the Lease only when it has seen no renewal
// for a lease duration (CONTRACT.md, "Process"); leader-failover reads the Lease before the
// kill: same holder, same leaseTransitions.
package main

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// freeLooking is the Lease lock whose Get reports another holder's Lease as held by nobody.
type freeLooking struct{ *resourcelock.LeaseLock }

func (l freeLooking) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	record, raw, err := l.LeaseLock.Get(ctx)
	if err == nil && record.HolderIdentity != l.Identity() {
		record.HolderIdentity = ""
	}
	return record, raw, err
}

func init() {
	electionLock = func(lock *resourcelock.LeaseLock) resourcelock.Interface {
		return freeLooking{lock}
	}
}
