// library-user-agent-go: the operator's requests go out under a library's default name (Go).
//
// Anti-pattern: the rest.Config's UserAgent is left to whatever the HTTP stack sends; here
// Go's net/http default, "Go-http-client/1.1" (what a bare http.Client, or a transport that
// rebuilds the request headers, sends). The API server takes it as the field manager of every
// create and update, so managedFields and the audit log cannot tell this operator's writes
// from any other program's.
//
// Why people write it: nothing fails without a name; client-go's default is the binary's
// name, which depends on how the program was built (`go run` gives another).
//
// What the correct operator does: it sets rest.Config.UserAgent to a name of its own,
// "modeldock-go/<version> (os/arch)" (main.go's modeldockUserAgent), as the Python operator sends
// "modeldock-python/...".
package main

func init() {
	// The mutant: a library's default name instead of the operator's own.
	clientUserAgent = func() string { return "Go-http-client/1.1" }
}
