// scale-down-progressing-go: more updated replicas than spec.replicas is a rollout in progress: a scale-down is never Ready (Go).
//
// Anti-pattern: the rollout is judged complete only when status.updatedReplicas equals
// spec.replicas, not when it reaches it. After a scale-down the deployment controller observes
// the new spec at once and removes the surplus pods afterwards; meanwhile every replica is of
// the current template and available, and kubectl rollout status says the rollout is done. The
// operator says Ready=False, "has 4/2 updated replicas", until the last surplus pod is gone.
//
// Why people write it: "updated equals wanted" reads as the same test as "updated has reached
// wanted", and a rollout that only grows never tells them apart.
//
// What the correct operator does: it judges as kubectl rollout status does (CONTRACT.md,
// "Status"): only fewer updated replicas than spec.replicas is a rollout in progress
// (status-rebuilt[deployment-status]).
package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// judgeExactCount is judgeRollout, but a complete rollout with more updated replicas than
// spec.replicas is in progress.
func judgeExactCount(name string, dep *appsv1.Deployment) (string, string) {
	verdict, message := judgeRollout(name, dep)
	if dep == nil || verdict != rolloutComplete {
		return verdict, message
	}
	replicas := int32(defaultReplicas)
	if dep.Spec.Replicas != nil {
		replicas = *dep.Spec.Replicas
	}
	if updated := dep.Status.UpdatedReplicas; updated != replicas {
		// The mutant: more updated replicas than wanted is still "in progress".
		return rolloutProgressing, fmt.Sprintf("Deployment \"%s\" has %d/%d updated replicas", name, updated, replicas)
	}
	return verdict, message
}

func init() {
	judgeDeploymentRollout = judgeExactCount
}
