package main

// A refused request's Kubernetes Status (reason, message), read from the API server's answer so
// the request log carries what the audit log's responseStatus carries. Both encodings the API
// server answers in are read: JSON (kubectl, the Python client, client-go for custom resources)
// and the Kubernetes protobuf envelope (client-go's built-in types when asked for protobuf).

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxStatusBytes bounds how much of an error answer is read to find its Status. A Status is
// usually a few hundred bytes, but an admission policy's or webhook's refusal carries its
// message (refused-write-reported[admission-refused-create] sends one of 40 000 characters, and
// the Status holds it twice, in message and in details): 1 MiB reads every such refusal whole
// (the audit log records it whole too), and anything larger is passed on untouched, unread.
const maxStatusBytes = 1 << 20

// readStatus returns the reason and message of res's Status when res is an error answer (code
// >= 400) small enough to read whole, without compression; it puts the bytes it read back in
// res.Body so the client receives the answer unchanged. Anything else: "", "".
func readStatus(res *http.Response) (reason, message string) {
	if res.StatusCode < 400 || res.Body == nil || res.Header.Get("Content-Encoding") != "" {
		return "", ""
	}
	if res.ContentLength > maxStatusBytes {
		return "", ""
	}
	buf, err := io.ReadAll(io.LimitReader(res.Body, maxStatusBytes+1))
	rest := res.Body
	res.Body = readCloser{io.MultiReader(bytes.NewReader(buf), rest), rest}
	if err != nil || len(buf) > maxStatusBytes {
		return "", ""
	}
	return parseStatus(res.Header.Get("Content-Type"), buf)
}

// parseStatus reads a metav1.Status's reason and message from body in the given content type.
func parseStatus(contentType string, body []byte) (reason, message string) {
	if strings.Contains(contentType, "protobuf") || bytes.HasPrefix(body, protobufMagic) {
		return parseProtobufStatus(body)
	}
	var st struct {
		Kind    string `json:"kind"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" {
		return "", ""
	}
	return st.Reason, st.Message
}

// parseProtobufStatus reads the Status inside a Kubernetes protobuf envelope: message (field
// 3) and reason (field 4), as apimachinery v0.34's generated.proto numbers them.
func parseProtobufStatus(body []byte) (reason, message string) {
	status, ok := unwrapProtobuf(body)
	if !ok {
		return "", ""
	}
	r, _, _ := pbField(status, 4)
	m, _, _ := pbField(status, 3)
	return string(r), string(m)
}
