// unsorted-causes-go: a refusal's causes in the order of the answer, drawn anew per try: a status write per retry (Go).
//
// Anti-pattern: the condition message of a refused child write is the API server's message as
// it came. When the server finds two or more causes (two resources whose values it refuses) it
// lists them in the order its validation met them, which ranges over a Go map, so the order is
// drawn anew on each try; every retry that meets another order computes another message and
// writes the status again, and two operators end with different messages for one refusal. The
// real server repeats one order most of the time, so a copy of its order would be caught only
// on some runs: the mutant puts the causes in sorted order on one refusal and in reverse
// sorted order on the next, in turn, the worst draw on every retry.
//
// Why people write it: the message looks like a constant of the refusal, and a test with one
// invalid field, or a few tries that happen to draw the same order, never shows otherwise.
//
// What the correct operator does: it lists the causes of such a message in sorted order
// (errorMessage), so the same refusal gives the same bytes on every retry and in every
// operator, and writes the status once while the refusal lasts.
package main

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

var unsortedCausesTurns atomic.Int64

// alternatingOrder is errorMessage, but every other refusal of two or more causes lists them
// in reverse sorted order.
func alternatingOrder(err error) string {
	message := errorMessage(err)
	var status apierrors.APIStatus
	if unsortedCausesTurns.Add(1)%2 == 1 || !errors.As(err, &status) || status.Status().Details == nil {
		return message
	}
	var causes []string
	for _, c := range status.Status().Details.Causes {
		if item := c.Field + ": " + c.Message; !slices.Contains(causes, item) {
			causes = append(causes, item)
		}
	}
	slices.Sort(causes)
	inOrder := "[" + strings.Join(causes, ", ") + "]"
	if len(causes) < 2 || !strings.HasSuffix(message, inOrder) {
		return message
	}
	// The mutant: every other refusal lists its causes in reverse sorted order.
	slices.Reverse(causes)
	return strings.TrimSuffix(message, inOrder) + "[" + strings.Join(causes, ", ") + "]"
}

func init() {
	refusalText = alternatingOrder
}
