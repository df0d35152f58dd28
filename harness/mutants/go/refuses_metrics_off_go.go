// refuses-metrics-off-go: METRICS_BIND_ADDRESS=0 (metrics off) is refused with exit 2 (Go).
//
// Anti-pattern: the check that the metrics and probe addresses can be listened on skips only
// an empty value, so "0", the documented way to turn a server off (controller-runtime's
// --metrics-bind-address=0), is tried as an address, cannot be listened on, and the operator
// refuses to start: "invalid environment", exit 2.
//
// Why people write it: the skip is written for the unset variable, and every test starts the
// operator with real ports.
//
// What the correct operator does: "0" turns the server off and is never tried (CONTRACT.md,
// "Process"); config-refused starts its operator with usable values with
// METRICS_BIND_ADDRESS=0, and it must run and converge.
package main

import (
	"errors"
	"fmt"
	"net"
)

// zeroTried is addressesFree skipping only an empty address: "0" is tried too.
func zeroTried(c config, listen func(network, address string) (net.Listener, error)) error {
	var errs []error
	for _, a := range []struct{ name, address string }{
		{"METRICS_BIND_ADDRESS", c.MetricsBindAddress},
		{"HEALTH_PROBE_BIND_ADDRESS", c.HealthProbeBindAddress},
	} {
		if a.address == "" {
			continue
		}
		ln, err := listen("tcp", a.address)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%s cannot be listened on (%v): must be a host:port no other process holds", a.name, a.address, err))
			continue
		}
		_ = ln.Close()
	}
	return errors.Join(errs...)
}

func init() {
	bindAddressesFree = zeroTried
}
