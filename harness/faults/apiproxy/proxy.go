package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// recentLimit is how many recent requests GET /stats lists.
const recentLimit = 500

// RecentRequest is one request in GET /stats "recent": recorded when the API server's response
// headers arrived (for a watch: when the stream opened), or when the proxy gave up on it.
type RecentRequest struct {
	Time        time.Time `json:"time"` // when the request reached the proxy (RFC 3339, UTC)
	Proto       string    `json:"proto"`
	Verb        string    `json:"verb"`
	Resource    string    `json:"resource"`
	Subresource string    `json:"subresource"`
	Namespace   string    `json:"namespace"`
	Name        string    `json:"name"`
	Path        string    `json:"path"` // non-resource requests only
	Accept      string    `json:"accept"`
	Code        int       `json:"code"`       // HTTP status; 502 when the API server could not be reached
	LatencyMs   float64   `json:"latency_ms"` // until the response headers, in milliseconds
	// ResourceVersion: of a write, the request body's metadata.resourceVersion (JSON or
	// protobuf; "" if it names none, as most patches); of a read, its ?resourceVersion=.
	ResourceVersion string  `json:"resource_version"`
	HeldMs          float64 `json:"held_ms"` // how long the proxy held this write (POST /delay-writes)
}

// Proxy is the reverse proxy from the operator to kube-apiserver, with its counters.
type Proxy struct {
	upstream *url.URL
	rp       *httputil.ReverseProxy
	reg      *registry
	logger   *log.Logger

	mu             sync.Mutex
	protos         map[string]int
	verbs          map[string]int
	requests       int
	upstreamErrors int
	recent         []RecentRequest
	started        time.Time

	writeDelay      time.Duration // POST /delay-writes: hold each of the next writeDelayLeft writes this long
	writeDelayLeft  int
	writeDelayOnly  writeSelector // which writes the delay counts and holds (empty: every write)
	writesHolding   int           // writes being held now
	writesHeldTotal int
	writesRelease   chan struct{} // closed by POST /release-writes: the writes held now go on

	reqlog      *reqLog        // --request-log; nil: none
	inflight    sync.WaitGroup // requests being served (Drain waits for them at shutdown)
	nextID      atomic.Int64   // request ids in the request log
	writeFaults []*WriteFault  // POST /faults/write
	crash       *crashState    // a scripted crash from its write until the ack
	answer      *heldAnswer    // a hold-answer write from its match until its answer is released
	// non-watch requests forwarded and not yet answered (request id -> closed once the
	// answer is logged): POST /settle waits for them
	answering map[int64]chan struct{}
}

type ctxKey struct{}

type requestState struct {
	info    RequestInfo
	id      int64
	start   time.Time
	proto   string
	rv      string
	heldMs  float64
	bytesIn int64
	crash   *crashState // this write is a scripted crash's
	held    *heldAnswer // this write's answer is kept back (hold-answer)
	line    ReqLine     // as logged
	// the client's own context: a non-watch request goes upstream without its cancellation
	client context.Context
	// a watch whose stream the API server ended (not the client, not POST /end-watches)
	upstreamEnded atomic.Bool
	// closed once this forwarded non-watch request's answer is logged (nil: not tracked)
	answered chan struct{}
}

// upstreamTimeout bounds a non-watch request sent upstream after its client went away.
const upstreamTimeout = 60 * time.Second

// mutating reports whether verb changes state.
func mutating(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// maxBodyPeek bounds how much of a write's body the proxy reads to find its resourceVersion;
// a larger body is forwarded untouched and recorded without one.
const maxBodyPeek = 8 << 20

// reasonClientBodyIncomplete is the request log's reason for a write whose client went away
// before sending its whole body (at most maxBodyPeek): never forwarded. A longer body is
// streamed, so a client gone in its middle still reaches the API server as a failed request.
const reasonClientBodyIncomplete = "ClientBodyIncomplete"

// NewProxy builds the proxy to upstream with transport (the operator's identity lives there).
func NewProxy(upstream *url.URL, transport http.RoundTripper, logger *log.Logger) *Proxy {
	p := &Proxy{upstream: upstream, reg: newRegistry(), logger: logger,
		protos: map[string]int{}, verbs: map[string]int{}, started: time.Now(),
		answering: map[int64]chan struct{}{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			// The client's own credential passes through: its Authorization header (a bearer
			// token) is forwarded as is. A client certificate ends at the proxy's TLS; the
			// proxy presents its configured copy (NewTransport), when it was given one.
		},
		Transport:      transport,
		FlushInterval:  -1, // watch events pass at once
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       logger,
	}
	return p
}

// SetRequestLog makes the proxy write its request log (reclog.go) to l.
func (p *Proxy) SetRequestLog(l *reqLog) {
	p.reqlog = l
	p.reg.log = l
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := ParseRequest(r.Method, r.URL)
	st := &requestState{info: info, id: p.nextID.Add(1), start: time.Now(), proto: r.Proto,
		rv: r.URL.Query().Get("resourceVersion"), bytesIn: r.ContentLength}
	cw := &countingWriter{ResponseWriter: w, flushHeader: info.Verb == "watch"}
	p.inflight.Add(1)
	defer p.inflight.Done()
	defer func() {
		p.reqlog.write(DoneLine{T: "done", ID: st.id, End: time.Now().UTC(), BytesOut: cw.n,
			UpstreamEnded: st.upstreamEnded.Load()})
	}()
	if p.waitFrozen(r.Context()) {
		// A scripted crash is pending: this request comes from a client about to be killed,
		// after the write it dies at. It never reaches the API server.
		st.line = p.logLine(st, r, 0, "")
		st.line.Injected, st.line.Reason = true, "Frozen"
		p.reqlog.write(st.line)
		panic(http.ErrAbortHandler)
	}
	p.mu.Lock()
	p.requests++
	p.protos[r.Proto]++
	p.verbs[info.Verb]++
	p.mu.Unlock()
	if info.Resource {
		p.reg.countRequest(info.ResourceID, info.Verb)
	}
	write := info.Resource && mutating(info.Verb)
	if write {
		st.rv = ""
		if r.Body != nil && r.ContentLength <= maxBodyPeek {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyPeek+1))
			if err != nil {
				// The client went away (killed, its connection cut) before its body was
				// complete. Forwarding the part would have the API server fail the request
				// for a client that is gone (500 in its audit log, nothing here): the
				// request goes no further, as if the connection had been cut before it.
				st.line = p.logLine(st, r, 0, "")
				st.line.Reason, st.line.Message = reasonClientBodyIncomplete, err.Error()
				p.reqlog.write(st.line)
				panic(http.ErrAbortHandler)
			}
			if len(body) <= maxBodyPeek {
				var name string
				st.rv, name = bodyMeta(r.Header.Get("Content-Type"), body)
				if info.Verb == "create" && info.Name == "" {
					st.info.Name = name // as the audit log names a create
				}
				st.bytesIn = int64(len(body))
			}
			// Forward exactly what was read (and whatever is left, if it was too long).
			r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		}
	}
	if watchStart := info.Resource && info.Verb == "watch"; write || watchStart {
		switch f := p.takeWriteFault(info.ResourceID, watchStart); {
		case f == nil:
		case f.Action == actionStatus:
			_, _ = io.Copy(io.Discard, r.Body)
			reason, message := writeInjected(cw, f, info)
			st.line = p.logLine(st, r, f.Code, "")
			st.line.Injected, st.line.Reason, st.line.Message = true, reason, message
			p.reqlog.write(st.line)
			p.logger.Printf("injected %d for %s %s/%s %s", f.Code, info.Verb, info.Namespace, info.ResourceID, info.Name)
			return
		case f.Action == actionHoldAnswer:
			st.held = &heldAnswer{held: make(chan struct{}), released: make(chan struct{})}
			p.mu.Lock()
			p.answer = st.held
			p.mu.Unlock()
		default:
			variant := "withheld"
			if f.Action == actionCrashDelivered {
				variant = "delivered"
			}
			st.crash = p.startCrash(st.id, variant)
		}
		if d, released := p.takeWriteDelay(st.info.ResourceID, st.info.Name); d > 0 {
			p.logger.Printf("holding %s %s/%s %s for %v", info.Verb, info.Namespace, info.ResourceID, info.Name, d)
			held := time.Now()
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-released:
				t.Stop()
			case <-r.Context().Done():
				t.Stop()
			}
			st.heldMs = float64(time.Since(held).Microseconds()) / 1000
			p.mu.Lock()
			p.writesHolding--
			p.mu.Unlock()
		}
	}
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, st))
	st.client = r.Context()
	if info.Verb != "watch" {
		// The API server's answer is logged even when the client goes away first (an operator
		// killed mid-request): the request goes on upstream, as it does at the API server.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), upstreamTimeout)
		defer cancel()
		r = r.WithContext(ctx)
	}
	if st.crash != nil {
		// However the write ends (delivered, withheld, upstream error), the harness is told.
		defer func() { p.triggerCrash(st.crash, st.line) }()
	}
	if info.Verb != "watch" {
		p.startAnswering(st)
		defer p.doneAnswering(st)
	}
	p.rp.ServeHTTP(cw, r)
}

// startAnswering registers a non-watch request about to be forwarded: Settle waits for its
// answer to be logged.
func (p *Proxy) startAnswering(st *requestState) {
	st.answered = make(chan struct{})
	p.mu.Lock()
	p.answering[st.id] = st.answered
	p.mu.Unlock()
}

// doneAnswering marks st's answer as logged (or its handling over); safe to call twice.
func (p *Proxy) doneAnswering(st *requestState) {
	if st.answered == nil {
		return
	}
	p.mu.Lock()
	if _, ok := p.answering[st.id]; ok {
		delete(p.answering, st.id)
		close(st.answered)
	}
	p.mu.Unlock()
}

// Settle waits up to timeout until every non-watch request forwarded before the call has its
// answer in the request log, and returns how many still had none. The harness calls it
// before it takes an accounting marker: the API server applies a write before its answer
// reaches the proxy, so a check can see the effect (a ModelService gone once its finalizer
// was removed) a moment before the proxy logs the request that caused it.
func (p *Proxy) Settle(timeout time.Duration) int {
	p.mu.Lock()
	pending := make([]chan struct{}, 0, len(p.answering))
	for _, ch := range p.answering {
		pending = append(pending, ch)
	}
	p.mu.Unlock()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for i, ch := range pending {
		select {
		case <-ch:
		case <-deadline.C:
			left := 0
			for _, c := range pending[i:] {
				select {
				case <-c:
				default:
					left++
				}
			}
			return left
		}
	}
	return 0
}

// logLine is the request log's line for a request answered with code.
func (p *Proxy) logLine(st *requestState, r *http.Request, code int, auditID string) ReqLine {
	l := ReqLine{T: "req", ID: st.id, Start: st.start.UTC(), Time: time.Now().UTC(), Verb: st.info.Verb,
		Group: st.info.APIGroup, Resource: st.info.ResourceID, Subresource: st.info.Subresource,
		Namespace: st.info.Namespace, Name: st.info.Name, Code: code, AuditID: auditID,
		Proto: st.proto, UserAgent: r.Header.Get("User-Agent"), BytesIn: st.bytesIn}
	if !st.info.Resource {
		l.Path = st.info.Path
	}
	if st.crash != nil {
		l.Crash = st.crash.variant
	}
	return l
}

func (p *Proxy) modifyResponse(res *http.Response) error {
	st, _ := res.Request.Context().Value(ctxKey{}).(*requestState)
	if st == nil {
		return nil
	}
	p.record(st, res.Request, res.StatusCode)
	st.line = p.logLine(st, res.Request, res.StatusCode, res.Header.Get("Audit-Id"))
	// A refused request's Status, as the audit log's responseStatus has it (a watch refused
	// is an ordinary answer too; a watch that started has code 200 and is not read).
	st.line.Reason, st.line.Message = readStatus(res)
	p.reqlog.write(st.line)
	p.doneAnswering(st)
	if st.crash != nil && st.crash.variant == "withheld" {
		// The API server has applied the write; its answer stays here until the client is dead.
		p.triggerCrash(st.crash, st.line)
		select {
		case <-st.crash.acked:
		case <-st.client.Done():
		}
		return errWithheld
	}
	if st.held != nil {
		// The API server has applied the write; its answer waits here for the release.
		p.holdAnswer(st.held, st.line, st.client)
	}
	if st.info.Verb == "watch" && st.info.Resource && res.StatusCode == http.StatusOK {
		res.Body = p.reg.newStream(res.Request.Context(), st.id, st.info, st.rv,
			res.Header.Get("Content-Type"), res.Header.Get("Content-Encoding"), res.Body)
	}
	return nil
}

func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	st, _ := r.Context().Value(ctxKey{}).(*requestState)
	if errors.Is(err, errWithheld) {
		panic(http.ErrAbortHandler) // nothing of the response reaches the client
	}
	if errors.Is(err, context.Canceled) {
		return // the client went away
	}
	p.logger.Printf("upstream %s %s: %v", r.Method, r.URL.Path, err)
	p.mu.Lock()
	p.upstreamErrors++
	p.mu.Unlock()
	if st != nil {
		p.record(st, r, http.StatusBadGateway)
		st.line = p.logLine(st, r, http.StatusBadGateway, "")
		st.line.Reason, st.line.Message = "ProxyUpstreamError", err.Error()
		p.reqlog.write(st.line)
		p.doneAnswering(st)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	// A Kubernetes Status, so that clients show a readable error.
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": http.StatusBadGateway,
		"reason":  "ServiceUnavailable",
		"message": fmt.Sprintf("modeldock apiproxy: API server %s unreachable: %v", p.upstream, err),
	})
}

func (p *Proxy) record(st *requestState, r *http.Request, code int) {
	rec := RecentRequest{Time: st.start.UTC(), Proto: st.proto, Verb: st.info.Verb,
		Resource: st.info.ResourceID, Subresource: st.info.Subresource,
		Namespace: st.info.Namespace, Name: st.info.Name, Accept: r.Header.Get("Accept"),
		Code: code, LatencyMs: float64(time.Since(st.start).Microseconds()) / 1000,
		ResourceVersion: st.rv, HeldMs: st.heldMs}
	if !st.info.Resource {
		rec.Path = st.info.Path
	}
	p.mu.Lock()
	p.recent = append(p.recent, rec)
	if len(p.recent) > recentLimit {
		p.recent = slices.Clone(p.recent[len(p.recent)-recentLimit:])
	}
	p.mu.Unlock()
}

// Stats is the body of GET /stats.
type Stats struct {
	UptimeSeconds  float64                  `json:"uptime_seconds"`
	Requests       int                      `json:"requests"`        // requests received from the client
	Protocols      map[string]int           `json:"protocols"`       // requests by HTTP version: "HTTP/2.0", "HTTP/1.1"
	Verbs          map[string]int           `json:"verbs"`           // requests by verb
	UpstreamErrors int                      `json:"upstream_errors"` // requests answered 502 (API server unreachable)
	Holding        []string                 `json:"holding"`         // resources whose watch events are held now
	Resources      map[string]ResourceStats `json:"resources"`       // per resource (plural, e.g. "services")
	Recent         []RecentRequest          `json:"recent"`          // the last requests, oldest first
	DelayWrites    DelayWrites              `json:"delay_writes"`    // the write delay armed now
	WritesHolding  int                      `json:"writes_holding"`  // writes being held now
	WritesHeld     int                      `json:"writes_held"`     // writes held since start
	WatchErrors    []WatchError             `json:"watch_errors"`    // ERROR events of watch streams, oldest first
}

// DelayWrites is the armed write delay: each of the next Remaining writes (of Resource and
// Name, where given) is held Seconds.
type DelayWrites struct {
	Seconds   float64 `json:"seconds"`
	Remaining int     `json:"remaining"`
	Resource  string  `json:"resource,omitempty"`
	Name      string  `json:"name,omitempty"`
}

// writeSelector picks the writes of one resource (plural) and, where Name is set, one object
// name; an empty field matches every value.
type writeSelector struct{ Resource, Name string }

func (s writeSelector) matches(resource, name string) bool {
	return (s.Resource == "" || s.Resource == resource) && (s.Name == "" || s.Name == name)
}

// takeWriteDelay returns how long to hold a write of resource/name arriving now (0: not at
// all) and, if it is held, counts it as held now and returns the channel whose close ends the
// hold early (ReleaseWrites).
func (p *Proxy) takeWriteDelay(resource, name string) (time.Duration, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.writeDelayLeft <= 0 || p.writeDelay <= 0 || !p.writeDelayOnly.matches(resource, name) {
		return 0, nil
	}
	p.writeDelayLeft--
	p.writesHolding++
	p.writesHeldTotal++
	if p.writesRelease == nil {
		p.writesRelease = make(chan struct{})
	}
	return p.writeDelay, p.writesRelease
}

// ReleaseWrites forwards every write held now at once, without waiting for its delay to end
// (what a check does once it has seen what it waited for under the hold), and returns how
// many were held. Writes held later wait their full delay again.
func (p *Proxy) ReleaseWrites() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.writesHolding
	if p.writesRelease != nil {
		close(p.writesRelease)
		p.writesRelease = nil
	}
	return n
}

// SetWriteDelay arms the write delay: each of the next count writes that only selects is
// held d before it is forwarded (count 0 or d 0: off); other writes pass and are not counted.
func (p *Proxy) SetWriteDelay(d time.Duration, count int, only writeSelector) DelayWrites {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writeDelay, p.writeDelayLeft, p.writeDelayOnly = d, count, only
	return DelayWrites{Seconds: d.Seconds(), Remaining: count, Resource: only.Resource, Name: only.Name}
}

func (p *Proxy) Stats() Stats {
	resources, holding := p.reg.snapshot()
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{UptimeSeconds: time.Since(p.started).Seconds(), Requests: p.requests,
		Protocols: cloneMap(p.protos), Verbs: cloneMap(p.verbs),
		UpstreamErrors: p.upstreamErrors, Holding: holding, Resources: resources,
		Recent: slices.Clone(p.recent),
		DelayWrites: DelayWrites{Seconds: p.writeDelay.Seconds(), Remaining: p.writeDelayLeft,
			Resource: p.writeDelayOnly.Resource, Name: p.writeDelayOnly.Name},
		WritesHolding: p.writesHolding, WritesHeld: p.writesHeldTotal,
		WatchErrors: p.reg.watchErrorsSnapshot()}
}

// countingWriter counts the response bytes; for a watch (flushHeader) it sends the headers at
// once, as the API server does, so that the client's watch call returns even while every event
// of the stream is held.
type countingWriter struct {
	http.ResponseWriter
	n           int64
	flushHeader bool
}

func (w *countingWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	if w.flushHeader {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

func (w *countingWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ------------------------------------------------------------------ control API

type resourcesBody struct {
	Resources []string `json:"resources"`
}

// ControlHandler serves the control API:
//
//	POST /hold    {"resources": ["deployments", "services"]}  -> {"holding": [...]}
//	POST /release {"resources": [...]} or {} for all          -> {"released": {"services": 2}, "holding": [...]}
//	POST /end-watches {"resources": [...]}                    -> {"ended": {"services": 1}, "dropped": {"services": 2}, "holding": [...]}
//	POST /delay-writes {"seconds": 3, "count": 1}             -> {"delay_writes": {"seconds": 3, "remaining": 1}}
//	  (optional "resource": "deployments", "name": "web": only those writes are counted and held)
//	POST /release-writes                                      -> {"released": N} (ReleaseWrites)
//	POST /mark                                                -> {"at": T} (reclog.go, Mark)
//	POST /settle {"seconds": 5}                               -> {"unanswered": N} (Settle)
//	GET  /stats                                               -> Stats
//	GET  /healthz                                             -> ok
func (p *Proxy) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mark", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"at": p.reqlog.Mark()})
	})
	mux.HandleFunc("POST /settle", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Seconds float64 `json:"seconds"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Seconds <= 0 || body.Seconds > 3600 {
			http.Error(w, `body must be {"seconds": N} with 0 < N <= 3600`, http.StatusBadRequest)
			return
		}
		left := p.Settle(time.Duration(body.Seconds * float64(time.Second)))
		writeJSON(w, map[string]any{"unanswered": left})
	})
	mux.HandleFunc("POST /hold", func(w http.ResponseWriter, r *http.Request) {
		body, ok := readResources(w, r)
		if !ok {
			return
		}
		if len(body.Resources) == 0 {
			http.Error(w, `{"error": "hold needs {\"resources\": [...]}"}`, http.StatusBadRequest)
			return
		}
		holding := p.reg.hold(body.Resources)
		p.logger.Printf("hold %v (holding %v)", body.Resources, holding)
		writeJSON(w, map[string]any{"holding": holding})
	})
	mux.HandleFunc("POST /release", func(w http.ResponseWriter, r *http.Request) {
		body, ok := readResources(w, r)
		if !ok {
			return
		}
		released := p.reg.release(body.Resources)
		_, holding := p.reg.snapshot()
		p.logger.Printf("release %v: %v (holding %v)", body.Resources, released, holding)
		writeJSON(w, map[string]any{"released": released, "holding": holding})
	})
	mux.HandleFunc("POST /end-watches", func(w http.ResponseWriter, r *http.Request) {
		body, ok := readResources(w, r)
		if !ok {
			return
		}
		if len(body.Resources) == 0 {
			http.Error(w, `{"error": "end-watches needs {\"resources\": [...]}"}`, http.StatusBadRequest)
			return
		}
		ended, dropped := p.reg.end(body.Resources)
		_, holding := p.reg.snapshot()
		p.logger.Printf("end-watches %v: ended %v, dropped %v (holding %v)", body.Resources, ended, dropped, holding)
		writeJSON(w, map[string]any{"ended": ended, "dropped": dropped, "holding": holding})
	})
	mux.HandleFunc("POST /delay-writes", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Seconds  *float64 `json:"seconds"`
			Count    *int     `json:"count"`
			Resource string   `json:"resource"`
			Name     string   `json:"name"`
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err == nil {
			err = json.Unmarshal(data, &body)
		}
		if err == nil && (body.Seconds == nil || *body.Seconds < 0 || *body.Seconds > 3600) {
			err = errors.New(`"seconds" must be a number in [0, 3600]`)
		}
		if err == nil && body.Count != nil && *body.Count < 0 {
			err = errors.New(`"count" must be >= 0`)
		}
		if err != nil {
			http.Error(w, fmt.Sprintf(`{"error": %q}`, "delay-writes: "+err.Error()), http.StatusBadRequest)
			return
		}
		count := 1
		if body.Count != nil {
			count = *body.Count
		}
		armed := p.SetWriteDelay(time.Duration(*body.Seconds*float64(time.Second)), count,
			writeSelector{Resource: body.Resource, Name: body.Name})
		p.logger.Printf("delay-writes %+v", armed)
		writeJSON(w, map[string]any{"delay_writes": armed})
	})
	mux.HandleFunc("POST /release-writes", func(w http.ResponseWriter, r *http.Request) {
		n := p.ReleaseWrites()
		p.logger.Printf("release-writes: %d held", n)
		writeJSON(w, map[string]any{"released": n})
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, p.Stats())
	})
	p.faultHandlers(mux)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})
	return mux
}

func readResources(w http.ResponseWriter, r *http.Request) (resourcesBody, bool) {
	var body resourcesBody
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil && len(data) > 0 {
		err = json.Unmarshal(data, &body)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error": %q}`, "bad JSON body: "+err.Error()), http.StatusBadRequest)
		return body, false
	}
	return body, true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// readCloser reads from r and closes c: a request body partly read already.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }

// ------------------------------------------------------------------ upstream transport

// Drain waits up to timeout for the requests being served to finish (their request-log lines
// written), after the server closed their connections.
func (p *Proxy) Drain(timeout time.Duration) {
	done := make(chan struct{})
	go func() { p.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

// NewTransport is the connection to the API server: its CA, the operator's own client
// certificate (nil: none; the client's Authorization header then authenticates it), HTTP/2
// when the server offers it, and HTTP/2 health-check PINGs so that a dead API server
// connection is noticed (upstreamHealth: the operator's own deadlines).
func NewTransport(caPEM []byte, cert *tls.Certificate) (*http.Transport, error) {
	pool, err := certPool(caPEM)
	if err != nil {
		return nil, err
	}
	var certs []tls.Certificate
	if cert != nil {
		certs = []tls.Certificate{*cert}
	}
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: certs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
		HTTP2:               upstreamHealthFromEnv(),
	}
	return t, nil
}
