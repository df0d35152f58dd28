// conflict-as-refusal-go: takes a 409 on a child write for a refusal: FailedUpdate in the status (Go).
//
// Anti-pattern: every error answer of the API server to a child's create or update is reported
// as a refused write: Ready and Progressing False with FailedCreate / FailedUpdate and the
// server's message. A 409 Conflict (the write was based on an object that changed meanwhile)
// then tells the user the spec is wrong when nothing is, and costs a status write per 409 and
// another to take it back once the retry succeeds.
//
// Why people write it: "the API server said no" looks like one case, and a 409 on a child write
// needs two writers at once, which a quiet test cluster never has.
//
// What the correct operator does: a 409 (Conflict, AlreadyExists) only says its cache was
// behind; it returns the error for the work queue to retry from a fresher read, and reports
// nothing. Only an answer other than 409 is a refusal (asRefusedWrite).
package main

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func init() {
	classifyChildWriteError = func(err error, verb, what string) error {
		// The mutant: a 409 is a refusal like any other answer.
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			reason, message := failureEvent(verb, what, err)
			return &refusedWrite{reason: reason, message: message, err: err}
		}
		return asRefusedWrite(err, verb, what)
	}
}
