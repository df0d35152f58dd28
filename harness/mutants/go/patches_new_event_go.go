// patches-new-event-go: the recorder tries every Event as a patch first, and creates it only
// when the patch is answered 404: two requests for each new Event (Go).
//
// Anti-pattern: "update, and create if missing" as the one write path of the recorder. It
// works (the 404 leads to the create), but every new Event costs a PATCH the API server must
// answer 404 before the POST that stores it: twice the requests, and a 404 in the audit log
// and the API server's metrics for every Event. The Go reference's recorder is client-go's,
// which no seam reaches, so the mutant makes the fault on the wire: before each Event create
// (POST .../events) it sends a strategic merge PATCH of the Event's name, then the create.
//
// Why people write it: one code path for new and repeated Events looks simpler than telling
// them apart, and the 404 fallback is needed anyway for a repeat whose Event is gone.
//
// What the correct operator does: client-go's recordEvent (tools/record v0.34) patches only an
// Event whose count is above 1 (a repeat the correlator counted) and creates a new one
// (count 1) at once (CONTRACT.md, "Events"), so events-recorded[burst] counts one patch
// answered 404 in the audit log, the deleted Event's.
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// patchBeforeCreate is the mutant's round tripper: each Event create is preceded by a PATCH
// of the same name.
type patchBeforeCreate struct{ next http.RoundTripper }

func (t patchBeforeCreate) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/events") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		var event struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(body, &event) == nil && event.Metadata.Name != "" {
			patch := []byte(`{"count":1}`)
			pr := req.Clone(req.Context())
			pr.Method = http.MethodPatch
			pr.URL.Path = req.URL.Path + "/" + event.Metadata.Name
			pr.Body = io.NopCloser(bytes.NewReader(patch))
			pr.ContentLength = int64(len(patch))
			pr.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(patch)), nil }
			pr.Header.Set("Content-Type", "application/strategic-merge-patch+json")
			pr.Header.Del("Content-Length")
			if resp, err := t.next.RoundTrip(pr); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return t.next.RoundTrip(req)
}

func init() {
	// The mutant: every new Event patched before it is created.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return patchBeforeCreate{next: rt} }
}
