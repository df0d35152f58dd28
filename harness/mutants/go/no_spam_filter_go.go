// no-spam-filter-go: the Event recorder counts and aggregates, but never drops: every
// occurrence about an object is written, however many come in a burst (Go).
//
// Anti-pattern: the recorder keeps client-go's counting (a repeat patches the first Event) but
// leaves out its spam filter, so an object whose reconciles record an Event every few
// milliseconds (a spec flapping between two values, a controller fighting another over a
// field) has its Event patched on every occurrence: a write per occurrence, all on the API
// server and etcd. Here the manager is given a broadcaster whose correlator's spam filter
// has a bucket too large to empty (record.CorrelatorOptions BurstSize and QPS).
//
// Why people write it: the filter looks like an optimisation of a cache that already counts
// repeats, its numbers (25, then one per 300 s) look arbitrary, and no test makes 26 Events
// about one object.
//
// What the correct operator does: client-go's default EventSourceObjectSpamFilter (tools/record
// v0.34) lets 25 occurrences per source, involvedObject and type through in a burst, then one
// every 300 s; the others are dropped (CONTRACT.md, "Events"), so events-recorded[burst]
// counts 25 of 28 Normal occurrences about one ModelService.
package main

import "k8s.io/client-go/tools/record"

func init() {
	// The mutant: a spam filter that never runs dry.
	eventBroadcaster = func() record.EventBroadcaster {
		return record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{
			BurstSize: 1 << 20,
			QPS:       1 << 20,
		})
	}
}
