// relist-ignores-new-go: a relist refreshes the objects the cache knew and drops the new ones (Go).
//
// Anti-pattern: after a watch ends with 410 Gone (its resourceVersion compacted away), the
// informer lists again, but merges the list into its cache as "an update of what I had": the
// objects it knew are refreshed (changes notified), the ones it knew and the list lacks are
// deleted, and an object it never saw, created while it could not watch, is left out. Nothing
// ever brings it back: the watch resumes from the relist's resourceVersion, after its creation,
// so a ModelService created during the outage gets no children until someone edits it.
//
// Why people write it: the relist is written as a repair of the cache (find what changed, find
// what vanished), tested by changing and deleting known objects; an object born in the gap is
// the case nobody stages.
//
// What the correct operator does: a relist replaces the cache with the list, and every object
// in it that the cache lacked is an add, notified like a watch's ADDED (client-go's
// DeltaFIFO.Replace). Killed by watch-recovers[compaction-410], which creates a ModelService
// while the operator's watches are held and compacts etcd before ending them. client-go's
// reflector is not reached by a seam: this mutant wraps each informer's ListerWatcher so that
// every list after the first returns only the objects the informer's store holds.
package main

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// knownOnlyLister is a ListerWatcher whose lists after the first keep only the objects store
// holds (the mutant); watches pass through.
type knownOnlyLister struct {
	toolscache.ListerWatcher
	mu     sync.Mutex
	listed bool
	store  func() toolscache.Store
}

func (l *knownOnlyLister) List(options metav1.ListOptions) (runtime.Object, error) {
	list, err := l.ListerWatcher.List(options)
	l.mu.Lock()
	relist := l.listed
	l.listed = true
	l.mu.Unlock()
	if err != nil || !relist {
		return list, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return list, nil
	}
	store := l.store()
	kept := items[:0]
	for _, item := range items {
		key, kerr := toolscache.DeletionHandlingMetaNamespaceKeyFunc(item)
		if kerr != nil {
			continue
		}
		if _, ok, _ := store.GetByKey(key); ok {
			kept = append(kept, item)
		}
	}
	if err := meta.SetList(list, kept); err != nil {
		return list, nil
	}
	return list, nil
}

func init() {
	managerCacheOptions = func(namespace string) cache.Options {
		opts := cacheOptions(namespace)
		opts.NewInformer = func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
			indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			wrapped := &knownOnlyLister{ListerWatcher: lw}
			informer := toolscache.NewSharedIndexInformer(wrapped, obj, resync, indexers)
			wrapped.store = informer.GetStore
			return informer
		}
		return opts
	}
}
