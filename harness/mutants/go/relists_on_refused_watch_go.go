// relists-on-refused-watch-go: takes every refused watch start for a 410 Gone and relists (Go).
//
// Anti-pattern: the informer answers any error at a watch's start with a relist, as if the
// resourceVersion it asked for were gone. A 429 TooManyRequests from an overloaded API server
// is then answered with a LIST, the most expensive request an informer makes, exactly when
// the server asked for less. (Here a round tripper turns a watch's 429 into 410 Expired, so
// client-go's reflector relists.)
//
// Why people write it: a relist always works, and "when in doubt, start over" looks safe; a
// test that refuses a watch only with 410 (or never) cannot tell.
//
// What the correct operator does: it leaves the watch to client-go's reflector, which relists
// only when the resourceVersion is gone and retries the watch after a 429 from where it was
// (isWatchErrorRetriable); watch-recovers[watch-refused] refuses one watch start 429 and wants
// no list before the next watch.
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// watchRefusalAsGone is the mutant's round tripper: a watch's 429 answered as 410 Expired.
type watchRefusalAsGone struct{ next http.RoundTripper }

func (t watchRefusalAsGone) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	body, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": "too old resource version (relists-on-refused-watch-go)",
		"reason": "Expired", "code": http.StatusGone})
	resp.StatusCode, resp.Status = http.StatusGone, "410 Gone"
	resp.Header.Del("Retry-After")
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, err
}

func init() {
	// The mutant: every client's refused watch starts look like a compacted resourceVersion.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return watchRefusalAsGone{next: rt} }
}
