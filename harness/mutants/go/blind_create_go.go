// blind-create-go: after it starts, creates each child anyway and swallows the AlreadyExists (Go).
//
// Anti-pattern: a process that has just started does not trust its cache ("the informers may not
// have synced; the last process may have died half-way"), so the first time it handles each
// child of a ModelService it POSTs the desired child whatever the cache says, takes a 409
// AlreadyExists as "it is there", records nothing, and goes on as usual (compare with the live
// child, update if it differs). After a crash the new process thus begins with a create of every
// child the crashed one had already made: a burst of AlreadyExists, one per child, that the end
// state never shows. Later reconciles read the cache as the correct operator does.
//
// Why people write it: "create, and on AlreadyExists go on" is the textbook idempotent create,
// a start-up is where stale caches are feared, the 409 is harmless to the object, and a check
// that counts only the writes the API server accepted, or compares only end states, sees
// nothing.
//
// What the correct operator does: it starts its workers only after its caches have synced (a
// full list of the world), and creates a child only when that view shows it missing, so a
// recovered process writes only the difference between the world and the spec: at most one
// create per child that was missing when it started (CONTRACT.md, "After a crash"). Python
// twin: blind-create.
package main

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// blindSeen holds the children this process has handled once: owner UID, type, name.
var (
	blindSeen   = map[string]bool{}
	blindSeenMu sync.Mutex
)

// firstTime reports whether this process handles the child desired (by its owner's UID) for
// the first time, and remembers that it has.
func firstTime(desired client.Object) bool {
	owner := metav1.GetControllerOf(desired)
	if owner == nil {
		return false
	}
	key := fmt.Sprintf("%s/%T/%s", owner.UID, desired, desired.GetName())
	blindSeenMu.Lock()
	defer blindSeenMu.Unlock()
	first := !blindSeen[key]
	blindSeen[key] = true
	return first
}

func init() {
	readChildSeam = func(ctx context.Context, c client.Client, desired, live client.Object) error {
		err := readChild(ctx, c, desired, live)
		if err == nil && firstTime(desired) {
			// The mutant: a fresh process creates it anyway; AlreadyExists means "it is there".
			attempt, _ := desired.DeepCopyObject().(client.Object)
			if cerr := c.Create(ctx, attempt); cerr != nil && !apierrors.IsAlreadyExists(cerr) {
				return cerr
			}
		}
		return err
	}
}
