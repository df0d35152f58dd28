// raw-quantities-go: keeps resource quantities as spelled, not as the API server stores them (Go).
//
// Anti-pattern: the desired container resources are the ModelService's quantities exactly as
// decoded. The API server rounds every resource quantity up to a whole number of thousandths
// when it stores a Deployment (1.5m becomes 2m, 1e-4 becomes 1e-3), so equality.Semantic finds
// the stored Deployment different from the desired one on every reconcile, and the operator
// updates it and records an UpdatedDeployment Event for ever.
//
// Why people write it: resource.Quantity compares by value, which looks like it covers every
// spelling; the rounding is the API server's defaulting (SetDefaults_ResourceList), which
// controller-runtime never applies on the client, and canonical test values never need it.
//
// What the correct operator does: readSpec rounds each quantity up to milli as the API server
// will (defaultResources), so "nothing changed" is judged against the stored form for every
// spelling the schema admits, and a reconcile with nothing to change writes nothing.
package main

import corev1 "k8s.io/api/core/v1"

func init() {
	// The mutant: the decoded quantities, unrounded.
	applyResourceDefaults = func(*corev1.ResourceRequirements) {}
}
