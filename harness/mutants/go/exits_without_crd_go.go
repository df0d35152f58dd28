// exits-without-crd-go: gives up and exits when its CRD is not installed when it starts (Go).
//
// Anti-pattern: at start the operator asks once whether the API server serves its custom
// resource; when it does not, it logs an error and exits 1, leaving the restart to whatever
// runs it. In a cluster its Pod crash-loops (CrashLoopBackOff, restarts 5 minutes apart at
// worst) until someone applies the CRD, and a test that installs the CRD first never sees it.
//
// Why people write it: "fail fast" on a broken installation reads as good practice, and the
// frameworks push that way: controller-runtime cannot register an informer for a kind its
// RESTMapper does not know ("failed to get restmapping"), and a controller whose caches do not sync
// within CacheSyncTimeout (2 minutes) stops the whole manager. Installing the CRD before the
// operator is the documented order, and a Helm chart or a GitOps sync does not always keep it.
//
// What the correct operator does: it waits for the CRD, asking discovery with a capped
// exponential backoff (0.8 s doubling to 30 s) and logging what it waits for, alive (/healthz
// 200) and not ready (/readyz), for as long as it runs; once the CRD is served it starts its
// informers and converges without a restart.
package main

import (
	"context"
	"errors"

	"k8s.io/client-go/discovery"
)

func init() {
	// The mutant: one question, and an exit when the answer is no.
	crdWait = func(_ context.Context, dc discovery.DiscoveryInterface) error {
		served, err := crdServed(dc)
		if err != nil {
			return err
		}
		if !served {
			return errors.New("modelservices not served in " + modelServiceGVK.GroupVersion().String())
		}
		return nil
	}
}
