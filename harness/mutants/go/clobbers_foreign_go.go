// clobbers-foreign-go: treats the pod template and the Service spec as its own, removing what other writers added (Go).
//
// Anti-pattern: when it applies the desired fields to a child, the operator also makes sure
// nothing else is there: containers other than its own are dropped, its container's
// environment is the one it would write (none), the pod template's annotations are the ones it
// would write (none), and the Service's session affinity is the default. On a child only the
// operator has written this changes nothing, so every reconcile of an untouched cluster is
// still a no-op; the first sidecar a mesh injects, the first `kubectl rollout restart` or the
// first admin who pins session affinity is undone at the next reconcile.
//
// Why people write it: "the desired state is the whole truth" sounds like level-triggered
// reconciling done right, and making the live child equal the desired one is the shortest way
// to guarantee that drift is repaired.
//
// What the correct operator does: it sets only the fields the ModelService decides (replicas,
// selector, its own labels, and in the container named server its image, args, ports and
// resources) and keeps every other field as stored, other writers' included (CONTRACT.md,
// "Desired Deployment", Mutate).
package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// onlyOurContainers is the live template's containers that desired names too, each without
// an environment (the operator writes none).
func onlyOurContainers(live, desired []corev1.Container) []corev1.Container {
	ours := map[string]bool{}
	for _, c := range desired {
		ours[c.Name] = true
	}
	var kept []corev1.Container
	for _, c := range live {
		if ours[c.Name] {
			c.Env = nil
			kept = append(kept, c)
		}
	}
	return kept
}

func init() {
	// The mutant: the desired fields, and nothing another writer added.
	mutateDeploymentSeam = func(live, desired *appsv1.Deployment) {
		mutateDeployment(live, desired)
		live.Spec.Template.Annotations = nil
		live.Spec.Template.Spec.Containers = onlyOurContainers(
			live.Spec.Template.Spec.Containers, desired.Spec.Template.Spec.Containers)
	}
	mutateServiceSeam = func(live, desired *corev1.Service) {
		mutateService(live, desired)
		if live.Spec.SessionAffinity != "" { // the API server's default, back
			live.Spec.SessionAffinity = corev1.ServiceAffinityNone
		}
		live.Spec.SessionAffinityConfig = nil
	}
}
