// whole-second-retry-go: the leader election refuses a retry period under one second (Go).
//
// Anti-pattern: the operator takes its retry period in whole seconds and refuses a shorter
// one, as the Python `kubernetes` library's leader election does (its Config exits the
// process for a retry_period under 1 s). RETRY_PERIOD=0.4 with RENEW_DEADLINE=2.5 is a pair
// the contract accepts, and the process refuses it.
//
// Why people write it: every default and every example uses whole seconds (15, 10, 2), so a
// check that starts operators with them never meets a fraction; the limit looks like a
// sanity check.
//
// What the correct operator does: a duration is any finite number of seconds above 0
// (CONTRACT.md, "Process"); the only bounds between the Lease timings are client-go's
// (lease > renew deadline > 1.2 x retry period), and a value that passes them is used as
// written (config-refused: RENEW_DEADLINE=2.5 over RETRY_PERIOD=0.4 must run on).
package main

import (
	"errors"
	"fmt"
	"time"
)

func init() {
	real := processConfig
	processConfig = func(getenv func(string) string) (config, error) {
		c, err := real(getenv)
		if c.LeaderElection && c.RetryPeriod > 0 && c.RetryPeriod < time.Second {
			// the mutant: a sub-second retry period is refused
			return c, errors.Join(err, fmt.Errorf("RETRY_PERIOD=%s: must be at least 1s", c.RetryPeriod))
		}
		return c, err
	}
}
