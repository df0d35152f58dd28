// reconcile-time-wall-clock-go: the reconcile-time histogram observes a reconcile's end on
// the wall clock minus its start on a monotonic clock (Go).
//
// Anti-pattern: every observation of controller_runtime_reconcile_time_seconds is about the
// Unix time (seconds since 1970) instead of the reconcile's duration: some fifty years per
// reconcile, all in the +Inf bucket; an alert on slow reconciles fires for ever. Go's
// time.Since hides the mistake from a Go operator's own code, and controller-runtime observes
// the histogram itself, so the twin breaks it where the Go operator exposes it (the seam
// metricsRegistry): the registry's Gather adds the Unix time once per observation to the
// histogram's sum, what reading a wall-clock end against a monotonic start does to it.
//
// Why people write it: both are "the time" in seconds as a float; a refactoring moves one of
// the two reads, and nothing that reconciles looks at the histogram.
//
// What the correct operator does: one reconcile's duration in seconds, its end minus its
// start on the same clock (controller-runtime: time.Since(reconcileStartTS); CONTRACT.md,
// "Metrics"). create-converges bounds the histogram's sum by its count times the seconds the
// process has run.
package main

import (
	"time"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// wallClockRegistry is the real registry, its reconcile-time sums read as the mutant's.
type wallClockRegistry struct {
	metrics.RegistererGatherer
}

func (r wallClockRegistry) Gather() ([]*dto.MetricFamily, error) {
	families, err := r.RegistererGatherer.Gather()
	now := float64(time.Now().Unix())
	for _, family := range families {
		if family.GetName() != "controller_runtime_reconcile_time_seconds" {
			continue
		}
		for _, m := range family.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				sum := h.GetSampleSum() + float64(h.GetSampleCount())*now
				h.SampleSum = &sum
			}
		}
	}
	return families, err
}

func init() {
	metricsRegistry = func(r metrics.RegistererGatherer) metrics.RegistererGatherer {
		return wallClockRegistry{r}
	}
}
