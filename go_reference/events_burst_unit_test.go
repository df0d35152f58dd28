// What client-go's recorder (tools/record v0.34, the one controller-runtime's
// GetEventRecorderFor hands out) does with a burst of Events (CONTRACT.md, "Events", "Under a
// burst"): they wait in the broadcaster's queue for its sink watcher, 1000 long
// (watch.NewLongQueueBroadcaster(maxQueuedEvents, DropIfChannelFull)), behind the one Event
// being written; the rest are dropped when they are distributed, without a log line. Not the
// spam filter (25 per object and type: every Event here is about another object) and not the
// correlator (every message differs). The Python twin is python_operator/tests/test_events.py,
// test_a_burst_keeps_the_queue_and_drops_the_rest.
package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
)

// blockingSink is a record.EventSink whose writes wait until release is closed, counting them.
type blockingSink struct {
	mu      sync.Mutex
	written int
	entered chan struct{}
	once    sync.Once
	release chan struct{}
}

func (s *blockingSink) write(e *corev1.Event) (*corev1.Event, error) {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	s.mu.Lock()
	s.written++
	s.mu.Unlock()
	return e, nil
}

func (s *blockingSink) Create(e *corev1.Event) (*corev1.Event, error) { return s.write(e) }
func (s *blockingSink) Update(e *corev1.Event) (*corev1.Event, error) { return s.write(e) }
func (s *blockingSink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	return s.write(e)
}

func (s *blockingSink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

// burstQueue is the number of Events client-go's recorder keeps waiting (maxQueuedEvents).
const burstQueue = 1000

func TestRecorderBurstKeepsTheQueueAndDropsTheRest(t *testing.T) {
	sink := &blockingSink{entered: make(chan struct{}), release: make(chan struct{})}
	b := record.NewBroadcaster()
	defer b.Shutdown()
	b.StartRecordingToSink(sink)
	rec := b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: eventComponent})
	pod := func(i int) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: fmt.Sprintf("p%04d", i)}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec.Event(pod(0), corev1.EventTypeNormal, "Created", "Created p0000")
	select { // the writer holds the first Event: the queue behind it is empty
	case <-sink.entered:
	case <-ctx.Done():
		t.Fatal("the first Event never reached the sink")
	}
	const burst = 3 * burstQueue
	for i := 1; i < burst; i++ {
		rec.Event(pod(i), corev1.EventTypeNormal, "Created", fmt.Sprintf("Created p%04d", i))
	}
	// A new watcher is added through the broadcaster's own queue, after every Event before it
	// was distributed (kept or dropped).
	b.StartEventWatcher(func(*corev1.Event) {}).Stop()
	close(sink.release)
	want := 1 + burstQueue // the one being written and the queue behind it
	for sink.count() < want && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if got := sink.count(); got != want {
		t.Fatalf("%d of %d Events written, want %d (one being written + a queue of %d)", got, burst, want, burstQueue)
	}
}
