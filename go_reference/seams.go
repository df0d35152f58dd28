// seams.go: the package-level variables through which controller.go calls the few functions
// a Go mutant replaces (harness/mutants/go/<id>.go, built into package main with
// `go build -overlay` by harness/mutants/gobuild.py; go_reference itself carries no mutant
// code). Each var holds the real function; a mutant's init() assigns another. One var per
// seam, kept few and small.
package main

// ownerVanished says whether a child's controller ownerReference is a ModelService of the
// reconciled one's name with another UID: the child of a ModelService that no longer exists,
// which ensureChild deletes (UID precondition, Background) before creating its own.
// Real: controlledByVanished. Used by the mutant vanished-owner-go (always false: the child
// is reported as a ChildConflict for ever, today's old behaviour).
var ownerVanished = controlledByVanished

// modelServiceGone is what a reconcile does when its status update is answered 404: the
// ModelService it holds is gone (kubernetes#77988), and the children it holds that this
// ModelService controls are deleted. Real: deleteChildrenOfGone (returns nil once they are
// deleted or gone). Used by the mutant vanished-owner-go (returns the 404 and deletes
// nothing: the children stay owned by a UID that no longer exists).
var modelServiceGone = deleteChildrenOfGone
