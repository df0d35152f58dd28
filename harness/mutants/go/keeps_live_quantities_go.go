// keeps-live-quantities-go: keeps a child's resource quantity once set: a new value never reaches it (Go).
//
// Anti-pattern: to stop the write loop of quantities spelled two ways (spec 1000m, stored 1),
// the operator keeps the stored quantity whenever the child already has one of that name,
// comparing names instead of values. The loop is gone, and so is every change: a ModelService
// whose CPU limit is raised keeps running with the old one, and a limit someone edited on the
// Deployment by hand is never put back, while the status says nothing is wrong.
//
// Why people write it: raw-quantities is the bug people meet first (a write on every
// reconcile), and "keep what is stored" silences it; tests that create a ModelService and check
// its Deployment never change a quantity afterwards.
//
// What the correct operator does: it compares quantities by value (1000m equals 1,
// equality.Semantic): the stored spelling is kept only when the values are equal, and a value
// that differs, in the ModelService or on the child, is written in one update
// (foreign-fields-kept).
package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// serverResources is the resources of live's container named like the desired one, and
// whether there is one.
func serverResources(live, desired *appsv1.Deployment) (*corev1.ResourceRequirements, bool) {
	name := desired.Spec.Template.Spec.Containers[0].Name
	for i := range live.Spec.Template.Spec.Containers {
		if live.Spec.Template.Spec.Containers[i].Name == name {
			return &live.Spec.Template.Spec.Containers[i].Resources, true
		}
	}
	return nil, false
}

// mutateKeepingQuantities is mutateDeployment, but a quantity the server container already
// has, by name, stays as stored.
func mutateKeepingQuantities(live, desired *appsv1.Deployment) {
	var before corev1.ResourceRequirements
	stored, had := serverResources(live, desired)
	if had {
		before = *stored.DeepCopy()
	}
	mutateDeployment(live, desired)
	after, ok := serverResources(live, desired)
	if !had || !ok {
		return
	}
	// The mutant: names are compared, not values.
	for name, q := range before.Limits {
		if _, want := after.Limits[name]; want {
			after.Limits[name] = q
		}
	}
	for name, q := range before.Requests {
		if _, want := after.Requests[name]; want {
			after.Requests[name] = q
		}
	}
}

func init() {
	mutateDeploymentSeam = mutateKeepingQuantities
}
