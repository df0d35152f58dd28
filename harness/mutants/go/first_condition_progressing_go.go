// first-condition-progressing-go: reads the Deployment's first condition as Progressing: a stall listed second is never seen (Go).
//
// Anti-pattern: the rollout's stall is looked for in the first condition of the Deployment's
// status, taken to be Progressing, instead of the condition whose type is Progressing. The
// deployment controller lists Available before Progressing once both exist, so when it gives
// up on a rollout (Progressing=False ProgressDeadlineExceeded) the operator reads Available,
// sees no deadline, and reports a rollout in progress that nothing will finish.
//
// Why people write it: on a new Deployment Progressing is often the only condition, and a test
// that plays a stalled status with that one condition passes.
//
// What the correct operator does: it finds the condition by its type, wherever it stands
// (CONTRACT.md, "Status"; kubectl's GetDeploymentCondition), and reports the stall as
// Progressing=False ProgressDeadlineExceeded with the Deployment's message
// (status-follows-rollout[played-rollout]).
package main

import (
	appsv1 "k8s.io/api/apps/v1"
)

// judgeFirstCondition is judgeRollout with the first condition, whatever its type, read as
// Progressing.
func judgeFirstCondition(name string, dep *appsv1.Deployment) (string, string) {
	if dep != nil && len(dep.Status.Conditions) > 0 {
		dep = dep.DeepCopy()
		// The mutant: the first condition is taken for Progressing.
		first := dep.Status.Conditions[0]
		first.Type = appsv1.DeploymentProgressing
		dep.Status.Conditions = []appsv1.DeploymentCondition{first}
	}
	return judgeRollout(name, dep)
}

func init() {
	judgeDeploymentRollout = judgeFirstCondition
}
