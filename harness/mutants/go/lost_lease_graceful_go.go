// lost-lease-graceful-go: a leader that lost its Lease stops as on SIGTERM, giving its workers
// the grace period (Go).
//
// Anti-pattern: the stop after a lost Lease is the stop after a signal: the workers get the
// graceful-shutdown period (30 s, controller-runtime's default) to finish what they are doing
// before the process exits. Meanwhile another instance holds the Lease and writes, and the old
// leader's reconciles in flight write too: the split brain leader election exists to prevent.
//
// Why people write it: one shutdown path is simpler than two, and "let the workers finish" is
// right for a SIGTERM, where the Lease is still ours until we release it.
//
// What the correct operator does: on a lost Lease it skips the graceful shutdown and exits
// at once with code 1 (controller-runtime sets the shutdown timeout to 0: "leader election
// lost"), whatever its workers are doing (leader-failover[lost-while-busy]). (Go's manager
// cancels the reconciles' context when it stops, so this twin breaks the exit itself: main
// waits out the grace period before it exits.)
package main

import "time"

func init() {
	// The mutant: the grace period of a SIGTERM, on a lost Lease too.
	managerFailed = func(err error) {
		time.Sleep(30 * time.Second)
		exitAfterManagerError(err)
	}
}
