// waits-past-deadline-go: waits out a Retry-After whole, even past the request's timeout (Go).
//
// Anti-pattern: the client's wait for a Retry-After knows nothing of the request's deadline:
// an answer asking for more seconds than the request has left holds the worker for all of
// them, past REQUEST_TIMEOUT_SECONDS, and only then does the request end. (Here a round
// tripper sleeps the Retry-After before handing the answer on, deaf to the request's context;
// client-go then finds the deadline passed and returns.)
//
// Why people write it: the wait and the request's timeout are written in two places (a retry
// loop around a call that has its own timeout), and a Retry-After longer than the timeout
// never comes in a test.
//
// What the correct operator does: it leaves the wait to client-go, which waits under the
// request's context, whose deadline is the client's Timeout, and ends the request there
// (rest.Request, v0.34); errors-retried[retry-after-deadline] sees the next request for the
// object between 3 s (the timeout) and 7 s (the Retry-After) after the refused one.
package main

import (
	"net/http"
	"strconv"
	"time"
)

// retryAfterSlept is the mutant's round tripper: an answer's Retry-After slept whole, first.
type retryAfterSlept struct{ next http.RoundTripper }

func (t retryAfterSlept) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500) {
		return resp, err
	}
	if seconds, atoiErr := strconv.Atoi(resp.Header.Get("Retry-After")); atoiErr == nil && seconds > 0 {
		time.Sleep(time.Duration(seconds) * time.Second) // the mutant: no deadline, no context
	}
	return resp, err
}

func init() {
	// The mutant: every client sleeps an answer's whole Retry-After before reading it.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return retryAfterSlept{next: rt} }
}
