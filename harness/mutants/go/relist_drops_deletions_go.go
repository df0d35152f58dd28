// relist-drops-deletions-go: a relist's deletions reach no event handler (Go).
//
// Anti-pattern: an object that disappeared while the watch was down is dropped from the cache
// by the relist, but nobody is told (here every informer's handlers are wrapped so that an
// OnDelete carrying client-go's tombstone, cache.DeletedFinalStateUnknown, which is how a
// relist reports an object it no longer lists, is ignored): the owner of a child deleted
// during a watch outage is never enqueued for it, and the child is not recreated until
// something else about the owner changes.
//
// Why people write it: a handler that type-asserts OnDelete's argument to the object's type
// and returns when the assertion fails looks tidy, and a tombstone only ever arrives after a
// watch outage long enough to need a relist, which no demo has.
//
// What the correct operator does: controller-runtime's event handler unwraps the tombstone and
// hands on the last known object, whose controller ownerReference names the owner to enqueue
// (watch-recovers[compaction-410]: the Service watch expires alone while Service web is
// deleted, and only that relist's deletion can bring the repair).
package main

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// tombstonesDropped is the mutant's handler: the wrapped one, deaf to tombstones.
type tombstonesDropped struct {
	toolscache.ResourceEventHandler
}

func (h tombstonesDropped) OnDelete(obj interface{}) {
	if _, tombstone := obj.(toolscache.DeletedFinalStateUnknown); tombstone {
		return
	}
	h.ResourceEventHandler.OnDelete(obj)
}

// tombstoneDeafInformer is the mutant's informer: every handler added is tombstonesDropped.
type tombstoneDeafInformer struct{ toolscache.SharedIndexInformer }

func (i tombstoneDeafInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandler(tombstonesDropped{h})
}

func (i tombstoneDeafInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, d time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(tombstonesDropped{h}, d)
}

func (i tombstoneDeafInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, o toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithOptions(tombstonesDropped{h}, o)
}

func init() {
	// The mutant: the informers' handlers never hear a relist's deletions.
	managerCacheOptions = func(namespace string) cache.Options {
		opts := cacheOptions(namespace)
		opts.NewInformer = func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
			indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			return tombstoneDeafInformer{toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)}
		}
		return opts
	}
}
