// first-address-only-go: stops checking its listen addresses at the first one it does not try or cannot listen on (Go).
//
// Anti-pattern: the check of the metrics and health probe addresses ends at the first address
// that is off ("0") or held by another process (a break, or an early return, where the loop
// should go on): with the metrics server off, a held probe port is not found until the manager
// meets it after its first requests and exits with another code; with both held, only the
// first is named, and the user fixes one to meet the next on the following start.
//
// Why people write it: "stop at the first problem" is the habit of input validation, and each
// address alone was tested.
//
// What the correct operator does: it tries every address that is not off and names each that
// cannot be listened on, in one refusal at start, exit code 2 (addressesFree; CONTRACT.md,
// "Process"; config-refused's probe-port-held and ports-held environments).
package main

import (
	"fmt"
	"net"
)

// firstOnly is addressesFree, but it stops at the first address that is off or cannot be
// listened on.
func firstOnly(c config, listen func(network, address string) (net.Listener, error)) error {
	for _, a := range []struct{ name, address, example string }{
		{"METRICS_BIND_ADDRESS", c.MetricsBindAddress, "127.0.0.1:18080"},
		{"HEALTH_PROBE_BIND_ADDRESS", c.HealthProbeBindAddress, "127.0.0.1:18081"},
	} {
		if a.address == "" || a.address == "0" {
			return nil // the mutant: the next address is never tried
		}
		ln, err := listen("tcp", a.address)
		if err != nil {
			// the mutant: the first failure ends the check, the next address is not named
			return fmt.Errorf("%s=%s cannot be listened on (%v): must be a host:port no other process holds, e.g. %s=%s, or 0 to turn it off", a.name, a.address, err, a.name, a.example)
		}
		_ = ln.Close()
	}
	return nil
}

func init() {
	bindAddressesFree = firstOnly
}
