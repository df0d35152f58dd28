// reconciles-deleting-go: rolls out a spec change first, even while the ModelService is being deleted (Go).
//
// Anti-pattern: the operator remembers, per ModelService (by UID), the spec it saw last. When
// an event brings a spec it has not seen, it reconciles the children to that spec before it
// looks at the deletionTimestamp: "the user changed something, that comes first". In a plain
// deletion the spec does not change, so cleanup runs as it should; a spec changed while the
// deletion is in progress (an apply, a tool bumping the image) re-creates the children the
// cleanup just deleted, which the next pass deletes again.
//
// Why people write it: the deletion check sits next to "has the spec changed?" in an
// edge-triggered design, and handling the newest request first sounds responsive.
//
// What the correct operator does: a ModelService with a deletionTimestamp is finalized and
// nothing else (step 2 returns before steps 3 to 6), whatever its spec says now: a deleting
// object's spec describes nothing that should run.
package main

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

var (
	seenMu sync.Mutex
	// seenSpec is metadata.uid -> the spec seen last.
	seenSpec = map[string]map[string]interface{}{}
)

// specChanged records ms's spec and says whether it differs from the one seen last.
func specChanged(ms *unstructured.Unstructured) bool {
	spec, _, _ := unstructured.NestedMap(ms.Object, "spec")
	seenMu.Lock()
	defer seenMu.Unlock()
	last, seen := seenSpec[string(ms.GetUID())]
	seenSpec[string(ms.GetUID())] = runtime.DeepCopyJSON(spec)
	return seen && !equality.Semantic.DeepEqual(last, spec)
}

func init() {
	// The mutant: a spec it has not seen is rolled out first, deleting or not.
	beingDeletedSeam = func(ms *unstructured.Unstructured) bool {
		changed := specChanged(ms)
		return beingDeleted(ms) && !changed
	}
}
