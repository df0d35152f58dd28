// What client-go's recorder (tools/record v0.34, the one controller-runtime's
// GetEventRecorderFor hands out) does with an Event the API server refuses (CONTRACT.md,
// "Events", "A refused Event"): the write answered with a StatusError is dropped, never sent
// again, and the occurrence stays counted, so the next occurrence patches the Event never
// stored, gets 404 and creates it with count 2. The Python twin is
// harness/tests/test_mutants.py, test_forgets_refused_event_restarts_the_count_where_the_recorder_keeps_it.
package main

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
)

// refusingSink is a record.EventSink that refuses its first create (403) and answers a patch
// of a name it never stored with 404, as the API server does; it logs each call.
type refusingSink struct {
	mu      sync.Mutex
	refuse  int
	stored  map[string]*corev1.Event
	calls   []string
	created []int32
}

func (s *refusingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse > 0 {
		s.refuse--
		s.calls = append(s.calls, "create refused")
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, e.Name, nil)
	}
	s.calls = append(s.calls, "create")
	s.created = append(s.created, e.Count)
	s.stored[e.Name] = e.DeepCopy()
	return e, nil
}

func (s *refusingSink) Update(e *corev1.Event) (*corev1.Event, error) { return s.Create(e) }

func (s *refusingSink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.stored[e.Name]; !ok {
		s.calls = append(s.calls, "patch 404")
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "events"}, e.Name)
	}
	s.calls = append(s.calls, "patch")
	return e, nil
}

func (s *refusingSink) snapshot() ([]string, []int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...), append([]int32(nil), s.created...)
}

func TestRecorderCountsARefusedEventAndDoesNotRetryIt(t *testing.T) {
	sink := &refusingSink{refuse: 1, stored: map[string]*corev1.Event{}}
	b := record.NewBroadcaster()
	defer b.Shutdown()
	b.StartRecordingToSink(sink)
	rec := b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: eventComponent})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "web"}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wait := func(n int) []string {
		for ctx.Err() == nil {
			if calls, _ := sink.snapshot(); len(calls) >= n {
				return calls
			}
			time.Sleep(10 * time.Millisecond)
		}
		calls, _ := sink.snapshot()
		t.Fatalf("the sink saw %v, want %d calls", calls, n)
		return nil
	}
	rec.Event(pod, corev1.EventTypeNormal, "CreatedDeployment", `Created Deployment "web"`)
	wait(1)
	rec.Event(pod, corev1.EventTypeNormal, "CreatedDeployment", `Created Deployment "web"`)
	calls := wait(3)
	_, created := sink.snapshot()
	if want := []string{"create refused", "patch 404", "create"}; len(calls) != len(want) ||
		calls[0] != want[0] || calls[1] != want[1] || calls[2] != want[2] {
		t.Fatalf("calls %v, want %v (the refused create not retried)", calls, want)
	}
	if len(created) != 1 || created[0] != 2 {
		t.Fatalf("created counts %v, want [2]: the refused occurrence counted", created)
	}
}
