// hot-rewatch-go: sends a refused watch again at once, never backing off (Go).
//
// Anti-pattern: a refused watch start is sent again without a pause (here a round tripper
// that, when a watch request is answered 403, sends it again at once, three more times, before
// the reflector sees the answer): a watch the API server refuses comes back many times a
// second per resource for as long as the refusal lasts, each one authorized, audited and
// logged by an API server every other client shares.
//
// Why people write it: a retrying transport (or a watch helper of one's own) that retries
// every failed request at once looks harmless, since most failures are a dropped connection
// that the next attempt fixes; a refusal only a person can lift does not happen in a demo.
//
// What the correct operator does: it leaves the retry of a failed list or watch to client-go's
// reflector, which waits 0.8 s after the first failure in a row, doubling up to 30 s
// (rbac-least-privilege[watch-refused] sees each refused watch of a resource come no sooner
// than 0.8 s, 1.6 s, 3.2 s after the one before).
package main

import (
	"io"
	"net/http"
)

// rewatchAtOnce is the mutant's round tripper: a watch answered 403 is sent again at once.
type rewatchAtOnce struct{ next http.RoundTripper }

func (t rewatchAtOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	watch := req.URL.Query().Get("watch")
	for again := 0; again < 3 && err == nil && resp.StatusCode == http.StatusForbidden &&
		(watch == "true" || watch == "1"); again++ {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		resp, err = t.next.RoundTrip(req.Clone(req.Context()))
	}
	return resp, err
}

func init() {
	// The mutant: every client's refused watches are sent again at once.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return rewatchAtOnce{next: rt} }
}
