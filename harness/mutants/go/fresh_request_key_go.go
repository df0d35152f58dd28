// fresh-request-key-go: every attempt to register a generation with the catalog is a new
// request (Go).
//
// Anti-pattern: the idempotency key is made up when the request is sent (a random UUID per
// call) instead of derived from something durable. The catalog cannot tell a retry from a new
// registration: when a registration was recorded and its answer lost (the process killed
// while waiting, the status write that would have recorded it refused with a 409), the next
// reconcile registers the same generation again, and the catalog holds two effects.
//
// Why people write it: a random key per request is what many examples show, and nothing fails
// without a crash or a conflict at the wrong moment.
//
// What the correct operator does: the key is "<metadata.uid>/<metadata.generation>"
// (catalog.go's requestKey), the same in every attempt, process and leader, as the Python
// operator's request_key.
package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/uuid"
)

func init() {
	// The mutant: a new key per attempt.
	catalogRequestKey = func(*unstructured.Unstructured) string { return string(uuid.NewUUID()) }
}
