// refuses-http-catalog-go: refuses a valid http:// catalog URL and exits 2 (Go).
//
// Anti-pattern: the catalog URL's check accepts only https://, so an operator given the
// plain-HTTP URL of an in-cluster catalog (a Service's http://name.namespace:port) refuses
// to start: "invalid environment", exit 2. The contract accepts http:// and https:// and
// refuses only what is not a URL of either.
//
// Why people write it: a "secure by default" check added in review, or a scheme test written
// with one case in mind; every unit test used an https:// example.
//
// What the correct operator does: it starts with any http(s) URL that has a host
// (CONTRACT.md, "An external effect, once"), and external-effect-once fails an operator that
// exits before /readyz with such a URL.
package main

import (
	"fmt"
	"strings"
)

// refusingHTTPCatalog is catalogFromEnv, except that a URL not starting with https:// is
// refused.
func refusingHTTPCatalog(getenv func(string) string) (*catalogClient, error) {
	raw := strings.TrimSpace(getenv(catalogURLEnv))
	if raw != "" && !strings.HasPrefix(raw, "https://") {
		return nil, fmt.Errorf("%s=%q: must be the catalog's https:// URL", catalogURLEnv, raw)
	}
	return catalogFromEnv(getenv)
}

func init() {
	catalogFromEnvironment = refusingHTTPCatalog
}
