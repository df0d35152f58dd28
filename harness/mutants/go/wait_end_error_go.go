// wait-end-error-go: the end of the wait for the CRD is logged as an error (Go).
//
// Anti-pattern: the probe server of the wait reports its ordinary end at level error:
// srv.Serve returns http.ErrServerClosed after Close, and a test `err != nil || ...` where
// `&&` was meant logs "probe server stopped" on every start that waited for its CRD.
// Alerting on error lines then pages someone for a start that went well.
//
// Why people write it: the error Serve returns after Close is easy to mistake for a failure,
// and a log line nobody asserts on is never read in review.
//
// What the correct operator does: a start that waits for its CRD and then converges logs no
// line at level error (CONTRACT.md, "Process"); waits-for-crd reads the log once it converged.
package main

import (
	"context"
	"net/http"

	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
)

func init() {
	crdWait = func(ctx context.Context, dc discovery.DiscoveryInterface) error {
		err := waitForCRD(ctx, dc)
		if err == nil {
			ctrl.Log.WithName("setup").Error(http.ErrServerClosed, "probe server stopped")
		}
		return err
	}
}
