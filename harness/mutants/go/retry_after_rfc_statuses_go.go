// retry-after-rfc-statuses-go: honours Retry-After on 429 and 503 only, so a 500 (or 502, 504) that asks for a wait goes back to the workqueue (Go).
//
// Anti-pattern: the client reads Retry-After only on the two statuses RFC 9110 names for it
// (429 Too Many Requests, 503 Service Unavailable). Any other 5xx with the header becomes an
// ordinary error: the workqueue retries it 5 ms later, against a server that asked for
// seconds of quiet. (Here a round tripper drops the header from every other answer, so
// client-go's REST client never sees it there.)
//
// Why people write it: the RFC's list looks like the whole rule, and the statuses a test
// injects are 429 and 503.
//
// What the correct operator does: it leaves the header to client-go, whose checkWait
// (rest/with_retry.go, v0.34) waits for it on 429 and on any status of 500 or above;
// errors-retried[retry-after] answers the finalizer update 500 with Retry-After: 2 and sees
// the next update no sooner than 2 s after.
package main

import "net/http"

// retryAfterRFCOnly is the mutant's round tripper: Retry-After kept on 429 and 503 only.
type retryAfterRFCOnly struct{ next http.RoundTripper }

func (t retryAfterRFCOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

func init() {
	// The mutant: Retry-After survives on 429 and 503 answers only.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return retryAfterRFCOnly{next: rt} }
}
