// list-not-notified-go: the objects the informers' first list brings reach no handler (Go).
//
// Anti-pattern: the informer fills its cache from a list at start and only the watch's events
// reach the handlers: the Create events of the initial list (IsInInitialList) are filtered
// out, so an object that already existed when the operator started sits in the cache and is
// never reconciled until something else about it changes: a ModelService created during an
// operator upgrade gets no children.
//
// Why people write it: in a test the operator starts first and every object arrives as a watch
// event; the initial list looks like mere cache warming, and a filter that keeps "only real
// creations" seems to save a burst of reconciles at every restart.
//
// What the correct operator does: a list is a source of events like the watch: every object it
// brings is an add, and the reconcile of an object with nothing to change writes nothing, so
// a restart costs reads, not writes; a ModelService that exists before the operator starts is
// reconciled at once (progressing-without-kubelet creates it first). The Python twin drops the
// adds of every list, a relist after 410 Gone included; client-go's relists are not reached by
// a seam, so this one drops the initial list's only.
package main

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

func init() {
	childWatches = func(b *ctrl.Builder) *ctrl.Builder {
		// The mutant: the initial list's Create events of every watched kind are dropped.
		return ownsChildren(b).WithEventFilter(predicate.Funcs{
			CreateFunc: func(e event.CreateEvent) bool { return !e.IsInInitialList },
		})
	}
}
