// watch-ignores-retry-after-go: honours Retry-After on every request but a watch, whose refusal goes back to the informer's backoff (Go).
//
// Anti-pattern: the client waits for Retry-After on its ordinary requests, but a watch's
// refusal is handed straight to the informer, which retries after its own backoff (under
// two seconds), before the API server asked it to. (Here a round tripper drops the header
// from the answers to watch requests, so client-go's REST client never sees it there.)
//
// Why people write it: the retry lives in the request helper and the watch helper is written
// apart, for streaming; a test injects Retry-After on writes only.
//
// What the correct operator does: it leaves the header to client-go, whose Request.Watch
// waits for it and sends the watch again (rest/request.go, v0.34);
// watch-recovers[watch-retry-after] answers one watch start 429 with Retry-After: 3 and sees
// the next watch no sooner than 3 s after.
package main

import "net/http"

// watchRetryAfterDropped is the mutant's round tripper: watch answers lose Retry-After.
type watchRetryAfterDropped struct{ next http.RoundTripper }

func (t watchRetryAfterDropped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil && req.URL.Query().Get("watch") == "true" {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

func init() {
	// The mutant: every client's watch answers lose their Retry-After header.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return watchRetryAfterDropped{next: rt} }
}
