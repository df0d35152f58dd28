// remembers-status-go: compares the status with the one it believes it wrote, not the stored one (Go).
//
// Anti-pattern: the operator keeps, per ModelService (by UID), the last status it computed for
// a write, without the conditions' lastTransitionTime, and when a reconcile computes the same
// one it writes nothing: "I wrote this already, the cache is just behind". When that write did
// not happen (a 409, a 500, a 429), or someone else has overwritten the status since, the
// memory still says it is there: every later reconcile computes the same status, finds it
// equal to the memory and writes nothing, and the stored status stays wrong until the spec
// changes or the process restarts.
//
// Why people write it: the informer cache lags the operator's own writes, so the next
// reconcile often reads the old status and writes the same new one again, which costs a write
// and, with a stale resourceVersion, a 409. Remembering what was written removes those in every
// run where nobody else writes the status and no write fails.
//
// What the correct operator does: it compares the computed status with the status stored on
// the object it read, and lets a stale read end in a 409 and a requeue; nothing it wrote or
// computed before is taken for what the cluster holds.
package main

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

var (
	sentMu sync.Mutex
	// sent is metadata.uid -> the status last computed for a write, without timestamps.
	sent = map[string]map[string]interface{}{}
)

// withoutTimestamps is a copy of status whose conditions have no lastTransitionTime.
func withoutTimestamps(status map[string]interface{}) map[string]interface{} {
	out := runtime.DeepCopyJSON(status)
	conditions, _ := out["conditions"].([]interface{})
	for _, raw := range conditions {
		if c, ok := raw.(map[string]interface{}); ok {
			delete(c, "lastTransitionTime")
		}
	}
	return out
}

// writtenAlready records status as sent for ms and says whether the memory held it already.
func writtenAlready(ms *unstructured.Unstructured, status map[string]interface{}) bool {
	key, bare := string(ms.GetUID()), withoutTimestamps(status)
	sentMu.Lock()
	defer sentMu.Unlock()
	last, ok := sent[key]
	sent[key] = bare
	return ok && equality.Semantic.DeepEqual(last, bare)
}

func init() {
	// The mutant: a status equal to the remembered one is "written already": step 6 is
	// handed the stored status, so it writes nothing.
	stepStatus = func(ms *unstructured.Unstructured, spec modelServiceSpec, dep *appsv1.Deployment,
		conflict string, now time.Time, refused *refusedWrite) (map[string]interface{}, error) {
		status, err := computeStatus(ms, spec, dep, conflict, now, refused)
		if err != nil || !writtenAlready(ms, status) {
			return status, err
		}
		stored, _, _ := unstructured.NestedMap(ms.Object, "status")
		return stored, nil
	}
}
