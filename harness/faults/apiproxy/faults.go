package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Scripted perturbations at the write boundary and in the watch streams.
//
// Write faults (POST /faults/write) each count the writes (create, update, patch, delete,
// deletecollection) of their resources from the moment they are armed, and act on the nth:
//
//   - "status": answer it with an HTTP status (409 Conflict, 429 TooManyRequests with
//     Retry-After, 500 InternalError, 503 ServiceUnavailable, ...) as a Kubernetes Status,
//     without forwarding it: the API server never sees it. Its details name the object, or
//     with "bare": true it has none (as the API server's own 503 from
//     apierrors.NewServiceUnavailable); "message" and "causes" (details.causes) word it as
//     given, as an admission webhook's own answer would be. "retry_after_header" sends the
//     Retry-After header's value as given ("0", an HTTP-date); "page" answers a text/html page
//     instead of a Status (a load balancer's or a proxy's 502). With "watch": true a status
//     fault counts the watch requests of its resources instead of the writes, and refuses
//     the nth watch start with its answer.
//   - "crash-withheld": forward it, and once the API server has answered, freeze (every later
//     request of the client waits) and report the crash (GET /faults/crash); the response is
//     never delivered. The harness SIGKILLs the operator and acks (POST /faults/crash/ack):
//     the write happened, the operator never learned.
//   - "crash-delivered": the same, but the response is delivered first; the operator learned
//     of the write and died before it could make another request.
//
//   - "hold-answer": forward it, and once the API server has answered, keep the answer back
//     (the client waits, its other requests pass) and report it (GET /faults/answer) until
//     the harness releases it (POST /faults/answer/release) or answerHoldLimit passes; then
//     deliver it as the API server gave it. The harness changes the world in between: the
//     write happened, and its answer arrives after whatever the harness did meanwhile.
//
// The proxy cannot kill the operator (it may not even run on this machine): it makes the
// moment exact by freezing the connection until the harness has done it.
//
// Event rules (POST /faults/events) delay each watch event of a resource by a fixed time
// from its arrival (a stale view), and optionally coalesce: an event for an object that still
// has an undelivered event queued replaces it, so only the last state arrives (ADDED then
// MODIFIED arrives as ADDED, DELETED then ADDED as MODIFIED; ADDED then DELETED both arrive,
// so the client is never kept from an object's deletion: watchStream.coalesce).
// Coalescing rewrites JSON events only; protobuf events are delayed but never merged.

// Write fault actions.
const (
	actionStatus         = "status"
	actionCrashWithheld  = "crash-withheld"
	actionCrashDelivered = "crash-delivered"
	actionHoldAnswer     = "hold-answer"
)

// answerHoldLimit bounds how long a hold-answer write's answer is kept back when the harness
// never releases it (a check that failed half-way): then it is delivered anyway.
const answerHoldLimit = 120 * time.Second

// heldAnswer is one hold-answer write, from its match to the release of its answer.
type heldAnswer struct {
	req      ReqLine
	held     chan struct{} // closed once the API server answered and the answer is kept back
	released chan struct{} // closed by POST /faults/answer/release
	once     bool          // held already
}

// AnswerReport is the body of GET /faults/answer.
type AnswerReport struct {
	Armed   bool    `json:"armed"`   // a hold-answer fault waits for its write, or an answer is held
	Held    bool    `json:"held"`    // the write happened; its answer is kept back now
	Request ReqLine `json:"request"` // the write, as logged (when held)
}

// holdAnswer keeps the answer of st's write back until it is released, the client goes away
// or answerHoldLimit passes.
func (p *Proxy) holdAnswer(h *heldAnswer, req ReqLine, client context.Context) {
	p.mu.Lock()
	h.req, h.once = req, true
	p.mu.Unlock()
	p.logger.Printf("holding the answer of write %d (%s %s %s, %d)", req.ID, req.Verb, req.Resource, req.Name, req.Code)
	close(h.held)
	t := time.NewTimer(answerHoldLimit)
	defer t.Stop()
	select {
	case <-h.released:
	case <-client.Done():
	case <-t.C:
	}
	p.mu.Lock()
	if p.answer == h {
		p.answer = nil
	}
	p.mu.Unlock()
}

// WaitAnswer waits up to d for an armed hold-answer write to be answered and held.
func (p *Proxy) WaitAnswer(ctx context.Context, d time.Duration) AnswerReport {
	deadline := time.Now().Add(d)
	for {
		p.mu.Lock()
		h := p.answer
		armed := h != nil
		for _, f := range p.writeFaults {
			if !f.Fired && f.Action == actionHoldAnswer {
				armed = true
			}
		}
		var report AnswerReport
		if h != nil && h.once {
			report = AnswerReport{Armed: true, Held: true, Request: h.req}
		}
		p.mu.Unlock()
		if report.Held || !armed || !time.Now().Before(deadline) || ctx.Err() != nil {
			report.Armed = armed
			return report
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ReleaseAnswer delivers the held answer; false when none is held or armed.
func (p *Proxy) ReleaseAnswer() bool {
	p.mu.Lock()
	h := p.answer
	p.mu.Unlock()
	if h == nil {
		return false
	}
	select {
	case <-h.released:
	default:
		close(h.released)
	}
	return true
}

// WriteFault is one armed write fault.
type WriteFault struct {
	Nth        int    `json:"nth"`    // act on the nth matching write from arming (1-based), or the first after it no other fault acts on
	Action     string `json:"action"` // status, crash-withheld, crash-delivered, hold-answer
	Code       int    `json:"code,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"` // seconds, for 429 (and 503)
	// RetryAfterHeader is the Retry-After header's value as given, instead of RetryAfter: "0",
	// or an HTTP-date (RFC 9110 allows it; client-go reads whole seconds only).
	RetryAfterHeader string `json:"retry_after_header,omitempty"`
	// Page answers with this text/html body instead of a Status, as a load balancer's or a
	// proxy's error page comes (no Kubernetes Status to read).
	Page string `json:"page,omitempty"`
	// Watch makes a status fault count the watch requests of its resources instead of the
	// writes, and answer the nth one (a watch start refused: 410 Gone, 429, ...).
	Watch     bool     `json:"watch,omitempty"`
	Bare      bool     `json:"bare,omitempty"`      // a Status without details, as apierrors.NewServiceUnavailable gives
	Message   string   `json:"message,omitempty"`   // the Status's message as given (default: the proxy's own wording)
	Causes    []Cause  `json:"causes,omitempty"`    // the Status's details.causes, in this order
	Resources []string `json:"resources,omitempty"` // plural names; empty: every resource
	Seen      int      `json:"seen"`                // matching writes so far
	Fired     bool     `json:"fired"`
}

// Cause is one entry of an injected Status's details.causes (metav1.StatusCause).
type Cause struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

func (f *WriteFault) matches(resource string) bool {
	return len(f.Resources) == 0 || slices.Contains(f.Resources, resource)
}

// EventRule delays (and optionally coalesces) the watch events of one resource.
type EventRule struct {
	Delay    time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
	Coalesce bool          `json:"coalesce"`
}

// crashState is one scripted crash, from the matching write to the harness's ack.
type crashState struct {
	id        int64
	variant   string
	req       ReqLine
	triggered chan struct{} // closed once the client must be killed
	acked     chan struct{} // closed by POST /faults/crash/ack
	done      bool          // triggered already
}

// CrashReport is the body of GET /faults/crash.
type CrashReport struct {
	Armed     bool    `json:"armed"`     // a crash fault waits for its write, or a crash is pending
	Triggered bool    `json:"triggered"` // the write happened: kill the client, then ack
	Variant   string  `json:"variant,omitempty"`
	Request   ReqLine `json:"request"`
}

// takeWriteFault counts a write of resource against the armed faults and returns the one that
// acts on it, if any: the first armed (in arming order) that is due, i.e. has seen at least its
// nth matching write and not fired. One write carries one fault; a fault that came due on a
// write another one acted on stays due and acts on the next matching write, so two faults armed
// for the same write act on two consecutive writes (independent faults, one after the other)
// and none is left armed without ever acting.
func (p *Proxy) takeWriteFault(resource string, watch bool) *WriteFault {
	p.mu.Lock()
	defer p.mu.Unlock()
	var hit *WriteFault
	for _, f := range p.writeFaults {
		if f.Fired || f.Watch != watch || !f.matches(resource) {
			continue
		}
		f.Seen++
		if f.Seen >= f.Nth && hit == nil {
			f.Fired = true
			hit = f
		}
	}
	return hit
}

// startCrash freezes the proxy for a crash at request id; the caller forwards the write.
func (p *Proxy) startCrash(id int64, variant string) *crashState {
	c := &crashState{id: id, variant: variant, triggered: make(chan struct{}), acked: make(chan struct{})}
	p.mu.Lock()
	p.crash = c
	p.mu.Unlock()
	return c
}

// triggerCrash reports the crash to the harness (once).
func (p *Proxy) triggerCrash(c *crashState, req ReqLine) {
	p.mu.Lock()
	if c.done {
		p.mu.Unlock()
		return
	}
	c.done = true
	c.req = req
	p.mu.Unlock()
	p.reqlog.write(CrashLine{T: "crash", ID: c.id, Time: time.Now().UTC(), Variant: c.variant, Phase: "triggered"})
	p.logger.Printf("crash %s at write %d (%s %s %s): waiting for the ack", c.variant, c.id, req.Verb, req.Resource, req.Name)
	close(c.triggered)
}

// waitFrozen blocks a request that arrives while a crash is pending, until the ack (or the
// client goes away). It returns true if the request must not be served.
func (p *Proxy) waitFrozen(ctx context.Context) bool {
	p.mu.Lock()
	c := p.crash
	p.mu.Unlock()
	if c == nil {
		return false
	}
	select {
	case <-c.acked:
	case <-ctx.Done():
	}
	return true
}

// AckCrash ends the pending crash: requests held meanwhile are dropped (their client is dead).
func (p *Proxy) AckCrash() bool {
	p.mu.Lock()
	c := p.crash
	p.crash = nil
	p.mu.Unlock()
	if c == nil {
		return false
	}
	p.reqlog.write(CrashLine{T: "crash", ID: c.id, Time: time.Now().UTC(), Variant: c.variant, Phase: "acked"})
	close(c.acked)
	return true
}

// WaitCrash waits up to d for the pending crash to trigger.
func (p *Proxy) WaitCrash(ctx context.Context, d time.Duration) CrashReport {
	p.mu.Lock()
	c := p.crash
	armed := c != nil
	for _, f := range p.writeFaults {
		if !f.Fired && f.Action != actionStatus {
			armed = true
		}
	}
	p.mu.Unlock()
	if c == nil {
		// Not matched yet: poll until it is, or the time is up.
		deadline := time.Now().Add(d)
		for c == nil && armed && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
			p.mu.Lock()
			c = p.crash
			p.mu.Unlock()
		}
		if c == nil {
			return CrashReport{Armed: armed}
		}
		d = time.Until(deadline)
	}
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-c.triggered:
		p.mu.Lock()
		defer p.mu.Unlock()
		return CrashReport{Armed: true, Triggered: true, Variant: c.variant, Request: c.req}
	case <-t.C:
	case <-ctx.Done():
	}
	return CrashReport{Armed: true, Variant: c.variant}
}

// statusReason is the Kubernetes Status reason of an injected code.
func statusReason(code int) string {
	switch code {
	case http.StatusConflict:
		return "Conflict"
	case http.StatusGone:
		return "Expired" // a watch from a compacted resourceVersion: "too old resource version"
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusInternalServerError:
		return "InternalError"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	case http.StatusGatewayTimeout:
		return "Timeout"
	case http.StatusForbidden:
		return "Forbidden"
	}
	return "Unknown"
}

// writeInjected answers a write with f's status, as the API server would word it.
func writeInjected(w http.ResponseWriter, f *WriteFault, info RequestInfo) (string, string) {
	reason := statusReason(f.Code)
	message := fmt.Sprintf("modeldock apiproxy: injected %d for %s %s %q", f.Code, info.Verb, info.ResourceID, info.Name)
	if f.Code == http.StatusConflict {
		message = fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; "+
			"please apply your changes to the latest version and try again (modeldock apiproxy: injected)",
			info.ResourceID, info.Name)
	}
	if f.Message != "" {
		message = f.Message
	}
	switch {
	case f.RetryAfterHeader != "":
		w.Header().Set("Retry-After", f.RetryAfterHeader)
	case f.RetryAfter > 0:
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	if f.Page != "" {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Code)
		_, _ = io.WriteString(w, f.Page)
		return "", f.Page
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Code)
	status := map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": f.Code}
	if !f.Bare {
		// A bare Status has no details at all: the API server answers so where apimachinery's
		// NewServiceUnavailable builds the error (storage not ready, a draining server).
		details := map[string]any{"name": info.Name, "kind": info.ResourceID}
		if f.RetryAfter > 0 {
			details["retryAfterSeconds"] = f.RetryAfter
		}
		if len(f.Causes) > 0 {
			details["causes"] = f.Causes
		}
		status["details"] = details
	}
	_ = json.NewEncoder(w).Encode(status)
	return reason, message
}

// errWithheld ends a crash-withheld write: its response never reaches the client.
var errWithheld = errors.New("response withheld: scripted crash")

// ------------------------------------------------------------------ control API

func (p *Proxy) faultHandlers(mux *http.ServeMux) {
	mux.HandleFunc("POST /faults/write", func(w http.ResponseWriter, r *http.Request) {
		var f WriteFault
		if !readJSON(w, r, &f) {
			return
		}
		switch {
		case f.Nth < 1:
			http.Error(w, `{"error": "\"nth\" must be >= 1"}`, http.StatusBadRequest)
			return
		case f.Action == actionStatus && (f.Code < 400 || f.Code > 599):
			http.Error(w, `{"error": "\"code\" must be an HTTP error status (4xx or 5xx)"}`, http.StatusBadRequest)
			return
		case f.Watch && f.Action != actionStatus:
			http.Error(w, `{"error": "\"watch\" needs the action status"}`, http.StatusBadRequest)
			return
		case f.Action != actionStatus && f.Action != actionCrashWithheld && f.Action != actionCrashDelivered && f.Action != actionHoldAnswer:
			http.Error(w, `{"error": "\"action\" must be status, crash-withheld, crash-delivered or hold-answer"}`, http.StatusBadRequest)
			return
		}
		f.Seen, f.Fired = 0, false
		p.mu.Lock()
		p.writeFaults = append(p.writeFaults, &f)
		faults := p.faultsLocked()
		p.mu.Unlock()
		p.logger.Printf("write fault armed: %+v", f)
		writeJSON(w, map[string]any{"write_faults": faults})
	})
	mux.HandleFunc("GET /faults/crash", func(w http.ResponseWriter, r *http.Request) {
		wait, _ := strconv.ParseFloat(r.URL.Query().Get("wait"), 64)
		writeJSON(w, p.WaitCrash(r.Context(), time.Duration(min(max(wait, 0), 600)*float64(time.Second))))
	})
	mux.HandleFunc("POST /faults/crash/ack", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"acked": p.AckCrash()})
	})
	mux.HandleFunc("GET /faults/answer", func(w http.ResponseWriter, r *http.Request) {
		wait, _ := strconv.ParseFloat(r.URL.Query().Get("wait"), 64)
		writeJSON(w, p.WaitAnswer(r.Context(), time.Duration(min(max(wait, 0), 600)*float64(time.Second))))
	})
	mux.HandleFunc("POST /faults/answer/release", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"released": p.ReleaseAnswer()})
	})
	mux.HandleFunc("POST /faults/events", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Resources []string `json:"resources"`
			Seconds   float64  `json:"seconds"`
			Coalesce  bool     `json:"coalesce"`
		}
		if !readJSON(w, r, &body) {
			return
		}
		if len(body.Resources) == 0 || body.Seconds < 0 || body.Seconds > 600 {
			http.Error(w, `{"error": "events needs {\"resources\": [...], \"seconds\": 0..600}"}`, http.StatusBadRequest)
			return
		}
		rules := p.reg.setEventRules(body.Resources, EventRule{
			Delay: time.Duration(body.Seconds * float64(time.Second)), Seconds: body.Seconds, Coalesce: body.Coalesce})
		p.logger.Printf("event rules: %+v", rules)
		writeJSON(w, map[string]any{"event_rules": rules})
	})
	mux.HandleFunc("POST /faults/clear", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.writeFaults = nil
		p.mu.Unlock()
		acked := p.AckCrash()
		p.ReleaseAnswer()
		p.reg.clearEventRules()
		writeJSON(w, map[string]any{"cleared": true, "acked": acked})
	})
	mux.HandleFunc("GET /faults", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		faults := p.faultsLocked()
		p.mu.Unlock()
		writeJSON(w, map[string]any{"write_faults": faults, "event_rules": p.reg.eventRulesSnapshot()})
	})
}

func (p *Proxy) faultsLocked() []WriteFault {
	out := make([]WriteFault, 0, len(p.writeFaults))
	for _, f := range p.writeFaults {
		out = append(out, *f)
	}
	return out
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		http.Error(w, fmt.Sprintf(`{"error": %q}`, "bad JSON body: "+err.Error()), http.StatusBadRequest)
		return false
	}
	return true
}
