// unmetered-queue-go: the controller's work queue reports no metrics (Go).
//
// Anti-pattern: the work queue is built without a name (here the controller's NewQueue
// option builds client-go's rate-limiting queue with an empty Name, which client-go gives
// no metrics), so workqueue_depth and workqueue_adds_total{name="modelservice"} never appear
// however busy the queue is: a dashboard or an alert on queue depth sees an idle controller.
//
// Why people write it: a custom NewQueue copied from an example leaves the config empty,
// and a queue without a name works exactly the same.
//
// What the correct operator does: controller-runtime names the queue after the controller,
// which registers its metrics (create-converges: the adds counted).
package main

import (
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func init() {
	// The mutant: an unnamed queue, without metrics.
	requeueQueue = func(_ string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{})
	}
}
