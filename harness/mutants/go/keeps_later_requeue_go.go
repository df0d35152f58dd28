// keeps-later-requeue-go: a failure's retry waits for a pending RequeueAfter (Go).
//
// Anti-pattern: the work queue keeps the later of two ready times of a key instead of the
// earlier (here controller-runtime's queue wrapped so that an AddAfter, or a rate-limited
// add, earlier than the key's pending time is dropped): a key whose last reconcile asked for
// RequeueAfter 5 s (a ChildConflict) and that fails meanwhile is retried at the pending time,
// up to 5 s late, instead of after its 5 ms backoff.
//
// Why people write it: "the key is already scheduled" looks like enough, and a hand-made
// delaying queue that drops a second add of a waiting key passes every test that never mixes
// a RequeueAfter with a failure.
//
// What the correct operator does: client-go's delaying queue keeps whichever ready time
// comes first (errors-retried[requeue-pending]: the retry within 2.5 s of the 500).
package main

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// keepsLater is the mutant's queue: controller-runtime's default one, whose adds earlier
// than a key's pending ready time are dropped.
type keepsLater struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	limiter workqueue.TypedRateLimiter[reconcile.Request]
	mu      sync.Mutex
	readyAt map[reconcile.Request]time.Time
}

// AddAfter drops item when its pending ready time is later than now + d.
func (q *keepsLater) AddAfter(item reconcile.Request, d time.Duration) {
	q.mu.Lock()
	now := time.Now()
	at := now.Add(d)
	if pending, ok := q.readyAt[item]; ok && pending.After(now) && pending.After(at) {
		q.mu.Unlock()
		return
	}
	q.readyAt[item] = at
	q.mu.Unlock()
	q.TypedRateLimitingInterface.AddAfter(item, d)
}

// AddRateLimited goes through AddAfter, as client-go's own does.
func (q *keepsLater) AddRateLimited(item reconcile.Request) {
	q.AddAfter(item, q.limiter.When(item))
}

func init() {
	// The mutant: the later of two ready times wins.
	requeueQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return &keepsLater{
			TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name}),
			limiter:                    rl,
			readyAt:                    map[reconcile.Request]time.Time{},
		}
	}
}
