// deaf-while-waiting-crd-go: waits for its CRD in a loop that does not listen for SIGTERM (Go).
//
// Anti-pattern: the wait for the CRD sleeps between its attempts with a plain sleep and loops
// until the CRD is served, looking at nothing else; the stop signal is wired to the manager
// that starts after it. While the CRD is missing, SIGTERM changes nothing: the process stays
// until the kubelet SIGKILLs it after the grace period, on every rollout and every delete.
//
// Why people write it: the wait is added in front of a startup that already handles signals,
// and a sleep is the obvious way to back off; in a test the CRD is there, so the loop runs
// once.
//
// What the correct operator does: every wait during startup also ends on the stop signal (Go:
// a select on the context and the timer; Python: the stop event's wait); nothing has started
// yet, so the process exits 0 at once.
package main

import (
	"context"
	"time"

	"k8s.io/client-go/discovery"
)

func init() {
	// The mutant: ask, sleep, ask again; the context is never looked at.
	crdWait = func(_ context.Context, dc discovery.DiscoveryInterface) error {
		for attempt := 0; ; attempt++ {
			if served, _ := crdServed(dc); served {
				return nil
			}
			time.Sleep(crdRetryDelay(attempt))
		}
	}
}
