// refusal-not-reported-go: a refused child write reaches the log and an Event, not the status (Go).
//
// Anti-pattern: when the API server refuses the operator's create or update of a child (422
// Invalid for a spec that makes the Deployment invalid, 403 from an admission policy), the
// reconcile records the Warning Event and returns the error, and that is all: the status keeps
// the conditions of the previous generation, or a new ModelService has no status at all, so
// observedGeneration and the conditions say nothing went wrong.
//
// Why people write it: the error path is written as "log it, record an Event, let the queue
// retry", which is right for a conflict or a dropped connection; and the status is written in
// the last step, which an error never reaches. A user running kubectl describe sees the
// Event, so the gap does not show until someone reads the status or waits on a condition.
//
// What the correct operator does: before it returns the error of a refused child write (any
// answer of the API server but 409), it writes the status with Ready=False and
// Progressing=False, the Event's reason and message cut to the CRD's bound, at the current
// generation; once, not on every retry, and cleared by the first pass whose writes succeed
// (reportRefusal).
package main

func init() {
	// The mutant: every failure is returned as it came, none reaches the status.
	classifyChildWriteError = func(err error, _, _ string) error { return err }
}
