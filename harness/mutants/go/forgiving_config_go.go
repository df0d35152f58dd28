// forgiving-config-go: a configuration value it cannot use is replaced by its default, with a warning, and the operator runs (Go).
//
// Anti-pattern: the operator reads its Lease timings, request timeout and worker count, and
// when one is not a positive number, or the timings contradict each other, it logs a warning
// and carries on with the defaults for all of them. The Deployment that runs it says one
// thing, the process does another, and the only trace is a line in a log nobody reads while
// every pod reports Ready; the lease a fleet hands over with is not the one its operators
// wrote down.
//
// Why people write it: a process that refuses to start looks fragile, a fallback looks
// robust, and every tutorial reads an environment variable with a default. A test that starts
// the operator with good values, or with none at all, cannot tell the two apart: only a bad
// value shows whether it is refused or silently replaced.
//
// What the correct operator does: it judges its whole configuration before its first
// request, and a value it cannot use stops it with exit code 2 and one log line naming the
// variable, the value and what it must be (CONTRACT.md, "Process"), so a typo in a manifest is
// a CrashLoopBackOff with the reason in its first line, not a fleet running on timings nobody
// chose.
package main

import (
	"fmt"
	"os"
	"slices"
)

func init() {
	real := processConfig
	forgiven := []string{"LEASE_DURATION", "RENEW_DEADLINE", "RETRY_PERIOD", "REQUEST_TIMEOUT_SECONDS", "MAX_CONCURRENT_RECONCILES"}
	processConfig = func(getenv func(string) string) (config, error) {
		c, err := real(getenv)
		if err == nil {
			return c, nil
		}
		// the mutant: a warning, and the same reading with every numeric variable unset
		fmt.Fprintf(os.Stderr, "{\"msg\":\"ignoring invalid environment\",\"error\":%q}\n", err.Error())
		return real(func(name string) string {
			if slices.Contains(forgiven, name) {
				return ""
			}
			return getenv(name)
		})
	}
}
