package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"strings"
	"testing"
)

func protoField(num uint64, value []byte) []byte {
	b := binary.AppendUvarint(nil, num<<3|2)
	b = binary.AppendUvarint(b, uint64(len(value)))
	return append(b, value...)
}

func TestParseStatusJSON(t *testing.T) {
	body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Operation cannot be fulfilled on modelservices \"web\": the object has been modified","reason":"Conflict","code":409}`
	reason, message := parseStatus("application/json", []byte(body))
	if reason != "Conflict" || !strings.HasPrefix(message, "Operation cannot be fulfilled") {
		t.Fatalf("got %q %q", reason, message)
	}
	if r, m := parseStatus("application/json", []byte(`{"kind":"ModelService"}`)); r != "" || m != "" {
		t.Fatalf("a body that is not a Status gave %q %q", r, m)
	}
}

func TestParseStatusProtobuf(t *testing.T) {
	status := append(protoField(2, []byte("Failure")), protoField(3, []byte("deployments.apps \"web\" already exists"))...)
	status = append(status, protoField(4, []byte("AlreadyExists"))...)
	status = append(status, 0x30, 0x99, 0x03) // code (6) = 409, a varint
	typeMeta := append(protoField(1, []byte("v1")), protoField(2, []byte("Status"))...)
	body := append(append([]byte{}, protobufMagic...), protoField(1, typeMeta)...)
	body = append(body, protoField(2, status)...)
	reason, message := parseStatus("application/vnd.kubernetes.protobuf", body)
	if reason != "AlreadyExists" || message != `deployments.apps "web" already exists` {
		t.Fatalf("got %q %q", reason, message)
	}
	if r, m := parseStatus("application/vnd.kubernetes.protobuf", body[:len(body)-9]); r != "" || m != "" {
		t.Fatalf("a truncated body gave %q %q", r, m)
	}
}

func TestReadStatusLeavesTheBodyWhole(t *testing.T) {
	body := `{"kind":"Status","reason":"Forbidden","message":"no"}`
	res := &http.Response{StatusCode: 403, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
	reason, message := readStatus(res)
	if reason != "Forbidden" || message != "no" {
		t.Fatalf("got %q %q", reason, message)
	}
	got, _ := io.ReadAll(res.Body)
	if !bytes.Equal(got, []byte(body)) {
		t.Fatalf("the client would receive %q", got)
	}
	ok := &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}"))}
	if r, _ := readStatus(ok); r != "" {
		t.Fatal("a 200 must not be read")
	}
}

// An admission policy's refusal carries its whole message, twice (message and details): one of
// 40 000 characters must still be read, or the request log has no reason where the audit log
// has one (accounting-check, refused-write-reported[admission-refused-create]).
func TestReadStatusReadsALongRefusal(t *testing.T) {
	long := strings.Repeat("x", 40000)
	body := `{"kind":"Status","reason":"Forbidden","message":"` + long + `","details":{"causes":[{"message":"` + long + `"}]}}`
	res := &http.Response{StatusCode: 403, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
	reason, message := readStatus(res)
	if reason != "Forbidden" || message != long {
		t.Fatalf("got reason %q and a message of %d characters", reason, len(message))
	}
	got, _ := io.ReadAll(res.Body)
	if !bytes.Equal(got, []byte(body)) {
		t.Fatal("the client would not receive the answer whole")
	}
}
