// crdwait.go: waiting for the ModelService CRD before the manager starts (CONTRACT.md,
// "Process": the CRD may be installed after the operator).
//
// Python twin: Manager.wait_served and Client.served (python_operator/runtime/).
//
// Without it, controller-runtime v0.22 cannot even register the ModelService informer (its
// RESTMapper finds nothing: "failed to get restmapping: ... no matches for
// modeldock.io/v1alpha1"), and main exited 1 at once ("unable to create informers"); a
// controller whose informer is registered later waits CacheSyncTimeout (2 minutes) and then
// stops the manager. Either way a Deployment that starts before its CRD is applied (a Helm
// chart's order, a GitOps sync) crash-loops. Here main asks discovery first, with backoff, for
// as long as the process runs.
package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
)

// crdWaitInitial and crdWaitCap shape the wait for the CRD: the first delay, doubled after each
// attempt, and its cap (client-go's reflector backoff, without jitter). Python:
// SERVED_RETRY_INITIAL, SERVED_RETRY_CAP (runtime/manager.py).
const (
	crdWaitInitial = 800 * time.Millisecond
	crdWaitCap     = 30 * time.Second
)

// modelServicesPlural is the resource name discovery lists for the CRD.
const modelServicesPlural = "modelservices"

// crdBackoff is the delay after the attempt-th (0 for the first) discovery that did not find
// the CRD served: crdWaitInitial doubled attempt times, capped at crdWaitCap. Called through
// the seam crdRetryDelay. Python: served_retry_delay.
func crdBackoff(attempt int) time.Duration {
	d := crdWaitInitial
	for i := 0; i < attempt && d < crdWaitCap; i++ {
		d *= 2
	}
	return min(d, crdWaitCap)
}

// crdServed asks discovery (GET /apis/modeldock.io/v1alpha1; every authenticated user may,
// ClusterRole system:discovery) whether the API server serves modelservices. A 404 (the group
// version is not served) is false with no error; any other failure is returned.
func crdServed(dc discovery.DiscoveryInterface) (bool, error) {
	list, err := dc.ServerResourcesForGroupVersion(modelServiceGVK.GroupVersion().String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == modelServicesPlural {
			return true, nil
		}
	}
	return false, nil
}

// waitForCRD asks discovery until the CRD is served (nil) or ctx is done (ctx.Err()), waiting
// crdRetryDelay(n) after the n-th attempt that did not find it (an error counts the same) and
// logging "Waiting for the ModelService CRD" each time, "ModelService CRD served" once it is,
// under the logger "manager", as the Python operator's Manager.wait_served logs them.
// dc is main's discovery client (newCRDDiscovery). Called through the seam crdWait.
func waitForCRD(ctx context.Context, dc discovery.DiscoveryInterface) error {
	log := ctrl.Log.WithName("manager")
	gv := modelServiceGVK.GroupVersion().String()
	for attempt := 0; ; attempt++ {
		served, err := crdServed(dc)
		if served {
			log.Info("ModelService CRD served", "groupVersion", gv)
			return nil
		}
		text := modelServicesPlural + " not served in " + gv
		if err != nil {
			text = err.Error()
		}
		delay := crdRetryDelay(attempt)
		log.Info("Waiting for the ModelService CRD", "groupVersion", gv, "error", text,
			"retryAfterSeconds", delay.Seconds())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// newCRDDiscovery is the discovery client of the wait for the CRD: config's (the operator's
// credential and User-Agent), each request bounded by timeout (REQUEST_TIMEOUT_SECONDS).
func newCRDDiscovery(config *rest.Config, timeout time.Duration) (discovery.DiscoveryInterface, error) {
	c := rest.CopyConfig(config)
	c.Timeout = timeout
	return discovery.NewDiscoveryClientForConfig(c)
}

// serveProbesWhileWaiting serves /healthz (200: the process runs) and /readyz (500: no cache
// yet) on addr ("" or "0": nothing) until the returned function is called, which closes the
// listener so that the manager can bind the same address afterwards. The manager's own probe
// server starts only with the manager, after the wait.
func serveProbesWhileWaiting(addr string) (stop func()) {
	if addr == "" || addr == "0" {
		return func() {}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// The manager binds it later and reports the error then.
		return func() {}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "waiting for the ModelService CRD", http.StatusInternalServerError)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ctrl.Log.WithName("setup").Error(err, "probe server stopped")
		}
	}()
	return func() {
		_ = srv.Close()
		<-done
	}
}
