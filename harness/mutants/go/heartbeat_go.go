// heartbeat-go: writes the status every 20 s whether anything changed or not (Go).
//
// Anti-pattern: a Reconcile that finds nothing to do returns RequeueAfter 20s, and step 6
// stamps the Ready condition's lastTransitionTime with the start of the current 20 s period,
// so each of those timed reconciles finds the status "changed" and writes it: a liveness
// signal in the object. Nothing the user asked for changes, but every ModelService costs a
// status write, a watch event to every client and an etcd revision every 20 s, for ever.
//
// Why people write it: a periodic RequeueAfter with a "last seen" time looks like a cheap
// health signal, and its writes are invisible in any window of a few seconds after a change.
//
// What the correct operator does: it requeues only when something it depends on cannot send
// an event (a foreign child, a deletion waiting for the cache), and a condition's
// lastTransitionTime moves only when its status does: with nothing changing, it makes no
// request at all.
package main

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
)

// heartbeatPeriod is the heartbeat's period.
const heartbeatPeriod = 20 * time.Second

func init() {
	// The mutant: a timed requeue after every settled reconcile ...
	settledResult = func() ctrl.Result { return ctrl.Result{RequeueAfter: heartbeatPeriod} }
	// ... and a Ready condition stamped with the current period, so each one writes.
	stepStatus = func(ms *unstructured.Unstructured, spec modelServiceSpec, dep *appsv1.Deployment,
		conflict string, now time.Time, refused *refusedWrite) (map[string]interface{}, error) {
		status, err := computeStatus(ms, spec, dep, conflict, now, refused)
		if err != nil {
			return status, err
		}
		stamp := now.Truncate(heartbeatPeriod).UTC().Format(time.RFC3339)
		conditions, _ := status["conditions"].([]interface{})
		for _, raw := range conditions {
			if c, ok := raw.(map[string]interface{}); ok && c["type"] == conditionReady {
				c["lastTransitionTime"] = stamp
			}
		}
		return status, nil
	}
}
