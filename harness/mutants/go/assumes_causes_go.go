// assumes-causes-go: words a failed write by the answer's first cause, as if every answer had one: a bare 503 panics (Go).
//
// Anti-pattern: the Warning Event of a failed write (and the condition of a refused child write)
// is worded from the API server's Status details, its first cause, without asking whether the
// answer has details or causes at all. An answer without them, the API server's own 503
// (apimachinery's NewServiceUnavailable builds a Status with no details) or any 500 without
// causes, makes the reconcile panic (a nil pointer, an index out of range); controller-runtime
// recovers it, the write is retried and converges, so only the log tells.
//
// Why people write it: every refusal a developer sees while writing the wording (a 422 Invalid,
// an admission denial) lists its causes.
//
// What the correct operator does: it uses the answer's message, and reads the causes only when
// there are two or more to put in order (errorMessage).
package main

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func init() {
	refusalText = func(err error) string {
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			return errorMessage(err)
		}
		// The mutant: every answer is taken to list at least one cause.
		first := status.Status().Details.Causes[0]
		return errorMessage(err) + " (first cause: " + first.Field + ": " + first.Message + ")"
	}
}
