// status-from-memory-go: recomputes the status only when a generation changed; otherwise returns the status it computed last (Go).
//
// Anti-pattern: the operator keeps, per ModelService (by UID), the status it last computed and
// what it was computed from: the ModelService's generation, the Deployment's UID and
// generation, the conflict and the refusal it reported. When a reconcile finds the same ones,
// it takes the remembered status instead of computing a new one: "nothing that I depend on
// has changed". A change of the Deployment's status (the deployment controller's writes, which
// move no generation) never reaches the conditions: the ModelService does not report a
// rollout finishing, or a replica lost.
//
// Why people write it: generations look like the one signal of change that Kubernetes offers,
// and computing the status "only when something changed" saves work on every resync.
//
// What the correct operator does: every reconcile computes the status from the Deployment as
// its cache holds it now, status included, and writes it when it differs from the stored one.
package main

import (
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// remembered is a status computed, and what it was computed from.
type remembered struct {
	basis  string
	status map[string]interface{}
}

var (
	memoryMu sync.Mutex
	// memory is metadata.uid -> the status last computed.
	memory = map[string]remembered{}
)

// statusBasis is what the mutant believes the status depends on.
func statusBasis(ms *unstructured.Unstructured, dep *appsv1.Deployment, conflict string, refused *refusedWrite) string {
	depUID, depGeneration := "", int64(0)
	if dep != nil {
		depUID, depGeneration = string(dep.UID), dep.Generation
	}
	refusal := ""
	if refused != nil {
		refusal = refused.Error()
	}
	return fmt.Sprintf("%d|%s|%d|%s|%s", ms.GetGeneration(), depUID, depGeneration, conflict, refusal)
}

// fromMemory is the remembered status of ms when basis is what it was computed from.
func fromMemory(ms *unstructured.Unstructured, basis string) (map[string]interface{}, bool) {
	memoryMu.Lock()
	defer memoryMu.Unlock()
	got, ok := memory[string(ms.GetUID())]
	if !ok || got.basis != basis {
		return nil, false
	}
	return runtime.DeepCopyJSON(got.status), true
}

// remember records status as computed for ms from basis.
func remember(ms *unstructured.Unstructured, basis string, status map[string]interface{}) {
	memoryMu.Lock()
	defer memoryMu.Unlock()
	memory[string(ms.GetUID())] = remembered{basis: basis, status: runtime.DeepCopyJSON(status)}
}

func init() {
	// The mutant: "nothing I depend on changed", so the last status it computed.
	stepStatus = func(ms *unstructured.Unstructured, spec modelServiceSpec, dep *appsv1.Deployment,
		conflict string, now time.Time, refused *refusedWrite) (map[string]interface{}, error) {
		basis := statusBasis(ms, dep, conflict, refused)
		if status, ok := fromMemory(ms, basis); ok {
			return status, nil
		}
		status, err := computeStatus(ms, spec, dep, conflict, now, refused)
		if err == nil {
			remember(ms, basis, status)
		}
		return status, err
	}
}
