package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPIServer streams watch events that the test sends on a channel per resource, and answers
// every other request with a small JSON object.
type fakeAPIServer struct {
	events map[string]chan string // resource -> raw event bytes to write (JSON lines or protobuf frames)
	ctype  map[string]string      // resource -> Content-Type of its watch

	mu      sync.Mutex
	seen    []string       // "verb resource name" of every request received
	serving map[string]int // resource -> watch handlers still running (reading its channel)
}

// watchers returns how many watch handlers of resource are still running: an ended stream's
// handler reads the resource's channel until it sees its request's context end, so an event
// sent before then may go to it rather than to a newer watch.
func (f *fakeAPIServer) watchers(resource string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.serving[resource]
}

// received returns the requests the fake API server has seen.
func (f *fakeAPIServer) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := ParseRequest(r.Method, r.URL)
	f.mu.Lock()
	f.seen = append(f.seen, info.Verb+" "+info.ResourceID+" "+info.Name)
	w.Header().Set("Audit-Id", fmt.Sprintf("audit-%d", len(f.seen)))
	f.mu.Unlock()
	if info.Verb != "watch" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"Status","verb":%q,"resource":%q,"name":%q}`, info.Verb, info.ResourceID, info.Name)
		return
	}
	ch := f.events[info.ResourceID]
	ct := f.ctype[info.ResourceID]
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	f.mu.Lock()
	if f.serving == nil {
		f.serving = map[string]int{}
	}
	f.serving[info.ResourceID]++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.serving[info.ResourceID]--
		f.mu.Unlock()
	}()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			_, _ = io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}
}

type harness struct {
	t        *testing.T
	proxy    *Proxy
	upstream *fakeAPIServer
	front    *httptest.Server
}

func newHarness(t *testing.T) *harness {
	up := &fakeAPIServer{events: map[string]chan string{
		"services": make(chan string, 16), "configmaps": make(chan string, 16),
		"deployments": make(chan string, 16)}, ctype: map[string]string{}}
	upstream := httptest.NewServer(up)
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	p := NewProxy(u, http.DefaultTransport.(*http.Transport).Clone(), log.New(io.Discard, "", 0))
	front := httptest.NewUnstartedServer(p)
	front.EnableHTTP2 = true
	front.StartTLS()
	t.Cleanup(front.Close)
	return &harness{t: t, proxy: p, upstream: up, front: front}
}

// watch opens a watch through the proxy and returns its lines as they arrive.
func (h *harness) watch(resource, prefix string) (<-chan string, *http.Response) {
	res, err := h.front.Client().Get(h.front.URL + prefix + "/namespaces/ns/" + resource + "?watch=true")
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { res.Body.Close() })
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines, res
}

func (h *harness) waitStats(what string, ok func(Stats) bool) Stats {
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := h.proxy.Stats()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; stats: %+v", what, st.Resources)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func recv(t *testing.T, lines <-chan string) string {
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("watch stream ended")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return ""
}

func event(typ, name string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"metadata":{"name":%q}}}`+"\n", typ, name)
}

func TestHoldAndReleaseKeepOrder(t *testing.T) {
	h := newHarness(t)
	svc, res := h.watch("services", "/api/v1")
	if res.ProtoMajor != 2 {
		t.Fatalf("client and proxy spoke %s, want HTTP/2", res.Proto)
	}
	cms, _ := h.watch("configmaps", "/api/v1")

	h.upstream.events["services"] <- event("ADDED", "before")
	if got := recv(t, svc); !strings.Contains(got, `"before"`) {
		t.Fatalf("got %q", got)
	}

	h.proxy.reg.hold([]string{"services"})
	for i := range 3 {
		h.upstream.events["services"] <- event("MODIFIED", fmt.Sprintf("held-%d", i))
	}
	st := h.waitStats("3 held services events", func(s Stats) bool { return s.Resources["services"].Held == 3 })
	if d := st.Resources["services"].Delivered; d != 1 {
		t.Fatalf("delivered %d services events while held, want 1 (the one before)", d)
	}
	// A watch opened while held gets its headers, then nothing.
	svc2, _ := h.watch("services", "/api/v1")
	// Other resources flow, and non-watch requests of the held one pass.
	h.upstream.events["configmaps"] <- event("ADDED", "cm")
	if got := recv(t, cms); !strings.Contains(got, `"cm"`) {
		t.Fatalf("got %q", got)
	}
	get, err := h.front.Client().Get(h.front.URL + "/api/v1/namespaces/ns/services/web")
	if err != nil || get.StatusCode != 200 {
		t.Fatalf("GET while held: %v %v", get, err)
	}
	get.Body.Close()
	select {
	case l := <-svc:
		t.Fatalf("a held event reached the client: %q", l)
	case l := <-svc2:
		t.Fatalf("a held event reached the second client: %q", l)
	default:
	}

	released := h.proxy.reg.release(nil)
	if released["services"] != 3 {
		t.Fatalf("released %v, want services: 3", released)
	}
	for i := range 3 {
		if got := recv(t, svc); !strings.Contains(got, fmt.Sprintf(`"held-%d"`, i)) {
			t.Fatalf("event %d after release: %q", i, got)
		}
	}
	st = h.waitStats("delivered", func(s Stats) bool { return s.Resources["services"].Delivered == 4 })
	rs := st.Resources["services"]
	if rs.Held != 0 || rs.HeldTotal != 3 || rs.WatchesOpen != 2 || rs.EventTypes["MODIFIED"] != 3 ||
		rs.Framings[framingJSON] != 2 || rs.Requests["watch"] != 2 || rs.Requests["get"] != 1 {
		t.Fatalf("services stats: %+v", rs)
	}
	if st.Protocols["HTTP/2.0"] == 0 || st.Verbs["watch"] != 3 || st.Verbs["get"] != 1 {
		t.Fatalf("stats: protocols %v verbs %v", st.Protocols, st.Verbs)
	}
}

func TestHeldStreamEndsOnlyAfterRelease(t *testing.T) {
	h := newHarness(t)
	svc, _ := h.watch("services", "/api/v1")
	h.proxy.reg.hold([]string{"services"})
	h.upstream.events["services"] <- event("ADDED", "last")
	close(h.upstream.events["services"]) // the API server ends the watch
	h.waitStats("stream ended upstream", func(s Stats) bool { return s.Resources["services"].StreamsEnded == 1 })
	select {
	case l, ok := <-svc:
		t.Fatalf("held stream delivered %q (open=%v)", l, ok)
	default:
	}
	h.proxy.reg.release([]string{"services"})
	if got := recv(t, svc); !strings.Contains(got, `"last"`) {
		t.Fatalf("got %q", got)
	}
	select {
	case _, ok := <-svc:
		if ok {
			t.Fatal("more than one event")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end after release")
	}
}

func protoFrame(typ string, payload []byte) string {
	msg := append([]byte{0x0a, byte(len(typ))}, typ...)
	msg = append(msg, 0x12, byte(len(payload)))
	msg = append(msg, payload...)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(msg)))
	return string(append(frame, msg...))
}

func TestProtobufFramesHeldWhole(t *testing.T) {
	h := newHarness(t)
	h.upstream.ctype["deployments"] = "application/vnd.kubernetes.protobuf;stream=watch"
	res, err := h.front.Client().Get(h.front.URL + "/apis/apps/v1/namespaces/ns/deployments?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	h.proxy.reg.hold([]string{"deployments"})
	a, b := protoFrame("ADDED", []byte("k8s-a")), protoFrame("DELETED", []byte("k8s-b"))
	// One frame split over two writes, then the second frame.
	h.upstream.events["deployments"] <- a[:3]
	h.upstream.events["deployments"] <- a[3:] + b
	st := h.waitStats("2 held frames", func(s Stats) bool { return s.Resources["deployments"].Held == 2 })
	if types := st.Resources["deployments"].EventTypes; types["ADDED"] != 1 || types["DELETED"] != 1 {
		t.Fatalf("event types %v", types)
	}
	h.proxy.reg.release(nil)
	got := make([]byte, len(a)+len(b))
	if _, err := io.ReadFull(res.Body, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != a+b {
		t.Fatalf("frames changed: %q", got)
	}
}

func TestControlAPI(t *testing.T) {
	h := newHarness(t)
	ctl := httptest.NewServer(h.proxy.ControlHandler())
	defer ctl.Close()
	post := func(path, body string) map[string]any {
		res, err := http.Post(ctl.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if res.StatusCode != 200 {
			b, _ := io.ReadAll(res.Body)
			t.Fatalf("%s: %s %s", path, res.Status, b)
		}
		_ = json.NewDecoder(res.Body).Decode(&out)
		return out
	}
	if got := fmt.Sprint(post("/hold", `{"resources": ["services", "deployments"]}`)["holding"]); got != "[deployments services]" {
		t.Fatalf("holding %s", got)
	}
	if got := fmt.Sprint(post("/release", `{"resources": ["services"]}`)["holding"]); got != "[deployments]" {
		t.Fatalf("holding %s", got)
	}
	if got := fmt.Sprint(post("/release", ``)["holding"]); got != "[]" {
		t.Fatalf("holding %s", got)
	}
	res, _ := http.Post(ctl.URL+"/hold", "application/json", strings.NewReader(`{}`))
	if res.StatusCode != 400 {
		t.Fatalf("hold without resources: %s", res.Status)
	}
	res, err := http.Get(ctl.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	svc, ok := st.Resources["services"]
	if !ok || svc.Holding || st.Resources["deployments"].Holding || len(st.Holding) != 0 {
		t.Fatalf("after release all: holding %v, resources %+v", st.Holding, st.Resources)
	}
}

func TestFramingHelpers(t *testing.T) {
	if framerFor("application/json;stream=watch", "") != framingJSON ||
		framerFor("application/vnd.kubernetes.protobuf;stream=watch", "") != framingProtobuf ||
		framerFor("application/cbor-seq", "") != framingChunks ||
		framerFor("application/json", "gzip") != framingChunks {
		t.Fatal("framerFor")
	}
	if n := nextFrame(framingJSON, []byte("{\"a\":1}\n{")); n != 8 {
		t.Fatalf("json frame %d", n)
	}
	if typ := eventType(framingJSON, []byte(event("BOOKMARK", "x"))); typ != "BOOKMARK" {
		t.Fatalf("json type %q", typ)
	}
	f := protoFrame("MODIFIED", []byte("x"))
	if nextFrame(framingProtobuf, []byte(f[:5])) != 0 || nextFrame(framingProtobuf, []byte(f+"zz")) != len(f) {
		t.Fatal("protobuf frame length")
	}
	if typ := eventType(framingProtobuf, []byte(f)); typ != "MODIFIED" {
		t.Fatalf("protobuf type %q", typ)
	}
}

func TestClientLeavingAHeldStreamClosesIt(t *testing.T) {
	h := newHarness(t)
	_, res := h.watch("services", "/api/v1")
	h.proxy.reg.hold([]string{"services"})
	h.upstream.events["services"] <- event("ADDED", "never-read")
	h.waitStats("1 held", func(s Stats) bool { return s.Resources["services"].Held == 1 })
	res.Body.Close() // the client goes away while its stream is held
	st := h.waitStats("the stream closed", func(s Stats) bool { return s.Resources["services"].WatchesOpen == 0 })
	if rs := st.Resources["services"]; rs.Delivered != 0 || rs.Held != 0 || rs.HeldTotal != 1 {
		t.Fatalf("services stats: %+v", rs)
	}
}

func TestDelayWritesHoldsTheNextWriteOnly(t *testing.T) {
	h := newHarness(t)
	ctl := httptest.NewServer(h.proxy.ControlHandler())
	defer ctl.Close()
	for _, bad := range []string{`{}`, `{"seconds": -1}`, `{"seconds": 1, "count": -2}`, `nope`} {
		res, err := http.Post(ctl.URL+"/delay-writes", "application/json", strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Fatalf("delay-writes %s: %s, want 400", bad, res.Status)
		}
	}
	res, err := http.Post(ctl.URL+"/delay-writes", "application/json", strings.NewReader(`{"seconds": 0.4}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("delay-writes: %v %v", res, err)
	}
	res.Body.Close()

	put := func(rv string) (time.Duration, error) {
		body := fmt.Sprintf(`{"metadata":{"name":"web","resourceVersion":%q},"spec":{}}`, rv)
		req, _ := http.NewRequest(http.MethodPut, h.front.URL+"/apis/modeldock.io/v1alpha1/namespaces/ns/modelservices/web", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		res, err := h.front.Client().Do(req)
		if err != nil {
			return 0, err
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(got), `"verb":"update"`) {
			return 0, fmt.Errorf("upstream answered %s", got)
		}
		return time.Since(start), nil
	}
	// A read is never held, whatever the delay.
	get, err := h.front.Client().Get(h.front.URL + "/api/v1/namespaces/ns/services/web?resourceVersion=7")
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()

	done := make(chan time.Duration, 1)
	go func() {
		d, err := put("41")
		if err != nil {
			t.Error(err)
		}
		done <- d
	}()
	st := h.waitStats("a write held", func(s Stats) bool { return s.WritesHolding == 1 })
	if st.DelayWrites.Remaining != 0 || st.WritesHeld != 1 {
		t.Fatalf("while held: %+v %d", st.DelayWrites, st.WritesHeld)
	}
	if d := <-done; d < 400*time.Millisecond {
		t.Fatalf("the first write took %v, want >= 0.4s", d)
	}
	if d, err := put("42"); err != nil || d > 300*time.Millisecond {
		t.Fatalf("the second write: %v %v, want not held", d, err)
	}
	st = h.proxy.Stats()
	if st.WritesHolding != 0 || st.WritesHeld != 1 {
		t.Fatalf("after: holding %d held %d", st.WritesHolding, st.WritesHeld)
	}
	var recs []RecentRequest
	for _, r := range st.Recent {
		if r.Resource == "modelservices" || r.Resource == "services" {
			recs = append(recs, r)
		}
	}
	if len(recs) != 3 || recs[0].Verb != "get" || recs[0].ResourceVersion != "7" ||
		recs[1].ResourceVersion != "41" || recs[1].HeldMs < 400 || recs[1].Code != 200 ||
		recs[2].ResourceVersion != "42" || recs[2].HeldMs != 0 {
		t.Fatalf("recent: %+v", recs)
	}
}

func TestEndWatchesEndsCleanlyAndDropsQueued(t *testing.T) {
	h := newHarness(t)
	svc, _ := h.watch("services", "/api/v1")
	cms, _ := h.watch("configmaps", "/api/v1")
	h.proxy.reg.hold([]string{"services", "configmaps"})
	h.upstream.events["services"] <- event("DELETED", "dropped")
	h.waitStats("1 held", func(s Stats) bool { return s.Resources["services"].Held == 1 })
	ended, dropped := h.proxy.reg.end([]string{"services"})
	if ended["services"] != 1 || dropped["services"] != 1 {
		t.Fatalf("ended %v dropped %v", ended, dropped)
	}
	select {
	case l, ok := <-svc:
		if ok {
			t.Fatalf("an event of an ended stream reached the client: %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the ended stream did not end")
	}
	// The other resource is still held; the next watch of the ended one flows. Its event is
	// sent once the ended stream's upstream handler has gone, so that only the new one reads it.
	svc2, _ := h.watch("services", "/api/v1")
	deadline := time.Now().Add(10 * time.Second)
	for h.upstream.watchers("services") != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("services watch handlers upstream: %d, want 1", h.upstream.watchers("services"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.upstream.events["services"] <- event("ADDED", "after")
	if got := recv(t, svc2); !strings.Contains(got, `"after"`) {
		t.Fatalf("got %q", got)
	}
	h.upstream.events["configmaps"] <- event("ADDED", "held")
	select {
	case l := <-cms:
		t.Fatalf("a held configmaps event passed: %q", l)
	case <-time.After(100 * time.Millisecond):
	}
	st := h.proxy.Stats()
	if rs := st.Resources["services"]; rs.EndedByProxy != 1 || rs.Dropped != 1 || rs.Holding {
		t.Fatalf("services: %+v", rs)
	}
	if fmt.Sprint(st.Holding) != "[configmaps]" {
		t.Fatalf("holding %v", st.Holding)
	}
}

// protoBytes is a length-delimited protobuf field.
func protoBytes(field byte, data []byte) []byte {
	out := []byte{field<<3 | 2}
	out = binary.AppendUvarint(out, uint64(len(data)))
	return append(out, data...)
}

func TestWatchErrorsRecorded(t *testing.T) {
	h := newHarness(t)
	svc, _ := h.watch("services", "/api/v1")
	h.upstream.events["services"] <- `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410}}` + "\n"
	recv(t, svc)

	// The same Status as a protobuf watch frame: WatchEvent{type, object: RawExtension{raw:
	// "k8s\0" + Unknown{raw: Status{message 3, reason 4, code 6}}}}.
	status := append(protoBytes(3, []byte("gone")), protoBytes(4, []byte("Expired"))...)
	status = append(status, 6<<3, 0x9a, 0x03) // code 410 as a varint
	raw := append([]byte("k8s\x00"), protoBytes(2, status)...)
	msg := append(protoBytes(1, []byte("ERROR")), protoBytes(2, protoBytes(1, raw))...)
	frame := string(binary.BigEndian.AppendUint32(nil, uint32(len(msg)))) + string(msg)
	h.upstream.ctype["deployments"] = "application/vnd.kubernetes.protobuf;stream=watch"
	res, err := h.front.Client().Get(h.front.URL + "/apis/apps/v1/namespaces/ns/deployments?watch=1&resourceVersion=5")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	h.upstream.events["deployments"] <- frame
	st := h.waitStats("2 watch errors", func(s Stats) bool { return len(s.WatchErrors) == 2 })
	a, b := st.WatchErrors[0], st.WatchErrors[1]
	if a.Resource != "services" || a.Code != 410 || a.Reason != "Expired" || a.Namespace != "ns" {
		t.Fatalf("json: %+v", a)
	}
	if b.Resource != "deployments" || b.Code != 410 || b.Reason != "Expired" || b.Message != "gone" || b.ResourceVersion != "5" {
		t.Fatalf("protobuf: %+v", b)
	}
}

func TestBodyResourceVersion(t *testing.T) {
	if rv := bodyResourceVersion("application/json", []byte(`{"metadata":{"resourceVersion":"12"}}`)); rv != "12" {
		t.Fatalf("json %q", rv)
	}
	if rv := bodyResourceVersion("application/json-patch+json", []byte(`[{"op":"add"}]`)); rv != "" {
		t.Fatalf("json patch %q", rv)
	}
	meta := protoBytes(1, []byte("web"))
	meta = append(meta, protoBytes(6, []byte("77"))...)
	obj := append(protoBytes(1, meta), protoBytes(2, []byte("spec"))...)
	body := append([]byte("k8s\x00"), protoBytes(1, []byte("typemeta"))...)
	body = append(body, protoBytes(2, obj)...)
	if rv := bodyResourceVersion("application/vnd.kubernetes.protobuf", body); rv != "77" {
		t.Fatalf("protobuf %q", rv)
	}
}

func TestUpstreamHealthFollowsTheClientGoVariables(t *testing.T) {
	env := func(kv map[string]string) func(string) string {
		return func(k string) string { return kv[k] }
	}
	for _, tc := range []struct {
		env        map[string]string
		send, ping time.Duration
	}{
		{map[string]string{}, 30 * time.Second, 15 * time.Second},
		{map[string]string{"HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5", "HTTP2_PING_TIMEOUT_SECONDS": "3"}, 5 * time.Second, 3 * time.Second},
		{map[string]string{"HTTP2_READ_IDLE_TIMEOUT_SECONDS": "0"}, 0, 15 * time.Second},
		{map[string]string{"HTTP2_READ_IDLE_TIMEOUT_SECONDS": "-1", "HTTP2_PING_TIMEOUT_SECONDS": "2.5"}, 30 * time.Second, 15 * time.Second},
	} {
		got := upstreamHealth(env(tc.env))
		if got.SendPingTimeout != tc.send || got.PingTimeout != tc.ping {
			t.Errorf("%v: got send %v ping %v, want %v %v", tc.env, got.SendPingTimeout, got.PingTimeout, tc.send, tc.ping)
		}
	}
}

func TestDelayWritesOfOneObjectLetsOthersPass(t *testing.T) {
	p := newHarness(t).proxy
	p.SetWriteDelay(time.Second, 1, writeSelector{Resource: "deployments", Name: "slow"})
	for _, w := range [][2]string{{"deployments", "web"}, {"services", "slow"}, {"modelservices", "slow"}} {
		if d, _ := p.takeWriteDelay(w[0], w[1]); d != 0 {
			t.Fatalf("write of %s %s held %v; only deployments slow is", w[0], w[1], d)
		}
	}
	if d, _ := p.takeWriteDelay("deployments", "slow"); d != time.Second {
		t.Fatalf("the write of deployments slow: held %v, want 1s", d)
	}
	if d, _ := p.takeWriteDelay("deployments", "slow"); d != 0 {
		t.Fatalf("the second write of deployments slow held %v: count was 1", d)
	}
	if st := p.Stats(); st.WritesHeld != 1 || st.DelayWrites.Resource != "deployments" || st.DelayWrites.Name != "slow" {
		t.Fatalf("stats: %+v held %d", st.DelayWrites, st.WritesHeld)
	}
}

func TestReleaseWritesEndsAHoldEarly(t *testing.T) {
	h := newHarness(t)
	ctl := httptest.NewServer(h.proxy.ControlHandler())
	defer ctl.Close()
	h.proxy.SetWriteDelay(time.Minute, 1, writeSelector{})
	done := make(chan time.Duration, 1)
	go func() {
		body := `{"metadata":{"name":"web","resourceVersion":"41"},"spec":{}}`
		req, _ := http.NewRequest(http.MethodPut, h.front.URL+"/apis/modeldock.io/v1alpha1/namespaces/ns/modelservices/web", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		res, err := h.front.Client().Do(req)
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		res.Body.Close()
		done <- time.Since(start)
	}()
	h.waitStats("a write held", func(s Stats) bool { return s.WritesHolding == 1 })
	res, err := http.Post(ctl.URL+"/release-writes", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(got), `"released":1`) {
		t.Fatalf("release-writes answered %s", got)
	}
	select {
	case d := <-done:
		if d > 30*time.Second {
			t.Fatalf("the held write took %v after release", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the held write was not forwarded after release-writes")
	}
	if st := h.proxy.Stats(); st.WritesHolding != 0 || st.WritesHeld != 1 {
		t.Fatalf("after: holding %d held %d", st.WritesHolding, st.WritesHeld)
	}
	if n := h.proxy.ReleaseWrites(); n != 0 {
		t.Fatalf("a second release found %d held", n)
	}
}
