// time-by-position-go: finds its stored condition by position, not by type: a foreign condition's time becomes its own (Go).
//
// Anti-pattern: to keep a condition's lastTransitionTime while its status does not change, the
// operator looks up "the stored condition" as the first one in status.conditions, which is its
// own as long as it wrote the list alone. Once another controller's condition is stored first
// (status.conditions is a map keyed by type, and other controllers may add their own types),
// Ready or Progressing takes that condition's time whenever the statuses match, and the status
// is written again for it.
//
// Why people write it: in every test the operator's own conditions are the whole list, and
// Ready is first.
//
// What the correct operator does: it keeps the stored time of the stored condition of the same
// type, found by type (storedCondition).
package main

import (
	"slices"
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
		if len(stored) == 0 {
			return status, nil
		}
		first, _ := stored[0].(map[string]interface{})
		conditions, _ := status["conditions"].([]interface{})
		// The mutant: "the stored condition" is the first one stored, whatever its type.
		for _, raw := range conditions {
			c, ok := raw.(map[string]interface{})
			condType, _ := c["type"].(string)
			if !ok || first == nil || !slices.Contains(ownedConditions, condType) {
				continue
			}
			if first["status"] == c["status"] && first["lastTransitionTime"] != nil {
				c["lastTransitionTime"] = first["lastTransitionTime"]
			}
		}
		return status, nil
	}
}
