// stuck-after-moved-requeue-go: once a key was moved earlier, nothing due after its old time
// is ever added again (Go).
//
// Anti-pattern: a delaying queue whose heap keeps a stale entry when a key is moved earlier,
// and whose promotion loop stops at it instead of skipping it (here controller-runtime's queue
// wrapped so that, once an AddAfter moved a key ahead of its pending time, every later
// AddAfter due after that old time is dropped): after a failure during a ChildConflict, the
// conflict's 5 s requeue never fires again, and nothing notices the foreign child's removal.
//
// Why people write it: a `break` where a `continue` belongs in the loop that pops due items
// passes every test in which no key is ever moved earlier.
//
// What the correct operator does: client-go's delaying queue skips a moved key's old entry
// (errors-retried[requeue-pending]: converged after the foreign Deployment is deleted).
package main

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// stuckAfterMoved is the mutant's queue: controller-runtime's default one, stuck at the
// first stale entry.
type stuckAfterMoved struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	limiter workqueue.TypedRateLimiter[reconcile.Request]
	mu      sync.Mutex
	readyAt map[reconcile.Request]time.Time
	// stale is the old ready time of the first key moved earlier (zero: none yet).
	stale time.Time
}

// AddAfter drops item when it is due after a stale entry; records a stale entry when it
// moves a key ahead of its pending time.
func (q *stuckAfterMoved) AddAfter(item reconcile.Request, d time.Duration) {
	q.mu.Lock()
	now := time.Now()
	at := now.Add(d)
	if !q.stale.IsZero() && at.After(q.stale) {
		q.mu.Unlock()
		return
	}
	if pending, ok := q.readyAt[item]; ok && pending.After(at) && q.stale.IsZero() {
		q.stale = pending
	}
	q.readyAt[item] = at
	q.mu.Unlock()
	q.TypedRateLimitingInterface.AddAfter(item, d)
}

// AddRateLimited goes through AddAfter, as client-go's own does.
func (q *stuckAfterMoved) AddRateLimited(item reconcile.Request) {
	q.AddAfter(item, q.limiter.When(item))
}

func init() {
	// The mutant: the promotion stops at a moved key's old entry.
	requeueQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return &stuckAfterMoved{
			TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name}),
			limiter:                    rl,
			readyAt:                    map[reconcile.Request]time.Time{},
		}
	}
}
