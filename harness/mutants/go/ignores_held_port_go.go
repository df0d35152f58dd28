// ignores-held-port-go: the metrics and probe addresses are not tried at start (Go).
//
// Anti-pattern: the operator leaves binding METRICS_BIND_ADDRESS and HEALTH_PROBE_BIND_ADDRESS
// to the servers that start with the manager. When another process holds the port, the
// process has already talked to the API server, and it fails later, with exit code 1 and a
// line about a socket, not the variable.
//
// Why people write it: trying a port looks like a side effect that belongs to the server that
// will use it, and the window between trying and binding makes the try look useless.
//
// What the correct operator does: it tries each address that is not "0" before its first
// request and refuses one it cannot listen on with exit code 2 and a line naming the variable
// and the fix (CONTRACT.md, "Process"); config-refused holds a port and gives it as
// METRICS_BIND_ADDRESS.
package main

import "net"

// neverTried is addressesFree without the tries: every address passes.
func neverTried(config, func(network, address string) (net.Listener, error)) error {
	return nil
}

func init() {
	bindAddressesFree = neverTried
}
