// retries-past-ten-go: sends a request again after every answer with Retry-After, with no limit on the number of retries (Go).
//
// Anti-pattern: the client's retry on Retry-After has no count: as long as the API server
// answers 429 (or a 5xx) with the header, the request is sent again, and the reconcile never
// learns that the server has been refusing it for a long time. (Here a round tripper does
// the retrying itself, below client-go's REST client and its limit of 10.)
//
// Why people write it: "the server said to retry" looks like a reason to retry for ever, and
// a test injects one refusal, not eleven.
//
// What the correct operator does: it leaves the retries to client-go, at most 10 (11
// attempts), after which the last answer is the request's error (Request.maxRetries,
// rest/request.go, v0.34), reported as a refused write; errors-retried[retry-after-exhausted]
// answers the Deployment's create 429 with Retry-After: 0 eleven times and looks for the
// Warning.
package main

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// retryAfterUnbounded is the mutant's round tripper: it resends while the answer asks it to.
type retryAfterUnbounded struct{ next http.RoundTripper }

func (t retryAfterUnbounded) RoundTrip(req *http.Request) (*http.Response, error) {
	for {
		resp, err := t.next.RoundTrip(req)
		if err != nil || resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500) {
			return resp, err
		}
		seconds, atoiErr := strconv.Atoi(resp.Header.Get("Retry-After"))
		if atoiErr != nil || (req.Body != nil && req.GetBody == nil) {
			return resp, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		timer := time.NewTimer(time.Duration(max(seconds, 0)) * time.Second)
		select {
		case <-timer.C:
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		}
		again := req.Clone(req.Context())
		if req.GetBody != nil {
			body, bodyErr := req.GetBody()
			if bodyErr != nil {
				return nil, bodyErr
			}
			again.Body = body
		}
		req = again
	}
}

func init() {
	// The mutant: every client resends a request while its answers carry Retry-After.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return retryAfterUnbounded{next: rt} }
}
