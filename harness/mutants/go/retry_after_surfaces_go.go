// retry-after-surfaces-go: waits the Retry-After an answer asks for, then hands the answer to the reconcile instead of sending the request again (Go).
//
// Anti-pattern: the client honours Retry-After only as a pause: after the wait it returns the
// 429 or 5xx it got, so the reconcile sees a refused write (a Warning Event, a Failed
// condition), and the workqueue sends a new request. The API server is asked again no sooner
// than it asked, yet the user is told of a refusal that never was. (Here a round tripper
// waits the seconds itself, under the request's context, and then drops the header, so
// client-go's REST client returns the answer as the request's error.)
//
// Why people write it: a retry helper that sleeps before returning the error looks like it
// honours the header, and a check that only times the next request cannot tell it from a
// real retry.
//
// What the correct operator does: it leaves the header to client-go, which after the wait
// sends the same request again, up to 10 times within the request's timeout (rest.Request,
// client-go v0.34), and the reconcile sees only the answer to that;
// errors-retried[retry-after] finds no Warning Event about the ModelService.
package main

import (
	"net/http"
	"strconv"
	"time"
)

// retryAfterSurfaced is the mutant's round tripper: it waits out an answer's Retry-After and
// hands the answer on without it.
type retryAfterSurfaced struct{ next http.RoundTripper }

func (t retryAfterSurfaced) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500) {
		return resp, err
	}
	seconds, atoiErr := strconv.Atoi(resp.Header.Get("Retry-After"))
	if atoiErr != nil {
		return resp, err
	}
	timer := time.NewTimer(time.Duration(max(seconds, 0)) * time.Second)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-req.Context().Done():
	}
	resp.Header.Del("Retry-After")
	return resp, err
}

func init() {
	// The mutant: every client's answers with Retry-After are waited for, then returned.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return retryAfterSurfaced{next: rt} }
}
