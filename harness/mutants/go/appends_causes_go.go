// appends-causes-go: appends the sorted causes to a refusal's message that does not end with them: a webhook's words changed (Go).
//
// Anti-pattern: to give one refusal the same bytes on every try, the operator puts the causes of
// an answer in sorted order, and writes that list at the end of the message whether or not the
// message ended with it. An admission webhook's own wording, which lists its causes only in
// details, then gets a list appended that the server never wrote: the report no longer says
// what the server said, and a message that fitted the CRD's bound no longer does, so it is
// cut.
//
// Why people write it: every refusal of the API server's own validation ends with its causes
// ([<field>: <message>, ...]), so "replace the list" and "append the list" look the same.
//
// What the correct operator does: it puts the causes in order only where the message ends with
// them as apimachinery lists them, and keeps any other message as it is (errorMessage).
package main

import (
	"errors"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// appendedCauses is errorMessage, but with the sorted causes written at the end of any
// message with two or more of them that does not already end so.
func appendedCauses(err error) string {
	message := errorMessage(err)
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return message
	}
	var listed []string
	for _, c := range status.Status().Details.Causes {
		if item := c.Field + ": " + c.Message; !slices.Contains(listed, item) {
			listed = append(listed, item)
		}
	}
	slices.Sort(listed)
	inOrder := "[" + strings.Join(listed, ", ") + "]"
	if len(listed) < 2 || strings.HasSuffix(message, inOrder) {
		return message
	}
	// The mutant: the sorted list is written at the end of any message with two causes.
	return message + inOrder
}

func init() {
	refusalText = appendedCauses
}
