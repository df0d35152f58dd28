// replicas-from-spec-go: reports the replicas asked for as status.replicas, not the ones running (Go).
//
// Anti-pattern: the status copies readyReplicas and availableReplicas from the Deployment's
// status but fills replicas from the ModelService's own spec.replicas: "the replicas we have
// is the replicas we asked for". In the middle of a rolling update the Deployment runs more
// pods than asked (maxSurge: the new ones up, an old one still terminating), and after a
// scale-down fewer; the status then says the wanted number while the cluster runs another.
//
// Why people write it: outside a rollout the two are equal, so every test that waits for a
// settled ModelService passes; the field has the same name in the spec and the status, and
// the spec is at hand.
//
// What the correct operator does: every count in the status is the Deployment's status count
// (0 when it has none), as CONTRACT.md's status table says; spec.replicas only decides what
// the rollout is judged against. Killed by status-rebuilt[deployment-status], which writes a
// surge state (3 replicas for a spec of 2).
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
		if err == nil && spec.Replicas != nil {
			// The mutant: what was asked, not what runs.
			status["replicas"] = int64(*spec.Replicas)
		}
		return status, err
	}
}
