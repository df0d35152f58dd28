// slow-crd-backoff-go: waits for its CRD with a backoff that starts one doubling late: 1.6 s, 3.2 s, 6.4 s ... (Go).
//
// Anti-pattern: the delay after the n-th failed discovery is the initial delay doubled n + 1
// times, not n (a loop that counts to `<= attempt`, or a doubling before the first wait): every
// wait is twice the contract's, so a CRD installed a moment after the operator started is
// noticed seconds later than it should be, on every replica.
//
// Why people write it: an off-by-one in a backoff loop is invisible in a test that only checks
// that the waits grow and that there are not too many attempts.
//
// What the correct operator does: 0.8 s after the first failed discovery, doubling per attempt
// up to 30 s (crdBackoff; CONTRACT.md, "Process"; waits-for-crd bounds the first four waits,
// 12 s, from above too).
package main

import "time"

func init() {
	// The mutant: the delay of the next attempt.
	crdRetryDelay = func(attempt int) time.Duration { return crdBackoff(attempt + 1) }
}
