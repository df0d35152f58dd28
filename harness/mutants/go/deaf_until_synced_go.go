// deaf-until-synced-go: a SIGTERM is not heeded until the informer caches have synced (Go).
//
// Anti-pattern: main hands the signal to the manager and waits for mgr.Start to return, as
// every controller-runtime example does. controller-runtime v0.22's manager waits for its
// caches before it starts anything, and goes on waiting after its context is cancelled, so
// while a list is refused (a RoleBinding in the wrong namespace, a CRD not installed yet) the
// process ignores SIGTERM until the kubelet SIGKILLs it after the grace period, on every
// rollout and every delete.
//
// Why people write it: `if err := mgr.Start(ctx); err != nil` is the whole of a generated
// main; on the happy path the caches sync in a second and the signal arrives later.
//
// What the correct operator does: once signalled, it gives the manager a moment to show it
// is past its cache wait (pastCacheWait); if it is not, nothing has started (no worker, no
// Lease), so the process exits 0 at once. Python twin: deaf-until-synced.
package main

import "sync/atomic"

func init() {
	// The mutant: wait for the manager, however long its cache wait lasts.
	cacheWaitEnded = func(_ *atomic.Bool, started <-chan error, err *error) bool {
		*err = <-started
		return true
	}
}
