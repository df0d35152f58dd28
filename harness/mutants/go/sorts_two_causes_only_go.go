// sorts-two-causes-only-go: puts a refusal's causes in order only when there are two: three or more stay as the answer drew them (Go).
//
// Anti-pattern: the causes at the end of a refusal's message are sorted only when there are
// exactly two (the case that was seen and fixed); with three or more the message keeps the
// answer's order, which the API server draws anew on each try from a Go map. The same refusal
// then gives other bytes on other tries, the status is written again per order, and two
// operators report it differently.
//
// Why people write it: the refusal that showed the problem had two causes, and the fix was
// tested on it alone; a comparison against 2 reads as "two or more" at a glance.
//
// What the correct operator does: it lists the causes of such a message in sorted order
// whenever there are two or more (errorMessage; CONTRACT.md, "A refused child write";
// refused-write-reported[three-causes]).
package main

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// sortedWhenTwo is errorMessage, but a refusal of three causes or more keeps the answer's
// order.
func sortedWhenTwo(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		seen := map[string]bool{}
		for _, c := range status.Status().Details.Causes {
			seen[c.Field+": "+c.Message] = true
		}
		if len(seen) > 2 {
			// The mutant: three causes or more are left in the answer's order.
			return err.Error()
		}
	}
	return errorMessage(err)
}

func init() {
	refusalText = sortedWhenTwo
}
