// sticky-reason-go: rewrites a condition's reason only when its status changes (Go).
//
// Anti-pattern: the operator treats a condition as its status alone: while Ready stays False it
// keeps the reason stored first, so a rollout that stops progressing (the Deployment's
// ProgressDeadlineExceeded) is still reported as Ready False ReplicasUnavailable, next to a
// message that says the deadline passed. Tools and users that switch on the reason (alerts,
// kubectl wait --for=jsonpath) never see the stall.
//
// Why people write it: lastTransitionTime must move only when the status changes, and the
// same "only on a status change" guard is easily put around the whole condition; most changes
// of a condition do change its status, so tests that watch transitions pass.
//
// What the correct operator does: it sets reason, message and observedGeneration on every
// reconcile, as meta.SetStatusCondition does, and moves lastTransitionTime only when the status
// changes; a change of the reason alone is a change of the status that is written
// (progressing-without-kubelet plays one).
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
			if !ok || (c["type"] != conditionReady && c["type"] != conditionProgressing) {
				continue
			}
			for _, s := range stored {
				old, _ := s.(map[string]interface{})
				// The mutant: while the status holds, the stored reason stays.
				if old["type"] == c["type"] && old["status"] == c["status"] && old["reason"] != nil {
					c["reason"] = old["reason"]
				}
			}
		}
		return status, nil
	}
}
