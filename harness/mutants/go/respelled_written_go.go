// respelled-written-go: compares a child's quantities as text: an equal respelling of the ModelService is written (Go).
//
// Anti-pattern: the comparison that decides whether to write a child sees the quantities of
// the server container as text. An unchanged ModelService still compares equal (the operator
// writes the text the API server stores for the spelling), but a ModelService whose user
// respells a value (5e8 to 500000000, the same number) makes the operator update the
// Deployment from 500e6 to 500M: a write, an Event and a new resourceVersion for nothing, and
// with a deployment controller a rollout of every pod.
//
// Why people write it: the desired text equals the stored text for every spec a test creates,
// so a no-op reconcile is quiet; only a change of spelling after convergence tells text from
// value.
//
// What the correct operator does: it compares quantities by value (equality.Semantic), so a
// stored spelling equal by value is kept and nothing is written (CONTRACT.md, "Desired
// Deployment", Quantities; noop-stable[respelled]).
package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// quantityTexts is every quantity of the Deployment's containers as text, by container,
// field and resource name.
func quantityTexts(dep *appsv1.Deployment) map[string]string {
	out := map[string]string{}
	for _, c := range dep.Spec.Template.Spec.Containers {
		for field, list := range map[string]corev1.ResourceList{"limits": c.Resources.Limits, "requests": c.Resources.Requests} {
			for name, q := range list {
				out[c.Name+"/"+field+"/"+string(name)] = q.String()
			}
		}
	}
	return out
}

// unchangedAsText is equality.Semantic.DeepEqual, and for two Deployments also the same
// text of every quantity.
func unchangedAsText(a, b interface{}) bool {
	if !equality.Semantic.DeepEqual(a, b) {
		return false
	}
	da, okA := a.(*appsv1.Deployment)
	db, okB := b.(*appsv1.Deployment)
	if !okA || !okB {
		return true
	}
	// The mutant: an equal value in another text is a change.
	ta, tb := quantityTexts(da), quantityTexts(db)
	if len(ta) != len(tb) {
		return false
	}
	for k, v := range ta {
		if tb[k] != v {
			return false
		}
	}
	return true
}

func init() {
	childUnchanged = unchangedAsText
}
