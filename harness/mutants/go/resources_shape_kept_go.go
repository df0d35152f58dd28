// resources-shape-kept-go: keeps the resource fields a child has: limits or requests added to the ModelService later never reach it (Go).
//
// Anti-pattern: the desired resources are merged into the stored container field by field,
// walking the fields the stored container has: a field it lacks (requests, when the
// Deployment was created with limits only) is never added. Values of existing fields still
// follow, so a raised limit is written; requests the user adds after convergence are dropped,
// and the status says all is well while the pods run without them.
//
// Why people write it: the merge keeps the stored spellings of equal values, and walking the
// stored side is the natural way to find them; tests change a value after convergence, never
// the shape of spec.resources.
//
// What the correct operator does: the desired resources decide which fields there are
// (CONTRACT.md, "Desired Deployment"), so requests added later are written in one update
// (foreign-fields-kept).
package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// serverContainerResources is the resources of live's container named like the desired one,
// and whether there is one.
func serverContainerResources(live, desired *appsv1.Deployment) (*corev1.ResourceRequirements, bool) {
	name := desired.Spec.Template.Spec.Containers[0].Name
	for i := range live.Spec.Template.Spec.Containers {
		if live.Spec.Template.Spec.Containers[i].Name == name {
			return &live.Spec.Template.Spec.Containers[i].Resources, true
		}
	}
	return nil, false
}

// mutateKeepingShape is mutateDeployment, but a resources field (limits, requests) the
// stored server container lacks stays absent.
func mutateKeepingShape(live, desired *appsv1.Deployment) {
	stored, had := serverContainerResources(live, desired)
	noLimits := had && stored.Limits == nil
	noRequests := had && stored.Requests == nil
	mutateDeployment(live, desired)
	after, ok := serverContainerResources(live, desired)
	if !ok {
		return
	}
	// The mutant: a field the stored container lacked is not added.
	if noLimits {
		after.Limits = nil
	}
	if noRequests {
		after.Requests = nil
	}
}

func init() {
	mutateDeploymentSeam = mutateKeepingShape
}
