// polls-lease-go: tries the Lease four times per configured retry period, "to take over
// faster" (Go).
//
// Anti-pattern: the operator divides the retry period it was given (RETRY_PERIOD) by four, so
// a standby reads the Lease four times as often as its operators planned (and the leader
// renews as often): every standby of every operator adds that load to the API server, for a
// takeover that still waits for the lease to expire.
//
// Why people write it: a shorter retry looks like a faster failover, and a test that only
// checks that some instance takes over within a generous bound passes either way.
//
// What the correct operator does: it waits at least a retry period between two attempts, as
// client-go does (CONTRACT.md, "Process"); leader-failover[lease-record] counts a standby's
// Lease reads at its API proxy against the time they span.
package main

func init() {
	real := processConfig
	processConfig = func(getenv func(string) string) (config, error) {
		c, err := real(getenv)
		c.RetryPeriod /= 4 // the mutant: "a faster failover"
		return c, err
	}
}
