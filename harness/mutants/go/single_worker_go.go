// single-worker-go: one worker by default and no bound on a request: one slow ModelService holds every other (Go).
//
// Anti-pattern: the operator keeps controller-runtime's defaults: one worker
// (MaxConcurrentReconciles: 1) and a rest.Config with Timeout 0, so no request of its client
// ever times out. Every reconcile waits for the one in front of it: a single ModelService
// whose Deployment write an admission webhook holds for 15 s holds every other ModelService
// in the namespace for those 15 s, again at each retry, and an answer that never comes holds
// the only worker for ever.
//
// Why people write it: the defaults are what kubebuilder scaffolds, and on a test cluster
// every write is answered in milliseconds, so one worker is never the bottleneck and a
// timeout never fires. The slow webhook, the lost answer and the many objects only meet in
// production, where they look like "the operator is slow" rather than like a bug.
//
// What the correct operator does: chooses its defaults on purpose (CONTRACT.md, "Process"):
// 4 workers, so three slow objects at once still leave one for the rest (the workqueue never
// hands one key to two workers), and a 35 s Timeout on the client's HTTP client, the longest
// an admission webhook may take plus 5 s, so a slow but working webhook is waited for and an
// answer that never comes frees its worker as an error, requeued with backoff.
package main

import "strings"

func init() {
	real := processConfig
	processConfig = func(getenv func(string) string) (config, error) {
		c, err := real(getenv)
		if strings.TrimSpace(getenv("MAX_CONCURRENT_RECONCILES")) == "" {
			c.MaxConcurrentReconciles = 1 // controller-runtime's default
		}
		c.RequestTimeout = 0 // rest.Config's default: no timeout, whatever REQUEST_TIMEOUT_SECONDS says
		return c, err
	}
}
