// ignores-retry-after-go: treats a 429 or 503 that asks for a wait like any failure and retries within milliseconds (Go).
//
// Anti-pattern: the client does not read Retry-After (here a round tripper drops the header
// from every answer, so client-go's REST client never sees it): an answer 429 TooManyRequests
// or 503 ServiceUnavailable that says "ask again in R seconds" becomes an ordinary error, the
// workqueue retries the key 5 ms later, and the next request reaches an API server that asked
// for R seconds of quiet a few milliseconds after it asked.
//
// Why people write it: a client of their own (a plain HTTP client, a retry helper, a
// transport that rewrites answers) handles errors by status code alone, the workqueue's
// backoff looks like enough, and nothing shows the difference until the API server is
// overloaded, when its priority and fairness answers 429 with Retry-After to the clients it
// is shedding.
//
// What the correct operator does: it leaves the header to client-go, which waits the
// Retry-After seconds and sends the same request again, up to 10 times within the request's
// timeout (rest.Request, client-go v0.34); errors-retried[retry-after] sees the next request
// for that object no sooner than R seconds after the answer.
package main

import "net/http"

// retryAfterDropped is the mutant's round tripper: the answers of next, without Retry-After.
type retryAfterDropped struct{ next http.RoundTripper }

func (t retryAfterDropped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

func init() {
	// The mutant: every client's answers lose their Retry-After header.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return retryAfterDropped{next: rt} }
}
