// spam-key-by-name-go: the Event spam filter keeps its token bucket per object name, not per
// object: a ModelService created again under a name whose Events filled the burst gets none
// (Go).
//
// Anti-pattern: the filter's key is built from the involvedObject's kind, namespace and name,
// leaving out its uid. A ModelService deleted and created again under the same name (a
// redeploy, a test that recreates its fixtures) is another object, but shares the old one's
// bucket: if the old one spent its burst of 25, the new one's first Events are dropped for up
// to five minutes. Here the manager is given a broadcaster whose correlator's SpamKeyFunc
// (record.CorrelatorOptions) is that key.
//
// Why people write it: kind, namespace and name are what `kubectl describe` shows, and an
// object's uid looks redundant next to its name.
//
// What the correct operator does: client-go's default getSpamKey (tools/record v0.34) holds the
// involvedObject's uid and apiVersion with its kind, namespace and name, so each object has its
// own bucket (CONTRACT.md, "Events"), and events-recorded[burst] sees the new ModelService's
// Events.
package main

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

func init() {
	// The mutant: one spam bucket per object name.
	eventBroadcaster = func() record.EventBroadcaster {
		return record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{
			SpamKeyFunc: func(e *corev1.Event) string {
				return strings.Join([]string{e.Source.Component, e.Source.Host, e.InvolvedObject.Kind,
					e.InvolvedObject.Namespace, e.InvolvedObject.Name, e.Type}, "")
			},
		})
	}
}
