// forgets-refused-event-go: an Event the API server refused is forgotten by the recorder, so its next occurrence starts a new count at 1 (Go).
//
// Anti-pattern: the recorder counts only the Events the API server stored, so after a refused
// write (403 from an admission policy, 422) the next occurrence of the same Event is a new
// Event of count 1 instead of the count so far. The Go reference's recorder is client-go's,
// which no seam reaches, so the mutant makes the same fault where it shows, on the wire: every
// Event create is sent with count 1 and its firstTimestamp set to its lastTimestamp. client-go
// creates an Event with a count above 1 only when the patch of an earlier occurrence was
// answered 404: the earlier one was refused (or deleted, or expired), which is the case here.
//
// Why people write it: "count what was written" sounds right, and a cache that keeps what the
// API server refused looks like a leak of a failure; the refusal is rare and short, and the
// count it loses is one number in `kubectl describe`.
//
// What the correct operator does: client-go's correlator (tools/record v0.34, eventObserve)
// notes each occurrence before it is written and keeps the note when the write is refused;
// the next occurrence patches the never-stored Event, gets 404 and creates it with the count
// so far (events-recorded[refused-event]: CreatedDeployment with count 2 after one refused).
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// eventCountReset is the mutant's round tripper: Event creates (POST .../events) go out with
// count 1, as if no earlier occurrence had been noted.
type eventCountReset struct{ next http.RoundTripper }

func (t eventCountReset) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/events") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		var event map[string]any
		if json.Unmarshal(body, &event) == nil {
			event["count"] = 1
			if last, ok := event["lastTimestamp"]; ok {
				event["firstTimestamp"] = last
			}
			if out, err := json.Marshal(event); err == nil {
				body = out
			}
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Length", strconv.Itoa(len(body)))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return t.next.RoundTrip(req)
}

func init() {
	// The mutant: every client's Event creates restart their count at 1.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return eventCountReset{next: rt} }
}
