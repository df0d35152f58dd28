// panics-after-finalizer-go: panics once the finalizer is on: the failed write's Event built with a nil error (Go).
//
// Anti-pattern: after the update that added the finalizer succeeded, the reconcile goes on to
// build the Warning Event of a failed write, handing failureEvent the error it got, which is
// nil. errorMessage calls err.Error() on a nil interface: a nil pointer dereference, a panic.
// controller-runtime recovers it (RecoverPanic is on by default in v0.22), logs "Observed a
// panic", returns it as the reconcile's error and requeues the key; the next reconcile finds
// the finalizer on, skips step 3 and converges. Every outcome a check looks at is right.
//
// Why people write it: it is what a flipped `err != nil` (a mutation tool's first move, or a
// slip of the keyboard) does, and a recovered panic looks like one more retried error: the
// operator converges a moment later, and nothing but its log says that it panicked.
//
// What the correct operator does: it never panics, whatever it is given: a reconcile fails
// only with an error it returns (the API server's, or one it declares), and the suite fails
// any check during which an operator logged a panic (CONTRACT.md "A reconcile never panics").
package main

// panicAfterFinalizer is crashPoint, except that at "after-finalizer" it first formats the
// update's error, which is nil there.
func panicAfterFinalizer(name string) {
	if name == "after-finalizer" {
		var err error // the update succeeded
		_, _ = failureEvent("update", "ModelService", err)
	}
	crashPoint(name)
}

func init() {
	crashPointSeam = panicAfterFinalizer
}
