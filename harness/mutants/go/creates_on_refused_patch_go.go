// creates-on-refused-patch-go: a repeat whose PATCH the API server refuses is created anew
// (Go).
//
// Anti-pattern: the recorder's fallback for a repeat it could not patch is a create, whatever
// the answer was. Only a 404 means the Event is gone; a 403 (an admission policy, a quota on
// Events) or a 422 refuses the write itself, so the create is a request the API server answers
// 409 (the Event exists under that name) or refuses again. Here the manager is given a
// broadcaster whose sink reports every refused patch as 404 NotFound, so client-go's
// recordEvent creates after it.
//
// Why people write it: the create after a failed patch is right for an Event that expired
// (the API server's event TTL is an hour), the case every author meets; a refused patch is
// rare.
//
// What the correct operator does: client-go's recordEvent (tools/record v0.34) creates after
// a failed patch only when the answer was 404, and drops a refused one ("will not retry"); the
// occurrence stays counted (events-recorded[refused-patch]). Python twin:
// creates-on-refused-patch.
package main

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/record"
)

// goneOnRefusalSink answers a refused patch as if the Event were gone.
type goneOnRefusalSink struct{ record.EventSink }

func (s goneOnRefusalSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	out, err := s.EventSink.Patch(e, data)
	if err != nil && !apierrors.IsNotFound(err) {
		// The mutant: any refusal of the patch taken for a gone Event.
		return nil, apierrors.NewNotFound(corev1.Resource("events"), e.Name)
	}
	return out, err
}

// goneOnRefusalBroadcaster hands the manager's sink to client-go wrapped in goneOnRefusalSink.
type goneOnRefusalBroadcaster struct{ record.EventBroadcaster }

func (b goneOnRefusalBroadcaster) StartRecordingToSink(sink record.EventSink) watch.Interface {
	return b.EventBroadcaster.StartRecordingToSink(goneOnRefusalSink{sink})
}

func init() {
	eventBroadcaster = func() record.EventBroadcaster {
		return goneOnRefusalBroadcaster{record.NewBroadcaster()}
	}
}
