// rounds-to-millis-go: writes a quantity it rounds in millis (1e-4 as 1m), not in the spelling's format (Go).
//
// Anti-pattern: readSpec rounds every resource quantity up to a thousandth, as the API server
// will, but replaces a rounded one with a new DecimalSI quantity of millis
// (resource.NewMilliQuantity) instead of rounding it in place. The API server keeps an
// exponent spelling an exponent when it rounds it (given 1e-4 it stores 1e-3), so this
// Deployment differs in its bytes from the one the API server writes for the same spelling:
// equal by value, no write loop, but not what the contract's table says.
//
// Why people write it: MilliValue and NewMilliQuantity are the obvious way to say "a whole
// number of thousandths", and a Quantity's Format looks like presentation; that RoundUp keeps
// it, and the API server with it, is only visible in apimachinery's code or on a live server.
//
// What the correct operator does: defaultResources calls q.RoundUp(resource.Milli) on the
// parsed quantity itself, which keeps its Format, so the JSON it writes is the text the API
// server stores for the user's spelling (conformance/quantity-spellings.json).
package main

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func init() {
	// The mutant: a rounded quantity becomes a new one in millis, DecimalSI.
	applyResourceDefaults = func(r *corev1.ResourceRequirements) {
		for _, list := range []corev1.ResourceList{r.Limits, r.Requests} {
			for name, q := range list {
				if q.RoundUp(resource.Milli) {
					list[name] = q
					continue
				}
				list[name] = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
			}
		}
	}
}
