// ready-when-available-go: judges the rollout by availability alone (Go).
//
// Anti-pattern: the status says Ready=True and Progressing=False RolloutComplete as soon as the
// Deployment has observed its generation and availableReplicas reaches spec.replicas, whatever
// else its status says: how many replicas run the current template (updatedReplicas), whether
// old ones are still terminating, whether the deployment controller gave up on the rollout
// (its Progressing condition ProgressDeadlineExceeded). In the middle of a rolling update it
// says Ready while old pods serve, and a stalled rollout stays "in progress" for ever.
//
// Why people write it: "available replicas = desired replicas" is the first definition of
// ready that comes to mind, it is right whenever no rollout is under way (creation, scaling),
// and a rolling update on a test cluster is over before anyone reads the status in between.
//
// What the correct operator does: it judges the Deployment as kubectl rollout status does, in
// its order (judgeRollout): the generation observed, then the progress deadline, then
// updatedReplicas against spec.replicas, old replicas pending termination, and the updated
// replicas available; Ready=True only once all of that holds, and a stalled rollout reported
// as Progressing=False ProgressDeadlineExceeded with the Deployment's message.
package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// judgeByAvailability is the mutant's judgement: observed and enough available is
// "complete"; nothing else is looked at.
func judgeByAvailability(name string, dep *appsv1.Deployment) (string, string) {
	if dep == nil {
		dep = &appsv1.Deployment{}
	}
	replicas := int32(defaultReplicas)
	if dep.Spec.Replicas != nil {
		replicas = *dep.Spec.Replicas
	}
	available := dep.Status.AvailableReplicas
	message := fmt.Sprintf("Deployment \"%s\" has %d/%d available replicas", name, available, replicas)
	if dep.Status.ObservedGeneration < dep.Generation || available < replicas {
		return rolloutProgressing, message
	}
	return rolloutComplete, message
}

func init() {
	judgeDeploymentRollout = judgeByAvailability
}
