// event-uuid-name-go: every Event is named by a random UUID, not after the object it is about (Go).
//
// Anti-pattern: the recorder names each new Event with a random UUID, so the Event's name
// says nothing about its object or when it was first seen: `kubectl get events` sorted by
// name is noise, and an Event cannot be found from the object's name. The Go reference's
// recorder is client-go's, which no seam reaches, so the mutant makes the fault on the wire:
// every Event create goes out with its metadata.name replaced by a UUID (client-go then
// patches the repeats under the name the API server stored).
//
// Why people write it: a UUID is the obvious unique name, and client-go's own fallback is one
// (util.GenerateEventName returns a UUID when <name>.<hex> is not a valid object name).
//
// What the correct operator does: client-go's recorder (tools/record v0.34, generateEvent)
// names an Event <involved object's name>.<unix nanoseconds, hex> (CONTRACT.md, "Events"), so
// events-recorded reads each Event's name against its involvedObject.
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/uuid"
)

// eventUUIDName is the mutant's round tripper: Event creates (POST .../events) go out named
// by a UUID.
type eventUUIDName struct{ next http.RoundTripper }

func (t eventUUIDName) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/events") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		var event map[string]any
		if json.Unmarshal(body, &event) == nil {
			if meta, ok := event["metadata"].(map[string]any); ok {
				meta["name"] = string(uuid.NewUUID())
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
	// The mutant: every Event create named by a UUID.
	apiTransport = func(rt http.RoundTripper) http.RoundTripper { return eventUUIDName{next: rt} }
}
