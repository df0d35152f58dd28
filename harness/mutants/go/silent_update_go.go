// silent-update-go: updates a child without recording an Event (Go).
//
// Anti-pattern: the operator records an Event when it creates or deletes a child, but its update
// path writes the child and says nothing: a ModelService scaled from 1 to 2 replicas, or a
// hand-edited Deployment put back, leaves no UpdatedDeployment in kubectl describe. The user
// who wonders why their edit of the Deployment was undone finds no trace of who undid it.
//
// Why people write it: the create path is written first and gets its Event; the update path is
// added later (or an error between the write and the Event skips it), and tests look for the
// Events of a create and a delete only.
//
// What the correct operator does: every change it makes to a child is an Event about the
// ModelService: Created, Updated and Deleted <Kind>, each recorded right after the write that
// succeeded (CONTRACT.md, "Events"), so events-recorded sees UpdatedDeployment after a spec
// change.
package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// noUpdateEvents passes every Event on to its recorder, but Updated<Kind>.
type noUpdateEvents struct {
	record.EventRecorder
}

func (n noUpdateEvents) Event(obj runtime.Object, eventType, reason, message string) {
	// The mutant: an update of a child is not told.
	if reason == "UpdatedDeployment" || reason == "UpdatedService" {
		return
	}
	n.EventRecorder.Event(obj, eventType, reason, message)
}

func init() {
	controllerReconciler = func(r *ModelServiceReconciler) reconcile.Reconciler {
		if r.Recorder != nil {
			r.Recorder = noUpdateEvents{r.Recorder}
		}
		return r
	}
}
