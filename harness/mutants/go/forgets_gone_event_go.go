// forgets-gone-event-go: a repeat whose Event is gone (deleted, or expired after the API
// server's event TTL) is not created again: the occurrence is lost (Go).
//
// Anti-pattern: the recorder treats a repeat as a patch and nothing else, so a ModelService
// whose Event an admin deleted, or whose Event the API server expired after an hour, shows
// nothing more of that kind in `kubectl describe` for as long as the process lives. The Go
// reference's recorder is client-go's, which no seam reaches, so the mutant makes the fault
// on the wire: an Event create with a count above 1 (client-go sends one only after the patch
// of a repeat was answered 404) goes out as a dry run (?dryRun=All), which the API server
// answers as if it had stored it, and stores nothing.
//
// Why people write it: "a repeat updates the Event we made" reads as complete, and the Event
// going away under the recorder is rare: one hour of event TTL is longer than most tests.
//
// What the correct operator does: client-go's recordEvent (tools/record v0.34) follows a patch
// answered 404 with a create of the Event, under the same name with the count so far and the
// first occurrence's firstTimestamp (CONTRACT.md, "Events"), so events-recorded[burst] sees
// the deleted UpdatedDeployment back with count 2.
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// repeatCreateDryRun is the mutant's round tripper: an Event create with a count above 1 goes
// out as a dry run.
type repeatCreateDryRun struct{ next http.RoundTripper }

func (t repeatCreateDryRun) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/events") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		var event struct {
			Count int `json:"count"`
		}
		req = req.Clone(req.Context())
		if json.Unmarshal(body, &event) == nil && event.Count > 1 {
			q := req.URL.Query()
			q.Set("dryRun", "All")
			req.URL.RawQuery = q.Encode()
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return t.next.RoundTrip(req)
}

func init() {
	// The mutant: a repeat's Event, once gone, is never created again.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return repeatCreateDryRun{next: rt} }
}
