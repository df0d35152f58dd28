// sorts-three-causes-only-go: puts a refusal's causes in order only when there are three or more: two stay as the answer drew them (Go).
//
// Anti-pattern: "two or more" written as a comparison off by one (`<= 2` where `< 2` was
// meant): a refusal with exactly two causes keeps the answer's order, which the API server
// draws anew on each try from a Go map. Half the tries give the other order, the status is
// written again for a refusal that did not change, and two operators report it differently.
//
// Why people write it: the boundary reads the same at a glance, and a test against the API
// server's own two-cause answer passes whenever the draw happens to be sorted.
//
// What the correct operator does: it lists the causes of such a message in sorted order
// whenever there are two or more (errorMessage; CONTRACT.md, "A refused child write";
// refused-write-reported[two-causes-reversed], which always answers the unsorted order).
package main

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// sortedFromThree is errorMessage, but a refusal of exactly two causes keeps the answer's
// order.
func sortedFromThree(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		seen := map[string]bool{}
		for _, c := range status.Status().Details.Causes {
			seen[c.Field+": "+c.Message] = true
		}
		if len(seen) == 2 {
			// The mutant: two causes are left in the answer's order.
			return err.Error()
		}
	}
	return errorMessage(err)
}

func init() {
	refusalText = sortedFromThree
}
