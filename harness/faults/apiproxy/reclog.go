package main

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// The request log: one JSON object per line, written as things happen, so that a reader can
// account for the operator's requests on any cluster (no audit log needed). Line kinds ("t"):
//
//	{"t":"req","id":N,"start":T,"time":T,"verb":..,"group":..,"resource":..,"subresource":..,
//	 "namespace":..,"name":..,"code":N,"audit_id":..,"proto":..,"user_agent":..,
//	 "bytes_in":N,"injected":bool,"crash":""|"withheld"|"delivered","reason":..,"message":..}
//	    once the response headers are known (for a watch: when the stream opens). "time" is
//	    when they were; bytes_in the request body size (-1 unknown).
//	{"t":"done","id":N,"end":T,"bytes_out":N,"upstream_ended":bool}
//	    when the response ended (for a watch: when the stream closed; upstream_ended: the API
//	    server ended it, not the client nor POST /end-watches).
//	{"t":"event","id":N,"time":T,"type":..,"kind":..,"namespace":..,"name":..,"rv":..,
//	 "coalesced":N,"delayed_ms":F}
//	    one watch event delivered to the client by watch request N (coalesced: events merged
//	    into it, see faults.go; delayed_ms: for an event an event rule delayed, milliseconds
//	    from when the proxy read it, or the earliest event merged into it, to its delivery:
//	    the proof that the client's view was late, which explore's premises read).
//	{"t":"crash","id":N,"time":T,"variant":..,"phase":"triggered"|"acked"}
//	    a scripted crash at write N.
//
//	{"t":"mark","at":T}
//	    written by POST /mark (the harness's accounting marker, see Mark).
//
// Every line also has "at": when it was written, taken under the log's lock, so "at" never
// decreases down the file, and a line whose "at" is before a mark is in the file before it.
// Times are RFC 3339 with nanoseconds, UTC. Request ids count from 1 in arrival order.

// reqLog writes the request log; a nil *reqLog writes nothing.
type reqLog struct {
	mu sync.Mutex
	f  *os.File
}

func openReqLog(path string) (*reqLog, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &reqLog{f: f}, nil
}

// write appends one line (one write call, so a reader never sees half a line of it), with
// "at" added under the lock.
func (l *reqLog) write(v any) {
	if l == nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil || len(data) < 2 || data[len(data)-1] != '}' {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	at, _ := json.Marshal(time.Now().UTC())
	line := append(data[:len(data)-1:len(data)-1], `,"at":`...)
	line = append(append(line, at...), '}', '\n')
	_, _ = l.f.Write(line)
}

// Mark writes a mark line and returns its "at": every line whose "at" is earlier is in the
// file before it, so a reader that takes a time t, then calls Mark, finds every line written
// before t on disk. A nil log writes nothing and returns the time now.
func (l *reqLog) Mark() time.Time {
	if l == nil {
		return time.Now().UTC()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now().UTC()
	data, _ := json.Marshal(map[string]any{"t": "mark", "at": now})
	_, _ = l.f.Write(append(data, '\n'))
	return now
}

func (l *reqLog) close() {
	if l != nil {
		l.mu.Lock()
		_ = l.f.Close()
		l.mu.Unlock()
	}
}

// ReqLine is a "req" line of the request log.
type ReqLine struct {
	T           string    `json:"t"`
	ID          int64     `json:"id"`
	Start       time.Time `json:"start"`
	Time        time.Time `json:"time"`
	Verb        string    `json:"verb"`
	Group       string    `json:"group"`
	Resource    string    `json:"resource"`
	Subresource string    `json:"subresource"`
	Namespace   string    `json:"namespace"`
	Name        string    `json:"name"`
	Path        string    `json:"path,omitempty"`
	Code        int       `json:"code"`
	AuditID     string    `json:"audit_id"`
	Proto       string    `json:"proto"`
	UserAgent   string    `json:"user_agent"`
	BytesIn     int64     `json:"bytes_in"`
	Injected    bool      `json:"injected,omitempty"`
	Crash       string    `json:"crash,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Message     string    `json:"message,omitempty"`
}

// DoneLine is a "done" line.
type DoneLine struct {
	T        string    `json:"t"`
	ID       int64     `json:"id"`
	End      time.Time `json:"end"`
	BytesOut int64     `json:"bytes_out"`
	// a watch whose stream the API server ended (at its shutdown, its timeout), not the client
	UpstreamEnded bool `json:"upstream_ended,omitempty"`
}

// EventLine is an "event" line: one watch event delivered.
type EventLine struct {
	T         string    `json:"t"`
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	Type      string    `json:"type"`
	Kind      string    `json:"kind"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	RV        string    `json:"rv"`
	Coalesced int       `json:"coalesced,omitempty"`
	DelayedMs float64   `json:"delayed_ms,omitempty"`
}

// CrashLine is a "crash" line.
type CrashLine struct {
	T       string    `json:"t"`
	ID      int64     `json:"id"`
	Time    time.Time `json:"time"`
	Variant string    `json:"variant"`
	Phase   string    `json:"phase"`
}
