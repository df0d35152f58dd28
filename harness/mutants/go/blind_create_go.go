// blind-create-go: creates each child it already has, and swallows the AlreadyExists (Go).
//
// Anti-pattern: "create, and on AlreadyExists go on" as the idempotent way to make a child. On
// every reconcile the operator POSTs the desired Deployment and Service whatever its cache says,
// takes the 409 AlreadyExists as "it is there", records nothing, and then goes on as usual
// (compare with the live child, update if it differs). Every reconcile of a ModelService whose
// children exist costs two refused creates, and a process started after a crash begins with a
// create of every child the crashed one had already made: a storm of AlreadyExists that the end
// state never shows.
//
// Why people write it: create-then-update is how many scripts and Helm hooks are written, the
// 409 is harmless to the object, the end state is right, and a check that counts only the
// writes the API server accepted, or compares only end states, sees nothing.
//
// What the correct operator does: it creates a child only when its view of the world (the
// informer's full list, fresh after a restart) shows it missing, so a recovered process writes
// only the difference between the world and the spec: at most one create per child that was
// missing (CONTRACT.md, "After a crash"). Python twin: blind-create.
package main

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func init() {
	readChildSeam = func(ctx context.Context, c client.Client, desired, live client.Object) error {
		err := readChild(ctx, c, desired, live)
		if err == nil {
			// The mutant: create it anyway; AlreadyExists means "it is there", go on.
			attempt, _ := desired.DeepCopyObject().(client.Object)
			if cerr := c.Create(ctx, attempt); cerr != nil && !apierrors.IsAlreadyExists(cerr) {
				return cerr
			}
		}
		return err
	}
}
