// no-backoff-go: retries a failing reconcile every 100 ms, never backing off (Go).
//
// Anti-pattern: the controller's workqueue is given a rate limiter with a fixed short delay
// (here an exponential one whose base and cap are both 100 ms), so a key whose reconcile keeps
// failing comes back ten times a second for as long as the failure lasts. A write the API
// server refuses for a reason that waiting does not fix (a ResourceQuota, a webhook, a missing
// right) becomes a steady stream of refused requests, each with its Warning Event.
//
// Why people write it: the default backoff makes a fixed fault look slow to heal in a demo
// (the tenth retry waits seconds, the fifteenth minutes), and "retry fast, it is only a
// request" feels harmless; the cost shows only when many objects fail at once against a
// shared API server, which also serves everyone else.
//
// What the correct operator does: it returns the error and lets the queue back off: client-go's
// default controller rate limiter, 5 ms doubling per failure of that key up to 1000 s, so the
// retries of a persistent refusal thin out to a few per minute within a minute (events-recorded
// bounds the refused creates by the time they span; errors-retried[server-error] sees each
// retry after a 5xx come too early from the sixth failure on, when the doubling passes 100 ms).
package main

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// retryEvery is the mutant's fixed retry delay.
const retryEvery = 100 * time.Millisecond

func init() {
	// The mutant: a failed key is retried after 100 ms, every time.
	requeueRateLimiter = func() workqueue.TypedRateLimiter[reconcile.Request] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](retryEvery, retryEvery)
	}
}
