// timeout-unreported-go: a write that ended at its deadline (a timeout) records no Warning (Go).
//
// Anti-pattern: the reconcile treats a timeout as noise: the write failed only because the
// API server, or whatever stands in front of it, was slow, so it returns the error for the
// work queue to retry and records nothing. A create that ended at its deadline after a 429
// asked for a longer wait leaves no trace a user can see. The twin drops, from the
// reconciler's recorder, every Warning whose message carries the context's deadline error.
//
// Why people write it: timeouts come and go, and a Warning for each looks like spam; a test
// that only waits for convergence cannot tell a reported timeout from a quiet one.
//
// What the correct operator does: a request that ends at its deadline is the write's error,
// a failed write like any other: a Warning Failed<Verb> about the ModelService, then the
// work queue's retry (CONTRACT.md, "Errors: answers that say 'not now'";
// errors-retried[retry-after-deadline]).
package main

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// quietOnTimeout is the reconciler's recorder without the Warnings of timed-out writes.
type quietOnTimeout struct {
	record.EventRecorder
}

func (q quietOnTimeout) Event(obj runtime.Object, eventtype, reason, message string) {
	if eventtype == corev1.EventTypeWarning && strings.Contains(message, context.DeadlineExceeded.Error()) {
		return // the mutant: a timeout records nothing
	}
	q.EventRecorder.Event(obj, eventtype, reason, message)
}

func init() {
	real := controllerReconciler
	controllerReconciler = func(r *ModelServiceReconciler) reconcile.Reconciler {
		if r.Recorder != nil {
			r.Recorder = quietOnTimeout{r.Recorder}
		}
		return real(r)
	}
}
