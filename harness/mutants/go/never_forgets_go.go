// never-forgets-go: a key's backoff is never reset by a success (Go).
//
// Anti-pattern: the work queue's rate limiter keeps counting a key's failures for the life of
// the process (here the default controller rate limiter wrapped so that Forget does nothing):
// a key that once failed ten times in a row and then succeeded waits 5 ms * 2^10 = 5.12 s
// after its next failure, one that failed fifteen times waits minutes, and the delays only
// grow.
//
// Why people write it: the retry works without Forget, and the counter looks like state the
// limiter owns; controller-runtime calls Forget for you, so a custom limiter that wraps
// another and forwards When but not Forget drops it without a test noticing, until a
// long-lived key is slow to heal in production.
//
// What the correct operator does: controller-runtime's reconcileHandler calls Forget after
// every reconcile that succeeded, and the limiter resets the key (errors-retried[server-error]:
// after ten failures and a success, the next failure's retry within a second).
package main

import (
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// forgetsNothing is the mutant's limiter: the default one, whose Forget is dropped.
type forgetsNothing struct {
	workqueue.TypedRateLimiter[reconcile.Request]
}

func (forgetsNothing) Forget(reconcile.Request) {}

func init() {
	// The mutant: a success never resets a key's backoff.
	requeueRateLimiter = func() workqueue.TypedRateLimiter[reconcile.Request] {
		return forgetsNothing{defaultRateLimiter()}
	}
}
