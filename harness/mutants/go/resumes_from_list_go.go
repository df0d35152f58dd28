// resumes-from-list-go: every watch resumes from the first list's resourceVersion (Go).
//
// Anti-pattern: the watch is resumed from the version the informer listed at, never moved on
// with the watch's events (here a round tripper remembers each resource's first watch, which
// starts at the first list's resourceVersion, and sends every later watch of that resource
// from the same version): a watch that broke resumes from the list, so the API server sends
// again every change since then, and once that version is compacted away the resume is
// answered 410 and the informer relists the whole resource.
//
// Why people write it: resuming from the list looks safe (nothing is missed, a
// level-triggered reconcile does not mind seeing a change twice), and on a quiet test cluster
// the replay is a handful of events.
//
// What the correct operator does: it leaves the watch to client-go's reflector, which resumes
// from the last resourceVersion it saw, bookmarks included (setLastSyncResourceVersion on
// every event), or relists (watch-recovers[connection-cut]: each resource's first watch after
// the cut asks for a version no older than the last event it had delivered).
package main

import (
	"net/http"
	"sync"
)

// firstVersionWatches is the mutant's round tripper: each path's watches all start at the
// resourceVersion of its first watch.
type firstVersionWatches struct {
	next  http.RoundTripper
	mu    sync.Mutex
	first map[string]string
}

func (t *firstVersionWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	query := req.URL.Query()
	if watch := query.Get("watch"); watch == "true" || watch == "1" {
		t.mu.Lock()
		rv, seen := t.first[req.URL.Path]
		if !seen {
			t.first[req.URL.Path] = query.Get("resourceVersion")
		}
		t.mu.Unlock()
		if seen {
			req = req.Clone(req.Context())
			query.Set("resourceVersion", rv)
			req.URL.RawQuery = query.Encode()
		}
	}
	return t.next.RoundTrip(req)
}

func init() {
	// The mutant: every client's watches resume from the resource's first version.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper {
		return &firstVersionWatches{next: rt, first: map[string]string{}}
	}
}
