// kept-transition-time-go: a condition whose status changes keeps its old lastTransitionTime (Go).
//
// Anti-pattern: to stop rewriting lastTransitionTime on every reconcile (which costs a write per
// reconcile and destroys "since when has this been so?"), the operator copies the stored time
// into every condition it writes, changed or not. Ready and Progressing then never move their
// time again after the first write: Progressing turning from True to False at a stalled rollout
// still says it has been so since the ModelService was created.
//
// Why people write it: the rule "keep the time" is stated for the common case, a reconcile that
// changes nothing, and the check that the time moves needs a status that changes, which a
// cluster without a deployment controller never shows by itself.
//
// What the correct operator does: it keeps the stored time only when the condition's status is
// the same, and sets it to now (to the second, UTC) when the status changes
// (meta.SetStatusCondition's rule).
package main

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func init() {
	stepStatus = func(ms *unstructured.Unstructured, spec modelServiceSpec, dep *appsv1.Deployment,
		conflict string, now time.Time, refused *refusedWrite) (map[string]interface{}, error) {
		status, err := computeStatus(ms, spec, dep, conflict, now, refused)
		if err != nil {
			return status, err
		}
		stored, _, _ := unstructured.NestedSlice(ms.Object, "status", "conditions")
		conditions, _ := status["conditions"].([]interface{})
		for _, raw := range conditions {
			c, ok := raw.(map[string]interface{})
			if !ok {
				continue
			}
			condType, _ := c["type"].(string)
			// The mutant: a stored time is put back even when the status changed.
			if old := storedCondition(stored, condType); old != nil && old["lastTransitionTime"] != nil {
				c["lastTransitionTime"] = old["lastTransitionTime"]
			}
		}
		return status, nil
	}
}
