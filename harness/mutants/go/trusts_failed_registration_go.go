// trusts-failed-registration-go: an answer with an id is taken for a registration, whatever
// its code (Go).
//
// Anti-pattern: the operator reads the catalog's answer for its id and checks the code only
// when there is none, so a 500 whose body still carries an id (a catalog whose storage failed
// after it chose one) is recorded in status.catalog as the registration. The catalog holds no
// effect for that generation, and no retry ever comes.
//
// Why people write it: every answer a test catalog gives with an id is a success, and "parse
// the body, use the id" reads shorter than a status check first.
//
// What the correct operator does: only a 200 or a 201 with an id is a registration; any other
// answer is a failure, retried with backoff under the same key (CONTRACT.md, "The model
// catalog"); external-effect-once[server-error-id] has the catalog answer 500 with an id.
// Here the catalog client's transport turns an answer with an id into a 200, which is what
// register then trusts.
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// idTrustingTransport answers 200 for any answer whose JSON body has an id.
type idTrustingTransport struct{ next http.RoundTripper }

func (t idTrustingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	data, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var answer struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &answer) == nil && answer.ID != "" {
		resp.StatusCode = http.StatusOK
	}
	return resp, nil
}

func init() {
	catalogFromEnvironment = func(getenv func(string) string) (*catalogClient, error) {
		c, err := catalogFromEnv(getenv)
		if c != nil {
			c.http.Transport = idTrustingTransport{next: http.DefaultTransport}
		}
		return c, err
	}
}
