// hot-retries-crd-go: waits for its CRD by asking again every 50 ms, never backing off (Go).
//
// Anti-pattern: while its CRD is not installed the operator asks discovery again and again at
// a fixed short interval: twenty requests a second for as long as the CRD is missing, from
// every replica, and a log line with each.
//
// Why people write it: waiting is right (the CRD may come after the operator), and a short
// fixed sleep makes the operator start the moment the CRD appears; in a test the CRD is
// missing for a second at most, so the cost never shows.
//
// What the correct operator does: it backs off exponentially, as client-go's reflector does
// after a failed list (0.8 s doubling to a cap of 30 s): a CRD installed soon is noticed soon,
// and a CRD that never comes costs two requests a minute, not twelve hundred.
package main

import "time"

func init() {
	// The mutant: the same short delay after every attempt.
	crdRetryDelay = func(int) time.Duration { return 50 * time.Millisecond }
}
