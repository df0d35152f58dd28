package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// withLog gives the harness's proxy a request log and returns a reader of its lines.
func withLog(t *testing.T, h *harness) func() []map[string]any {
	path := filepath.Join(t.TempDir(), "requests.jsonl")
	l, err := openReqLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.close)
	h.proxy.SetRequestLog(l)
	return func() []map[string]any {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out []map[string]any
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("bad log line %q: %v", sc.Text(), err)
			}
			out = append(out, m)
		}
		return out
	}
}

func linesOf(lines []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["t"] == kind {
			out = append(out, l)
		}
	}
	return out
}

func (h *harness) do(method, path, body string) (*http.Response, error) {
	req, _ := http.NewRequest(method, h.front.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return h.front.Client().Do(req)
}

func TestRequestLogRecordsRequestsAndDeliveredEvents(t *testing.T) {
	h := newHarness(t)
	read := withLog(t, h)
	svc, _ := h.watch("services", "/api/v1")
	h.upstream.events["services"] <- `{"type":"ADDED","object":{"kind":"Service","metadata":{"name":"web","namespace":"ns","resourceVersion":"7"}}}` + "\n"
	recv(t, svc)
	res, err := h.do("PUT", "/apis/apps/v1/namespaces/ns/deployments/web", `{"metadata":{"resourceVersion":"3"}}`)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(linesOf(read(), "done")) < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	lines := read()
	reqs := linesOf(lines, "req")
	if len(reqs) != 2 {
		t.Fatalf("req lines %v", reqs)
	}
	w, u := reqs[0], reqs[1]
	if w["verb"] != "watch" || w["resource"] != "services" || w["audit_id"] != "audit-1" || w["code"] != 200.0 {
		t.Fatalf("watch line %v", w)
	}
	if u["verb"] != "update" || u["group"] != "apps" || u["resource"] != "deployments" || u["name"] != "web" ||
		u["namespace"] != "ns" || u["code"] != 200.0 || u["audit_id"] != "audit-2" || u["bytes_in"] != 36.0 {
		t.Fatalf("update line %v", u)
	}
	ev := linesOf(lines, "event")
	if len(ev) != 1 || ev[0]["type"] != "ADDED" || ev[0]["kind"] != "Service" || ev[0]["name"] != "web" ||
		ev[0]["rv"] != "7" || ev[0]["id"] != w["id"] {
		t.Fatalf("event lines %v", ev)
	}
	done := linesOf(lines, "done")
	if len(done) != 1 || done[0]["id"] != u["id"] || done[0]["bytes_out"].(float64) <= 0 {
		t.Fatalf("done lines %v (the watch is still open)", done)
	}
}

func TestInjectedStatusIsNotForwarded(t *testing.T) {
	h := newHarness(t)
	read := withLog(t, h)
	h.proxy.writeFaults = []*WriteFault{
		{Nth: 2, Action: actionStatus, Code: 409, Resources: []string{"deployments"}},
		{Nth: 1, Action: actionStatus, Code: 429, RetryAfter: 3, Resources: []string{"services"}},
	}
	codes := []int{}
	var retryAfter string
	for _, path := range []string{"/apis/apps/v1/namespaces/ns/deployments/a", "/api/v1/namespaces/ns/configmaps/c",
		"/apis/apps/v1/namespaces/ns/deployments/b", "/apis/apps/v1/namespaces/ns/deployments/c",
		"/api/v1/namespaces/ns/services/s"} {
		res, err := h.do("PUT", path, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		codes = append(codes, res.StatusCode)
		if res.StatusCode == 409 && !strings.Contains(string(body), `"reason":"Conflict"`) {
			t.Fatalf("409 body %s", body)
		}
		if res.StatusCode == 429 {
			retryAfter = res.Header.Get("Retry-After")
		}
	}
	if !slices.Equal(codes, []int{200, 200, 409, 200, 429}) || retryAfter != "3" {
		t.Fatalf("codes %v, Retry-After %q", codes, retryAfter)
	}
	got := h.upstream.received()
	if slices.Contains(got, "update deployments b") || slices.Contains(got, "update services s") || len(got) != 3 {
		t.Fatalf("the API server received %v", got)
	}
	injected := 0
	for _, l := range linesOf(read(), "req") {
		if l["injected"] == true {
			injected++
			if l["audit_id"] != "" {
				t.Fatalf("an injected answer has an audit id: %v", l)
			}
		}
	}
	if injected != 2 {
		t.Fatalf("injected lines %d", injected)
	}
}

// A bare injected Status has no details at all (apierrors.NewServiceUnavailable's shape); one
// that is not bare names the object in its details.
func TestBareInjectedStatusHasNoDetails(t *testing.T) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{
		{Nth: 1, Action: actionStatus, Code: 503, Bare: true, Resources: []string{"deployments"}},
		{Nth: 2, Action: actionStatus, Code: 500, Resources: []string{"deployments"}},
	}
	for i, want := range []bool{false, true} {
		res, err := h.do("PUT", "/apis/apps/v1/namespaces/ns/deployments/a", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		var status map[string]any
		err = json.NewDecoder(res.Body).Decode(&status)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, has := status["details"]; has != want || status["kind"] != "Status" {
			t.Fatalf("answer %d (code %d): details present %v, want %v: %v", i+1, res.StatusCode, has, want, status)
		}
	}
}

// An injected Status carries the message and the causes it was armed with, as given.
func TestInjectedStatusWordedAsGiven(t *testing.T) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{{Nth: 1, Action: actionStatus, Code: 403, Message: "denied: no",
		Causes: []Cause{{Field: "b", Message: "bad"}, {Field: "a", Message: "worse"}}}}
	res, err := h.do("POST", "/apis/apps/v1/namespaces/ns/deployments", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Message string `json:"message"`
		Details struct {
			Causes []Cause `json:"causes"`
		} `json:"details"`
	}
	err = json.NewDecoder(res.Body).Decode(&status)
	res.Body.Close()
	if err != nil || res.StatusCode != 403 || status.Message != "denied: no" ||
		!slices.Equal(status.Details.Causes, []Cause{{Field: "b", Message: "bad"}, {Field: "a", Message: "worse"}}) {
		t.Fatalf("code %d, %+v, %v", res.StatusCode, status, err)
	}
}

// An injected answer sends the Retry-After header's value as given, and a page answers its
// text as text/html instead of a Status.
func TestInjectedRetryAfterHeaderAndPage(t *testing.T) {
	h := newHarness(t)
	date := "Wed, 21 Oct 2099 07:28:00 GMT"
	h.proxy.writeFaults = []*WriteFault{
		{Nth: 1, Action: actionStatus, Code: 429, RetryAfter: 5, RetryAfterHeader: date},
		{Nth: 2, Action: actionStatus, Code: 502, Page: "<html>bad gateway</html>"},
	}
	res, err := h.do("POST", "/apis/apps/v1/namespaces/ns/deployments", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != date {
		t.Fatalf("code %d, Retry-After %q, want 429 and %q", res.StatusCode, res.Header.Get("Retry-After"), date)
	}
	res, err = h.do("POST", "/apis/apps/v1/namespaces/ns/deployments", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 502 || string(body) != "<html>bad gateway</html>" ||
		res.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("code %d, Content-Type %q, body %q, %v", res.StatusCode, res.Header.Get("Content-Type"), body, err)
	}
}

// A watch fault counts watch starts, not writes, and refuses the nth with its Status (410:
// reason Expired, as the API server refuses a compacted resourceVersion).
func TestWatchFaultRefusesAWatchStart(t *testing.T) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{{Nth: 1, Action: actionStatus, Code: 410, Watch: true, Resources: []string{"services"}}}
	res, err := h.do("PUT", "/api/v1/namespaces/ns/services/s", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == 410 {
		t.Fatalf("a watch fault acted on a write")
	}
	res, err = h.do("GET", "/api/v1/namespaces/ns/services?watch=true&resourceVersion=1", "")
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Reason string `json:"reason"`
	}
	err = json.NewDecoder(res.Body).Decode(&status)
	res.Body.Close()
	if err != nil || res.StatusCode != 410 || status.Reason != "Expired" {
		t.Fatalf("watch start: code %d, reason %q, %v; want 410 Expired", res.StatusCode, status.Reason, err)
	}
}

// Two faults due on the same write (the generator's "fault 500 nth 1" twice before the operator
// writes) act on two consecutive writes, in arming order; neither stays armed unfired. Before,
// the second was counted past its nth on the first write and never acted, yet was reported
// armed. A fault whose nth comes later still waits for it.
func TestTwoFaultsDueOnOneWriteActOnConsecutiveWrites(t *testing.T) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{
		{Nth: 1, Action: actionStatus, Code: 500},
		{Nth: 1, Action: actionStatus, Code: 503},
		{Nth: 2, Action: actionStatus, Code: 429, Resources: []string{"services"}},
		{Nth: 4, Action: actionStatus, Code: 409},
	}
	codes := []int{}
	for _, path := range []string{"/apis/apps/v1/namespaces/ns/deployments/a", "/api/v1/namespaces/ns/services/s",
		"/api/v1/namespaces/ns/services/s", "/apis/apps/v1/namespaces/ns/deployments/a",
		"/apis/apps/v1/namespaces/ns/deployments/a"} {
		res, err := h.do("PUT", path, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		codes = append(codes, res.StatusCode)
	}
	// write 1: the 500 (both nth-1 faults due); 2: the 503, due since write 1 (the services
	// fault has seen 1 of its 2); 3: the 429 (the 2nd services write); 4: the 409 (its 4th
	// write); 5: nothing left.
	if !slices.Equal(codes, []int{500, 503, 429, 409, 200}) {
		t.Fatalf("codes %v", codes)
	}
	for _, f := range h.proxy.faultsLocked() {
		if !f.Fired {
			t.Fatalf("a fault left armed: %+v", f)
		}
	}
	if got := h.upstream.received(); len(got) != 1 {
		t.Fatalf("the API server received %v", got)
	}
}

// crashRun arms a crash at the 2nd deployments write, sends three writes in turn from a
// client, and returns what the client saw of each (code, or -1 for no response).
func crashRun(t *testing.T, action string) (*harness, []int, CrashReport) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{{Nth: 2, Action: action, Resources: []string{"deployments"}}}
	results := make(chan int, 3)
	go func() {
		for _, name := range []string{"a", "b", "c"} {
			res, err := h.do("PUT", "/apis/apps/v1/namespaces/ns/deployments/"+name, `{}`)
			if err != nil {
				results <- -1
				continue
			}
			_, err = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if err != nil {
				results <- -1
				continue
			}
			results <- res.StatusCode
		}
	}()
	report := h.proxy.WaitCrash(context.Background(), 10*time.Second)
	if !report.Triggered || report.Request.Name != "b" {
		t.Fatalf("crash report %+v", report)
	}
	var seen []int
	// Until the ack, nothing more reaches the API server.
	if action == actionCrashDelivered {
		seen = append(seen, <-results, <-results) // a, then b delivered
	} else {
		seen = append(seen, <-results)
		select {
		case r := <-results:
			t.Fatalf("the withheld write's response arrived before the ack: %d", r)
		case <-time.After(200 * time.Millisecond):
		}
	}
	time.Sleep(100 * time.Millisecond)
	if got := h.upstream.received(); !slices.Equal(got, []string{"update deployments a", "update deployments b"}) {
		t.Fatalf("while frozen the API server received %v", got)
	}
	if !h.proxy.AckCrash() {
		t.Fatal("no crash to ack")
	}
	for len(seen) < 3 {
		select {
		case r := <-results:
			seen = append(seen, r)
		case <-time.After(10 * time.Second):
			t.Fatalf("client stuck after the ack; saw %v", seen)
		}
	}
	return h, seen, report
}

func TestCrashWithheld(t *testing.T) {
	h, seen, report := crashRun(t, actionCrashWithheld)
	if report.Variant != "withheld" || report.Request.Code != 200 {
		t.Fatalf("report %+v", report)
	}
	// a answered; b applied upstream but its response never delivered; this client lives on
	// (an operator would be dead by now), so c, sent after the ack, passes.
	if !slices.Equal(seen, []int{200, -1, 200}) {
		t.Fatalf("client saw %v", seen)
	}
	if got := h.upstream.received(); len(got) != 3 {
		t.Fatalf("upstream received %v", got)
	}
}

func TestCrashDelivered(t *testing.T) {
	h, seen, report := crashRun(t, actionCrashDelivered)
	if report.Variant != "delivered" {
		t.Fatalf("report %+v", report)
	}
	if !slices.Equal(seen, []int{200, 200, -1}) {
		t.Fatalf("client saw %v", seen)
	}
	if got := h.upstream.received(); len(got) != 2 {
		t.Fatalf("upstream received %v", got)
	}
}

// TestHoldAnswer: the 1st modelservices write is forwarded at once, its answer kept back
// while other requests of the client pass, and delivered, as the API server gave it, on
// release.
func TestHoldAnswer(t *testing.T) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{{Nth: 1, Action: actionHoldAnswer, Resources: []string{"modelservices"}}}
	answered := make(chan int, 1)
	go func() {
		res, err := h.do("PUT", "/apis/modeldock.io/v1alpha1/namespaces/ns/modelservices/web", `{}`)
		if err != nil {
			answered <- -1
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		answered <- res.StatusCode
	}()
	report := h.proxy.WaitAnswer(context.Background(), 10*time.Second)
	if !report.Held || report.Request.Name != "web" || report.Request.Code != 200 {
		t.Fatalf("answer report %+v", report)
	}
	if got := h.upstream.received(); !slices.Equal(got, []string{"update modelservices web"}) {
		t.Fatalf("the API server received %v", got)
	}
	// Another request of the same client passes while the answer is held.
	res, err := h.do("PUT", "/apis/apps/v1/namespaces/ns/deployments/web", `{}`)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("a request beside the held answer: %v %v", res, err)
	}
	res.Body.Close()
	select {
	case code := <-answered:
		t.Fatalf("the held answer arrived before the release: %d", code)
	case <-time.After(200 * time.Millisecond):
	}
	if !h.proxy.ReleaseAnswer() {
		t.Fatal("no held answer to release")
	}
	select {
	case code := <-answered:
		if code != 200 {
			t.Fatalf("released answer %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer never arrived after the release")
	}
	if r := h.proxy.WaitAnswer(context.Background(), 0); r.Armed || r.Held {
		t.Fatalf("after the release: %+v", r)
	}
}

func TestWaitCrashTimesOutWhenNotReached(t *testing.T) {
	h := newHarness(t)
	h.proxy.writeFaults = []*WriteFault{{Nth: 5, Action: actionCrashWithheld}}
	started := time.Now()
	r := h.proxy.WaitCrash(context.Background(), 100*time.Millisecond)
	if r.Triggered || !r.Armed || time.Since(started) < 100*time.Millisecond {
		t.Fatalf("report %+v", r)
	}
}

func svcEvent(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Service","metadata":{"name":%q,"namespace":"ns","resourceVersion":%q}}}`+"\n", typ, name, rv)
}

func TestDelayedEventsArriveLateInOrder(t *testing.T) {
	h := newHarness(t)
	read := withLog(t, h)
	h.proxy.reg.setEventRules([]string{"services"}, EventRule{Delay: 300 * time.Millisecond})
	svc, _ := h.watch("services", "/api/v1")
	cms, _ := h.watch("configmaps", "/api/v1")
	sent := time.Now()
	h.upstream.events["services"] <- svcEvent("ADDED", "a", "1")
	h.upstream.events["services"] <- svcEvent("MODIFIED", "a", "2")
	h.upstream.events["configmaps"] <- event("ADDED", "cm")
	recv(t, cms)
	if time.Since(sent) > 250*time.Millisecond {
		t.Fatal("an undelayed resource was delayed")
	}
	first := recv(t, svc)
	if d := time.Since(sent); d < 290*time.Millisecond {
		t.Fatalf("delayed event arrived after %v", d)
	}
	second := recv(t, svc)
	if !strings.Contains(first, `"1"`) || !strings.Contains(second, `"2"`) {
		t.Fatalf("order: %q then %q", first, second)
	}
	if st := h.proxy.Stats().Resources["services"]; st.Delayed != 2 || st.Coalesced != 0 {
		t.Fatalf("stats %+v", st)
	}
	// The request log says how long each delayed event was kept (the premise explore reads),
	// and nothing of an event no rule delayed.
	deadline := time.Now().Add(5 * time.Second)
	for len(linesOf(read(), "event")) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for _, ev := range linesOf(read(), "event") {
		ms, ok := ev["delayed_ms"].(float64)
		if ev["kind"] == "Service" && (!ok || ms < 300) {
			t.Fatalf("delayed event logged without its delay >= 300 ms: %v", ev)
		}
		if ev["kind"] != "Service" && ok {
			t.Fatalf("undelayed event logged with a delay: %v", ev)
		}
	}
}

func TestCoalescedEventsKeepOnlyTheLastState(t *testing.T) {
	h := newHarness(t)
	h.proxy.reg.setEventRules([]string{"services"}, EventRule{Delay: 300 * time.Millisecond, Coalesce: true})
	svc, _ := h.watch("services", "/api/v1")
	for _, ev := range []string{
		svcEvent("ADDED", "a", "1"), svcEvent("MODIFIED", "a", "2"), svcEvent("MODIFIED", "a", "3"), // ADDED a@3
		svcEvent("MODIFIED", "b", "4"), svcEvent("DELETED", "b", "5"), // DELETED b@5
		svcEvent("ADDED", "c", "6"), svcEvent("DELETED", "c", "7"), // both: a life is never hidden
		svcEvent("DELETED", "d", "8"), svcEvent("ADDED", "d", "9"), // MODIFIED d@9
		// a new object under e's name after e's whole life: e's ADDED, then the new one
		svcEvent("ADDED", "e", "10"), svcEvent("DELETED", "e", "11"), svcEvent("ADDED", "e", "12"),
		`{"type":"BOOKMARK","object":{"kind":"Service","metadata":{"resourceVersion":"13"}}}` + "\n",
	} {
		h.upstream.events["services"] <- ev
	}
	var got []string
	for range 8 {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct{ Name, ResourceVersion string }
			} `json:"object"`
		}
		line := recv(t, svc)
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, ev.Type+" "+ev.Object.Metadata.Name+"@"+ev.Object.Metadata.ResourceVersion)
	}
	want := []string{"ADDED a@3", "DELETED b@5", "ADDED c@6", "DELETED c@7", "MODIFIED d@9", "ADDED e@10", "MODIFIED e@12", "BOOKMARK @13"}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	select {
	case l := <-svc:
		t.Fatalf("more delivered: %q", l)
	case <-time.After(100 * time.Millisecond):
	}
	if st := h.proxy.Stats().Resources["services"]; st.Coalesced != 5 || st.Delivered != 8 {
		t.Fatalf("stats %+v", st)
	}
}

func TestFaultControlAPI(t *testing.T) {
	h := newHarness(t)
	mux := http.NewServeMux()
	h.proxy.faultHandlers(mux)
	call := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, path, strings.NewReader(body))
		rec := &recorder{header: http.Header{}}
		mux.ServeHTTP(rec, req)
		return rec.code, rec.body.String()
	}
	if code, body := call("POST", "/faults/write", `{"nth": 0, "action": "status", "code": 409}`); code != 400 {
		t.Fatalf("nth 0: %d %s", code, body)
	}
	if code, body := call("POST", "/faults/write", `{"nth": 1, "action": "status", "code": 200}`); code != 400 {
		t.Fatalf("code 200: %d %s", code, body)
	}
	if code, body := call("POST", "/faults/write", `{"nth": 3, "action": "crash-withheld", "resources": ["services"]}`); code != 200 || !strings.Contains(body, `"nth":3`) {
		t.Fatalf("arm: %d %s", code, body)
	}
	if code, body := call("POST", "/faults/events", `{"resources": ["deployments"], "seconds": 2, "coalesce": true}`); code != 200 || !strings.Contains(body, `"coalesce":true`) {
		t.Fatalf("events: %d %s", code, body)
	}
	if code, body := call("GET", "/faults/crash?wait=0", ""); code != 200 || !strings.Contains(body, `"armed":true`) || !strings.Contains(body, `"triggered":false`) {
		t.Fatalf("crash: %d %s", code, body)
	}
	if code, body := call("POST", "/faults/clear", `{}`); code != 200 {
		t.Fatalf("clear: %d %s", code, body)
	}
	if code, body := call("GET", "/faults", ""); code != 200 || !strings.Contains(body, `"write_faults":[]`) || !strings.Contains(body, `"event_rules":{}`) {
		t.Fatalf("after clear: %d %s", code, body)
	}
}

// recorder is a minimal http.ResponseWriter.
type recorder struct {
	header http.Header
	code   int
	body   strings.Builder
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = 200
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) { r.code = code }

// A client that goes away before its request body is complete (an operator killed between
// the headers and the body) must not reach the API server: the API server would fail the
// half request with a 500 that only its audit log has.
func TestClientGoneMidBodyIsNotForwarded(t *testing.T) {
	h := newHarness(t)
	lines := withLog(t, h)
	conn, err := tls.Dial("tcp", h.front.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /api/v1/namespaces/ns/events HTTP/1.1\r\nHost: x\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"metadata\":")
	time.Sleep(50 * time.Millisecond) // the proxy has the headers and waits for the rest
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	var reqs []map[string]any
	for len(reqs) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		reqs = linesOf(lines(), "req")
	}
	if len(reqs) != 1 || reqs[0]["reason"] != reasonClientBodyIncomplete || reqs[0]["verb"] != "create" {
		t.Fatalf("want one create line with reason %s, got %v", reasonClientBodyIncomplete, reqs)
	}
	if got := h.upstream.received(); len(got) != 0 {
		t.Fatalf("the half request reached the API server: %v", got)
	}
}

// Settle waits until every forwarded request has its answer logged: the API server has
// applied a write before its answer reaches the proxy, and a check that saw the effect must
// find the request in the log once it has settled.
func TestSettleWaitsForForwardedAnswers(t *testing.T) {
	arrived, answer := make(chan struct{}), make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			close(arrived)
			<-answer
		}
		w.Header().Set("Audit-Id", "a1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"Status"}`)
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	p := NewProxy(u, http.DefaultTransport.(*http.Transport).Clone(), log.New(io.Discard, "", 0))
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	h := &harness{t: t, proxy: p, front: front}
	lines := withLog(t, h)
	if left := p.Settle(10 * time.Millisecond); left != 0 {
		t.Fatalf("nothing in flight, Settle says %d unanswered", left)
	}
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPut, front.URL+"/api/v1/namespaces/ns/services/web", strings.NewReader(`{}`))
		res, err := front.Client().Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	<-arrived
	if left := p.Settle(50 * time.Millisecond); left != 1 {
		t.Fatalf("one write awaits its answer, Settle says %d unanswered", left)
	}
	go func() { time.Sleep(50 * time.Millisecond); close(answer) }()
	if left := p.Settle(5 * time.Second); left != 0 {
		t.Fatalf("the answer came, Settle says %d unanswered", left)
	}
	if reqs := linesOf(lines(), "req"); len(reqs) != 1 || reqs[0]["verb"] != "update" {
		t.Fatalf("once settled the update's line must be in the log, got %v", reqs)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
