// status-ignores-replicas-go: judges the rollout against one replica, whatever spec.replicas says (Go).
//
// Anti-pattern: the rollout judgement reads the Deployment's spec through a lookup that always
// falls back to the default (one replica), so the counts in the conditions are measured against
// 1: a Deployment with 1 of its 2 replicas updated looks fully updated, its message says
// "0/1 updated replicas available" instead of "1/2 updated replicas", and once one pod is
// available a ModelService of 4 replicas says Ready while three are still missing.
//
// Why people write it: every ModelService in a quick test has the default replica count, so a
// judgement that ignores spec.replicas passes them all; the wrong fallback hides in a defaulting
// expression that reads as if it were right.
//
// What the correct operator does: it compares the Deployment's status with the Deployment's own
// spec.replicas (1 only when the field is absent), as kubectl rollout status does, so the
// conditions' message names the replicas the user asked for and Ready waits for all of them
// (CONTRACT.md, the status table).
package main

import (
	appsv1 "k8s.io/api/apps/v1"
)

// judgeWithDefaultReplicas is the mutant's judgement: the Deployment as if its spec.replicas
// were absent.
func judgeWithDefaultReplicas(name string, dep *appsv1.Deployment) (string, string) {
	if dep != nil {
		dep = dep.DeepCopy()
		dep.Spec.Replicas = nil
	}
	return judgeRollout(name, dep)
}

func init() {
	judgeDeploymentRollout = judgeWithDefaultReplicas
}
