// object-request-key-go: the catalog's idempotency key names the object, not the request (Go).
//
// Anti-pattern: the key is the ModelService's UID alone. A retry of one generation is
// recognised, but a new generation is taken by the catalog for a retry of the first
// registration, answered with the original and never registered; the status then claims a
// registration of generation 2 the catalog never made.
//
// Why people write it: "the UID is the durable identity" is half the lesson; one object makes
// many requests, and each needs an identity of its own.
//
// What the correct operator does: "<metadata.uid>/<metadata.generation>" (catalog.go's
// requestKey), as the Python operator's request_key.
package main

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

func init() {
	// The mutant: one key per object, for every generation.
	catalogRequestKey = func(ms *unstructured.Unstructured) string { return string(ms.GetUID()) }
}
