package main

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Holding watch events.
//
// Every successful watch response body is wrapped in a watchStream. A pump goroutine reads the
// upstream body as fast as the API server sends it (so a held stream never stalls its HTTP/2
// connection's flow-control window, which the operator's other requests share), cuts it into
// events, and queues them. The reverse proxy copies the response by calling Read, which hands
// out queued events one at a time, in order, but only while the stream's resource is not
// held: while it is, Read blocks and nothing of the stream, not even its end, reaches the
// client. Releasing wakes the readers and they deliver the queue in order.
//
// Event framing depends on the response's Content-Type (see framerFor): newline-delimited JSON
// objects, or 4-byte big-endian length-prefixed protobuf frames. Any other encoding (CBOR, a
// Content-Encoding) is passed on by chunk as read, and each chunk counts as one "event".

// Framing names, as reported in stats.
const (
	framingJSON     = "json-lines"
	framingProtobuf = "protobuf-length-prefixed"
	framingChunks   = "chunks"
)

// framerFor chooses how to cut a watch response into events.
func framerFor(contentType, contentEncoding string) string {
	if contentEncoding != "" && contentEncoding != "identity" {
		return framingChunks
	}
	ct := strings.ToLower(contentType)
	switch {
	case strings.Contains(ct, "protobuf"):
		return framingProtobuf
	case strings.Contains(ct, "json"):
		return framingJSON
	}
	return framingChunks
}

// nextFrame returns the length of the first complete event in buf, or 0 if buf holds none yet.
func nextFrame(framing string, buf []byte) int {
	switch framing {
	case framingJSON:
		for i, b := range buf {
			if b == '\n' {
				return i + 1
			}
		}
		return 0
	case framingProtobuf:
		if len(buf) < 4 {
			return 0
		}
		n := int(binary.BigEndian.Uint32(buf[:4]))
		if len(buf) < 4+n {
			return 0
		}
		return 4 + n
	}
	return len(buf)
}

// eventType reads the watch event's type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) from one
// frame, or "" if it cannot tell. JSON: the "type" field, which the API server writes first.
// Protobuf: field 1 (string) of metav1.WatchEvent, the first bytes after the length prefix.
func eventType(framing string, frame []byte) string {
	switch framing {
	case framingJSON:
		const key = `"type":"`
		i := strings.Index(string(frame[:min(len(frame), 64)]), key)
		if i < 0 {
			return ""
		}
		rest := frame[i+len(key):]
		for j, b := range rest {
			if b == '"' {
				return string(rest[:j])
			}
			if j > 16 {
				break
			}
		}
	case framingProtobuf:
		if len(frame) < 6 || frame[4] != 0x0a {
			return ""
		}
		n := int(frame[5]) // types are short: a one-byte varint
		if n >= 0x80 || len(frame) < 6+n {
			return ""
		}
		return string(frame[6 : 6+n])
	}
	return ""
}

type queuedEvent struct {
	data      []byte
	typ       string
	held      bool      // counted in heldTotal already
	meta      EventMeta // for the request log and coalescing
	due       time.Time // not delivered before (an event rule's delay); zero: at once
	coalesced int       // earlier events merged into this one
	received  time.Time // when the proxy read it (of a coalesced event: the earliest merged)
}

// watchStream is the body of one watch response, as the reverse proxy reads it.
type watchStream struct {
	reg       *registry
	reqID     int64 // the watch request's id in the request log
	resource  string
	namespace string
	rv        string // the resourceVersion the client asked to watch from
	framing   string
	upstream  io.ReadCloser
	cond      *sync.Cond    // on reg.mu
	st        *requestState // the watch request's (nil in tests without one)

	// guarded by reg.mu
	queue     []queuedEvent
	offset    int   // bytes of queue[0] already handed out
	done      bool  // the upstream body ended
	doneErr   error // how it ended (io.EOF normally)
	cancelled bool  // the client went away
	closed    bool
	ended     bool // POST /end-watches: end the response now, dropping what is queued
	stopAfter func() bool
	wake      *time.Timer // wakes Read when the first queued event is due
}

func (s *watchStream) pump() {
	buf := make([]byte, 32*1024)
	var pending []byte
	for {
		n, err := s.upstream.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			var frames [][]byte
			for {
				k := nextFrame(s.framing, pending)
				if k == 0 {
					break
				}
				frames = append(frames, append([]byte(nil), pending[:k]...))
				pending = pending[k:]
			}
			if len(pending) == 0 {
				pending = nil
			}
			if len(frames) > 0 {
				s.reg.enqueue(s, frames)
			}
		}
		if err != nil {
			if len(pending) > 0 { // a truncated last frame: pass it on as it is
				s.reg.enqueue(s, [][]byte{pending})
			}
			s.reg.mu.Lock()
			byUpstream := !s.cancelled && !s.ended && !errors.Is(err, context.Canceled)
			s.reg.mu.Unlock()
			if byUpstream && s.st != nil {
				s.st.upstreamEnded.Store(true)
			}
			s.reg.finish(s, err)
			return
		}
	}
}

// Read hands out the queued events in order, one event (or the part of it that fits) per
// call, while the stream's resource is not held and the first event is due.
func (s *watchStream) Read(p []byte) (int, error) {
	r := s.reg
	r.mu.Lock()
	for {
		if s.cancelled || s.closed {
			r.mu.Unlock()
			return 0, context.Canceled
		}
		if s.ended && s.offset == 0 { // a clean end, as if the API server had closed the watch
			r.mu.Unlock()
			return 0, io.EOF
		}
		// An event already begun is finished even if a hold came in meanwhile: the client
		// never sees half an event.
		if !r.holding[s.resource] || s.offset > 0 {
			if len(s.queue) > 0 {
				ev := &s.queue[0]
				if s.offset == 0 && !ev.due.IsZero() {
					if wait := time.Until(ev.due); wait > 0 {
						s.wakeIn(wait)
						s.cond.Wait()
						continue
					}
				}
				n := copy(p, ev.data[s.offset:])
				s.offset += n
				var line *EventLine
				if s.offset == len(ev.data) {
					r.stats(s.resource).Delivered++
					if r.log != nil {
						m := ev.meta
						mono := time.Now() // UTC() strips the monotonic reading Sub needs
						line = &EventLine{T: "event", ID: s.reqID, Time: mono.UTC(), Type: m.Type,
							Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, RV: m.RV, Coalesced: ev.coalesced}
						if !ev.due.IsZero() { // an event rule kept it: say for how long
							line.DelayedMs = float64(mono.Sub(ev.received).Microseconds()) / 1000
						}
					}
					s.queue[0] = queuedEvent{}
					s.queue = s.queue[1:]
					s.offset = 0
				}
				r.mu.Unlock()
				if line != nil {
					r.log.write(line)
				}
				return n, nil
			}
			if s.done {
				r.mu.Unlock()
				return 0, s.doneErr
			}
		}
		s.cond.Wait()
	}
}

// wakeIn broadcasts the stream's condition after d (the first queued event is due then).
// Caller holds reg.mu.
func (s *watchStream) wakeIn(d time.Duration) {
	if s.wake == nil {
		s.wake = time.AfterFunc(d, func() {
			s.reg.mu.Lock()
			s.cond.Broadcast()
			s.reg.mu.Unlock()
		})
		return
	}
	s.wake.Reset(d)
}

// Close ends the stream: the proxy is done with it (the client went away or the upstream
// ended and everything was delivered).
func (s *watchStream) Close() error {
	r := s.reg
	r.mu.Lock()
	if !s.closed {
		s.closed = true
		delete(r.streams, s)
		r.stats(s.resource).WatchesOpen--
		s.cond.Broadcast()
	}
	if s.wake != nil {
		s.wake.Stop()
	}
	r.mu.Unlock()
	if s.stopAfter != nil {
		s.stopAfter()
	}
	return s.upstream.Close()
}

// ResourceStats are the counters of one resource, as GET /stats reports them.
type ResourceStats struct {
	Holding      bool           `json:"holding"`        // its watch events are held now
	WatchesOpen  int            `json:"watches"`        // watch streams open now
	WatchesTotal int            `json:"watches_total"`  // watch streams opened since start
	Received     int            `json:"received"`       // events read from the API server
	Delivered    int            `json:"delivered"`      // events handed to the client
	Held         int            `json:"held"`           // events held now (received, not delivered, resource held)
	HeldTotal    int            `json:"held_total"`     // events that were ever held
	EventTypes   map[string]int `json:"event_types"`    // received events by type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR, "" unknown)
	Framings     map[string]int `json:"framings"`       // watch streams by framing (json-lines, protobuf-length-prefixed, chunks)
	ContentTypes map[string]int `json:"content_types"`  // watch streams by response Content-Type
	Requests     map[string]int `json:"requests"`       // requests by verb
	StreamsEnded int            `json:"streams_ended"`  // watch streams whose upstream ended
	EndedByProxy int            `json:"ended_by_proxy"` // watch streams ended by POST /end-watches
	Dropped      int            `json:"dropped"`        // events dropped by POST /end-watches, never delivered
	Delayed      int            `json:"delayed"`        // events an event rule delayed
	Coalesced    int            `json:"coalesced"`      // events merged into a later one by an event rule (never delivered as such)
}

// WatchError is one ERROR event of a watch stream (GET /stats "watch_errors"): the Status the
// API server put in the stream, and the watch it ended.
type WatchError struct {
	Time            time.Time `json:"time"`
	Resource        string    `json:"resource"`
	Namespace       string    `json:"namespace"`
	ResourceVersion string    `json:"resource_version"` // the watch's ?resourceVersion=
	Code            int       `json:"code"`             // the Status's code (410: Expired/Gone); 0 if unreadable
	Reason          string    `json:"reason"`
	Message         string    `json:"message"`
}

// watchErrorLimit is how many watch ERROR events GET /stats keeps.
const watchErrorLimit = 200

func newResourceStats() *ResourceStats {
	return &ResourceStats{EventTypes: map[string]int{}, Framings: map[string]int{},
		ContentTypes: map[string]int{}, Requests: map[string]int{}}
}

// registry holds the hold switches, the open watch streams and the per-resource counters.
type registry struct {
	mu        sync.Mutex
	holding   map[string]bool
	streams   map[*watchStream]struct{}
	resources map[string]*ResourceStats
	errors    []WatchError
	rules     map[string]EventRule // POST /faults/events
	log       *reqLog              // the request log (event lines); nil: none
}

func newRegistry() *registry {
	return &registry{holding: map[string]bool{}, streams: map[*watchStream]struct{}{},
		resources: map[string]*ResourceStats{}, rules: map[string]EventRule{}}
}

// stats returns the counters of resource, creating them. Caller holds mu.
func (r *registry) stats(resource string) *ResourceStats {
	st, ok := r.resources[resource]
	if !ok {
		st = newResourceStats()
		r.resources[resource] = st
	}
	return st
}

// newStream wraps a watch response body and starts pumping it. ctx is the client request's
// context: when it ends, a Read blocked on a held stream returns.
func (r *registry) newStream(ctx context.Context, reqID int64, info RequestInfo, rv, contentType,
	contentEncoding string, body io.ReadCloser) *watchStream {
	resource := info.ResourceID
	s := &watchStream{reg: r, reqID: reqID, resource: resource, namespace: info.Namespace, rv: rv,
		upstream: body, framing: framerFor(contentType, contentEncoding)}
	s.st, _ = ctx.Value(ctxKey{}).(*requestState)
	s.cond = sync.NewCond(&r.mu)
	r.mu.Lock()
	r.streams[s] = struct{}{}
	st := r.stats(resource)
	st.WatchesOpen++
	st.WatchesTotal++
	st.Framings[s.framing]++
	st.ContentTypes[contentType]++
	r.mu.Unlock()
	s.stopAfter = context.AfterFunc(ctx, func() {
		r.mu.Lock()
		s.cancelled = true
		s.cond.Broadcast()
		r.mu.Unlock()
	})
	go s.pump()
	return s
}

func (r *registry) enqueue(s *watchStream, frames [][]byte) {
	metas := make([]EventMeta, len(frames))
	for i, f := range frames { // parsed outside the lock
		metas[i] = eventMeta(s.framing, f)
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stats(s.resource)
	held := r.holding[s.resource]
	rule := r.rules[s.resource]
	for i, f := range frames {
		meta := metas[i]
		typ := meta.Type
		st.Received++
		st.EventTypes[typ]++
		if typ == "ERROR" {
			code, reason, message := watchErrorStatus(s.framing, f)
			r.errors = append(r.errors, WatchError{Time: time.Now().UTC(), Resource: s.resource,
				Namespace: s.namespace, ResourceVersion: s.rv, Code: code, Reason: reason, Message: message})
			if len(r.errors) > watchErrorLimit {
				r.errors = slices.Clone(r.errors[len(r.errors)-watchErrorLimit:])
			}
		}
		if held {
			st.HeldTotal++
		}
		if s.ended { // ended by the proxy: nothing more reaches the client
			st.Dropped++
			continue
		}
		ev := queuedEvent{data: f, typ: typ, held: held, meta: meta, received: now}
		if rule.Delay > 0 {
			ev.due = now.Add(rule.Delay)
			st.Delayed++
		}
		if rule.Coalesce && s.framing == framingJSON && meta.key() != "" {
			ev = s.coalesce(ev, st)
		}
		s.queue = append(s.queue, ev)
	}
	s.cond.Broadcast()
}

// coalesce merges ev with the undelivered event of the same object queued in s, if any: that
// one leaves the queue and ev takes its due time and, where the client never saw the object,
// its ADDED type; it returns the event to queue. A DELETED after an undelivered ADDED is not
// merged but queued behind it, so the client is told of an object it never saw before it is
// told of that object's deletion. Dropping both showed the client a world no watch shows: a
// real informer misses a short-lived object only across a relist, and a relist notifies every
// live object again (client-go's Replace), which brings the owner's reconcile; a proxy rule
// cannot play that. (Until stop 45 both were dropped, and the generator's quiet oracle failed
// an operator whose own re-created child was deleted unseen, with nothing left to tell it.)
// Merging still hides what a relist would hide: a DELETED queued for an object the client has
// and then another object's ADDED under the same name arrive as one MODIFIED, the new object.
// Caller holds reg.mu.
func (s *watchStream) coalesce(ev queuedEvent, st *ResourceStats) queuedEvent {
	key := ev.meta.key()
	for i := len(s.queue) - 1; i >= 0; i-- {
		old := s.queue[i]
		if old.meta.key() != key || (i == 0 && s.offset > 0) {
			continue
		}
		typ := ev.meta.Type
		if old.meta.Type == "ADDED" && typ == "DELETED" {
			return ev // both delivered, in order
		}
		s.queue = slices.Delete(s.queue, i, i+1)
		st.Coalesced++
		switch {
		case old.meta.Type == "ADDED":
			typ = "ADDED"
		case old.meta.Type == "DELETED" && typ == "ADDED":
			typ = "MODIFIED"
		}
		if typ != ev.meta.Type {
			if data, ok := retypeJSONEvent(ev.data, typ); ok {
				ev.data, ev.typ, ev.meta.Type = data, typ, typ
			}
		}
		if !old.due.IsZero() {
			ev.due = old.due
		}
		ev.coalesced = old.coalesced + 1
		if !old.received.IsZero() && old.received.Before(ev.received) {
			ev.received = old.received
		}
		ev.held = ev.held || old.held
		return ev
	}
	return ev
}

// setEventRules sets the rule of each resource (a zero rule removes it) and returns all rules.
func (r *registry) setEventRules(resources []string, rule EventRule) map[string]EventRule {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range resources {
		if rule.Delay <= 0 && !rule.Coalesce {
			delete(r.rules, res)
		} else {
			r.rules[res] = rule
		}
	}
	return maps.Clone(r.rules)
}

// clearEventRules removes every event rule; queued events keep the due time they were given.
func (r *registry) clearEventRules() {
	r.mu.Lock()
	clear(r.rules)
	r.mu.Unlock()
}

func (r *registry) eventRulesSnapshot() map[string]EventRule {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.rules)
}

func (r *registry) finish(s *watchStream, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if errors.Is(err, io.EOF) {
		err = io.EOF
	}
	s.done, s.doneErr = true, err
	r.stats(s.resource).StreamsEnded++
	s.cond.Broadcast()
}

// hold starts holding the watch events of resources; returns the resources held now.
func (r *registry) hold(resources []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range resources {
		r.holding[res] = true
		st := r.stats(res)
		st.Holding = true
		for s := range r.streams { // events queued but not yet read are held from now on too
			if s.resource != res {
				continue
			}
			for i := range s.queue {
				if !s.queue[i].held && !(i == 0 && s.offset > 0) {
					s.queue[i].held = true
					st.HeldTotal++
				}
			}
		}
	}
	return r.heldLocked()
}

// end ends every open watch stream of resources: each response ends cleanly (as when the API
// server closes a watch) once the event being delivered, if any, is complete; events queued
// and not delivered are dropped. The resources are no longer held, so the watches the client
// opens next flow. Returns per resource the streams ended and the events dropped.
func (r *registry) end(resources []string) (map[string]int, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ended, dropped := map[string]int{}, map[string]int{}
	for _, res := range resources {
		ended[res], dropped[res] = 0, 0
		st := r.stats(res)
		for s := range r.streams {
			if s.resource != res || s.ended {
				continue
			}
			s.ended = true
			n := len(s.queue)
			if s.offset > 0 {
				n-- // being delivered: finished, not dropped
			}
			s.queue = s.queue[:min(len(s.queue), 1)]
			if s.offset == 0 {
				s.queue = nil
			}
			ended[res]++
			dropped[res] += n
			st.EndedByProxy++
			st.Dropped += n
			s.cond.Broadcast()
		}
		delete(r.holding, res)
		st.Holding = false
	}
	return ended, dropped
}

func (r *registry) watchErrorsSnapshot() []WatchError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errors)
}

// release stops holding resources (all if empty) and wakes their streams; returns, per
// resource released, how many events it held at that moment (they are delivered next, in order).
func (r *registry) release(resources []string) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(resources) == 0 {
		for res := range r.holding {
			resources = append(resources, res)
		}
	}
	out := map[string]int{}
	for _, res := range resources {
		if !r.holding[res] {
			continue
		}
		out[res] = r.heldCountLocked(res)
		delete(r.holding, res)
		r.stats(res).Holding = false
		for s := range r.streams {
			if s.resource == res {
				s.cond.Broadcast()
			}
		}
	}
	return out
}

func (r *registry) heldCountLocked(resource string) int {
	if !r.holding[resource] {
		return 0
	}
	n := 0
	for s := range r.streams {
		if s.resource == resource {
			n += len(s.queue)
			if s.offset > 0 {
				n-- // partly delivered before the hold: not held
			}
		}
	}
	return n
}

func (r *registry) heldLocked() []string {
	out := []string{}
	for res := range r.holding {
		out = append(out, res)
	}
	slices.Sort(out)
	return out
}

// snapshot copies the counters, with Held computed now.
func (r *registry) snapshot() (map[string]ResourceStats, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]ResourceStats{}
	for res, st := range r.resources {
		c := *st
		c.Held = r.heldCountLocked(res)
		c.EventTypes = cloneMap(st.EventTypes)
		c.Framings = cloneMap(st.Framings)
		c.ContentTypes = cloneMap(st.ContentTypes)
		c.Requests = cloneMap(st.Requests)
		out[res] = c
	}
	return out, r.heldLocked()
}

// countRequest records one request of resource by verb.
func (r *registry) countRequest(resource, verb string) {
	r.mu.Lock()
	r.stats(resource).Requests[verb]++
	r.mu.Unlock()
}

func cloneMap(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
