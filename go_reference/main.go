// Command go_reference is the reference ModelDock operator: a controller-runtime manager that
// runs one controller, "modelservice", for the ModelService custom resource.
//
// Python twin: python_operator/__main__.py. The wiring here (cache, client, leader election,
// metrics, probes, signals) is what controller-runtime gives for free; the Python twin builds
// the same pieces in python_operator/runtime/.
//
// The process contract (environment variables, defaults, exit codes) is
// conformance/CONTRACT.md, section "Process". Every knob is an environment variable, not a
// flag, because the harness starts every implementation the same way.
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// leaderElectionID is the name of the Lease the instances compete for.
const leaderElectionID = "modeldock.lab"

// eventComponent is the source of the Events the controller records (CONTRACT.md, "Events").
const eventComponent = "modelservice-controller"

// exitBadConfig is the exit code for an environment value that cannot be used.
const exitBadConfig = 2

// config is the process configuration, read once from the environment.
type config struct {
	WatchNamespace          string
	LeaderElection          bool
	LeaderElectionNamespace string
	LeaseDuration           time.Duration
	RenewDeadline           time.Duration
	RetryPeriod             time.Duration
	MetricsBindAddress      string
	HealthProbeBindAddress  string
	MaxConcurrentReconciles int
	// RequestTimeout bounds each non-watch request of the client and the live reader, in
	// total (0: none); watches keep their own deadlines (CONTRACT.md, "Watches").
	RequestTimeout time.Duration
}

// defaultWorkers is MAX_CONCURRENT_RECONCILES when unset: 4, not controller-runtime's 1, so
// that one ModelService whose reconcile is slow (a write held by an admission webhook, a
// request waiting out its timeout) leaves other workers to every other ModelService
// (CONTRACT.md, "Process"; the reconcile-isolated check).
const defaultWorkers = 4

// defaultRequestTimeout is REQUEST_TIMEOUT_SECONDS when unset: the longest an admission
// webhook may take (timeoutSeconds <= 30, admissionregistration/v1) plus 5 s for the API
// server's own work, so a write that one webhook at its limit delays still gets its answer
// and one that never gets an answer frees its worker.
const defaultRequestTimeout = 35 * time.Second

// configFromEnv reads the configuration. An error names the variable, the value and the fix,
// so that a typo in a harness file is found from the first line the process prints.
func configFromEnv(getenv func(string) string) (config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := config{
		WatchNamespace:         get("WATCH_NAMESPACE", "modeldock-lab"),
		MetricsBindAddress:     get("METRICS_BIND_ADDRESS", ":8080"),
		HealthProbeBindAddress: get("HEALTH_PROBE_BIND_ADDRESS", ":8081"),
	}
	c.LeaderElectionNamespace = get("LEADER_ELECTION_NAMESPACE", c.WatchNamespace)

	var errs []error
	switch v := strings.ToLower(get("LEADER_ELECTION", "false")); v {
	case "true":
		c.LeaderElection = true
	case "false":
		c.LeaderElection = false
	default:
		errs = append(errs, fmt.Errorf("LEADER_ELECTION=%q: must be true or false; unset it to run without leader election", getenv("LEADER_ELECTION")))
	}
	seconds := func(name string, def float64) time.Duration {
		raw := get(name, "")
		if raw == "" {
			return time.Duration(def * float64(time.Second))
		}
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			errs = append(errs, fmt.Errorf("%s=%q: must be a positive number of seconds (fractions allowed), e.g. %s=%g; unset it for the default %g", name, raw, name, def, def))
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	c.LeaseDuration = seconds("LEASE_DURATION", 15)
	c.RenewDeadline = seconds("RENEW_DEADLINE", 10)
	c.RetryPeriod = seconds("RETRY_PERIOD", 2)
	if c.LeaderElection && c.LeaseDuration > 0 && c.RenewDeadline > 0 && c.RetryPeriod > 0 {
		// client-go's leader elector refuses these too, but later and less clearly.
		if c.LeaseDuration <= c.RenewDeadline {
			errs = append(errs, fmt.Errorf("LEASE_DURATION=%s must be greater than RENEW_DEADLINE=%s: a leader must renew before its lease can be taken", c.LeaseDuration, c.RenewDeadline))
		}
		if float64(c.RenewDeadline) <= 1.2*float64(c.RetryPeriod) {
			errs = append(errs, fmt.Errorf("RENEW_DEADLINE=%s must be greater than 1.2 x RETRY_PERIOD=%s: the leader needs more than one retry to renew", c.RenewDeadline, c.RetryPeriod))
		}
	}
	raw := get("MAX_CONCURRENT_RECONCILES", strconv.Itoa(defaultWorkers))
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		errs = append(errs, fmt.Errorf("MAX_CONCURRENT_RECONCILES=%q: must be a whole number of workers, at least 1; unset it for the default %d", raw, defaultWorkers))
	}
	c.MaxConcurrentReconciles = n
	c.RequestTimeout = seconds("REQUEST_TIMEOUT_SECONDS", defaultRequestTimeout.Seconds())
	return c, errors.Join(errs...)
}

// addressesFree tries to listen on the metrics and health probe addresses of c (each listener
// closed at once; "0", off, is not tried) and returns one error per address that cannot be
// listened on, joined, or nil. It runs before any request, so that a port another process
// holds (a second operator run by hand beside the first, both on the default :8080) is named
// by its variable and refused with exit code 2, not found by the manager after the caches
// synced as "failed to start metrics server". Python twin: addresses_free, same wording.
func addressesFree(c config, listen func(network, address string) (net.Listener, error)) error {
	var errs []error
	for _, a := range []struct{ name, address, example string }{
		{"METRICS_BIND_ADDRESS", c.MetricsBindAddress, "127.0.0.1:18080"},
		{"HEALTH_PROBE_BIND_ADDRESS", c.HealthProbeBindAddress, "127.0.0.1:18081"},
	} {
		if a.address == "" || a.address == "0" {
			continue
		}
		ln, err := listen("tcp", a.address)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%s cannot be listened on (%v): must be a host:port no other process holds, e.g. %s=%s, or 0 to turn it off", a.name, a.address, err, a.name, a.example))
			continue
		}
		_ = ln.Close()
	}
	return errors.Join(errs...)
}

// managerBroadcaster is the EventBroadcaster main gives the manager: none (nil), so that
// controller-runtime builds and stops its own, client-go's record.NewBroadcaster() with the
// default EventCorrelator (tools/record v0.34: repeats counted, similar Events aggregated,
// 25 Events per object in a burst then one per 300 s). The seam eventBroadcaster calls it.
func managerBroadcaster() record.EventBroadcaster { return nil }

// controllerRuntimeRegistry is the registry /metrics serves, unchanged: controller-runtime's
// own (metrics.Registry), where its controller, workqueue and client metrics are registered
// (CONTRACT.md, "Metrics"). main sets it through the seam metricsRegistry before the manager
// is built; the metrics server reads it when it starts.
func controllerRuntimeRegistry(r metrics.RegistererGatherer) metrics.RegistererGatherer {
	return r
}

// cacheOptions limits the informer cache to the watch namespace: the operator's user may only
// list and watch there (config/rbac binds its role with a RoleBinding), and a cluster-wide
// watch would be refused.
func cacheOptions(namespace string) cache.Options {
	return cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
}

// clientOptions makes the client read unstructured objects (the ModelService) from the cache as
// well. controller-runtime reads typed objects from the cache by default, but sends
// unstructured reads to the API server unless told otherwise; reads must come from the cache.
func clientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{Unstructured: true}}
}

// withRequestTimeout returns hc with an overall timeout of d for each request (0: none), on
// the same transport: the client's requests share the cache's HTTP/2 connection (CONTRACT.md,
// "Watches"), but only the client's carry the timeout. client-go also sends it to the API
// server as ?timeout= (rest.Request.Timeout, client-go v0.34), which ends the request there.
func withRequestTimeout(hc *http.Client, d time.Duration) *http.Client {
	c := *hc
	c.Timeout = d
	return &c
}

// newClient is the manager's NewClient: controller-runtime's client (reads from the cache,
// writes to the API server) whose requests to the API server time out after d. The cache's
// list and watch requests use the manager's HTTP client, without it.
func newClient(d time.Duration) client.NewClientFunc {
	return func(config *rest.Config, options client.Options) (client.Client, error) {
		options.HTTPClient = withRequestTimeout(options.HTTPClient, d)
		return client.New(config, options)
	}
}

// newAPIReader is the live reader of "Which reads are live" (CONTRACT.md): the manager's
// APIReader (mgr.GetAPIReader(), an uncached client), but with the request timeout d.
func newAPIReader(mgr manager.Manager, d time.Duration) (client.Reader, error) {
	return client.New(mgr.GetConfig(), client.Options{HTTPClient: withRequestTimeout(mgr.GetHTTPClient(), d),
		Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
}

// addInformers registers the informers for the three kinds the controller reads. On a cache
// that has not started yet it only registers them; they start, and sync, with the cache.
func addInformers(ctx context.Context, c cache.Cache) error {
	for _, obj := range []client.Object{newModelService(), &appsv1.Deployment{}, &corev1.Service{}} {
		if _, err := c.GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("informer for %T: %w", obj, err)
		}
	}
	return nil
}

// newModelService returns an empty ModelService with its GroupVersionKind set, which is how
// an unstructured object says what it is to the client, the cache and the builder.
func newModelService() *unstructured.Unstructured {
	ms := &unstructured.Unstructured{}
	ms.SetGroupVersionKind(modelServiceGVK)
	return ms
}

// SetupWithManager registers the controller: a change to a ModelService enqueues it, and a
// change to a Deployment or Service enqueues the ModelService named in the child's controller
// ownerReference. The request carries only namespace/name: Reconcile works out the rest.
func (r *ModelServiceReconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	b := ctrl.NewControllerManagedBy(mgr).
		Named("modelservice").
		For(newModelService())
	return childWatches(b).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: workers,
			RateLimiter:             requeueRateLimiter(),
			NewQueue:                requeueQueue,
		}).
		Complete(controllerReconciler(r))
}

// reconcilerOf is the reconciler SetupWithManager hands to the controller: r itself, so an
// error Reconcile returns goes back to the workqueue, which retries the key with backoff
// (CONTRACT.md step 7 and "Errors": a 5xx without Retry-After is retried this way).
// SetupWithManager calls it through the seam controllerReconciler (seams.go).
func reconcilerOf(r *ModelServiceReconciler) reconcile.Reconciler {
	return r
}

// clientGoTransport is the round tripper client-go builds from the rest.Config, unchanged:
// client-go's REST client reads the answers itself, and sends a request answered 429, or 5xx
// with Retry-After, again after that many seconds, up to 10 times within the request's
// timeout (rest.Request, withRetry, client-go v0.34; CONTRACT.md "Errors"). main wraps the
// config with it through the seam apiTransport (seams.go).
func clientGoTransport(rt http.RoundTripper) http.RoundTripper {
	return rt
}

// defaultRateLimiter is the workqueue rate limiter controller-runtime uses when none is given
// (client-go's DefaultTypedControllerRateLimiter): a failing key is retried after 5 ms,
// doubling per failure up to 1000 s, and all keys together at 10 per second (burst 100).
// SetupWithManager passes it through the seam requeueRateLimiter (seams.go), so the real
// operator behaves as with the default.
func defaultRateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()
}

// newControllerQueue is the workqueue controller-runtime v0.22 builds for a controller when
// no NewQueue is given (and no priority queue is asked for): client-go's rate-limiting queue
// with rateLimiter, named after the controller (name), which registers its metrics under that
// name. SetupWithManager passes it through the seam requeueQueue (seams.go), so the real
// operator's queue is the default one.
func newControllerQueue(name string, rateLimiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{
		Name: name,
	})
}

// ownsChildren adds the watches on the children to the controller's builder: Owns(Deployment)
// and Owns(Service), so that a child's event enqueues the ModelService of its controller
// ownerReference at once (child-repaired bounds that reaction). SetupWithManager calls it
// through the seam childWatches (seams.go).
func ownsChildren(b *ctrl.Builder) *ctrl.Builder {
	return b.Owns(&appsv1.Deployment{}).Owns(&corev1.Service{})
}

// cacheWaitGrace is how long main gives a manager that was signalled to show it is past
// waiting for its caches: it starts its other runnables within moments of that wait ending.
const cacheWaitGrace = time.Second

// pastCacheWait reports whether the signalled manager got past its cache wait, in which case
// it has returned (its error in *err): othersStarted became true within cacheWaitGrace, or
// Start returned. False: it is still waiting for caches that do not sync, and never returns.
func pastCacheWait(othersStarted *atomic.Bool, started <-chan error, err *error) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(cacheWaitGrace)
	for {
		select {
		case *err = <-started:
			return true
		case <-tick.C:
			if othersStarted.Load() {
				*err = <-started
				return true
			}
		case <-giveUp:
			return false
		}
	}
}

// everyInstance is a runnable that runs whether or not this instance leads. A plain
// manager.RunnableFunc would wait for leadership.
type everyInstance manager.RunnableFunc

func (f everyInstance) Start(ctx context.Context) error { return f(ctx) }
func (everyInstance) NeedLeaderElection() bool          { return false }

// modeldockUserAgent is the User-Agent of every request, "modeldock-go/<version> (os/arch)":
// the API server takes the part before "/" as the field manager of writes that name none; the
// Python operator sends "modeldock-python/...".
func modeldockUserAgent() string {
	return "modeldock-go/0.1 (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

func main() {
	// One JSON object per line on stderr, from controller-runtime and from client-go alike
	// (leader election logs through klog).
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))
	klog.SetLogger(ctrl.Log)
	log := ctrl.Log.WithName("setup")

	cfg, err := processConfig(os.Getenv)
	if err != nil {
		log.Error(err, "invalid environment")
		os.Exit(exitBadConfig)
	}
	catalog, err := catalogFromEnvironment(os.Getenv)
	if err != nil {
		log.Error(err, "invalid environment")
		os.Exit(exitBadConfig)
	}
	if err := bindAddressesFree(cfg, net.Listen); err != nil {
		log.Error(err, "invalid environment")
		os.Exit(exitBadConfig)
	}
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "no API server to talk to: set KUBECONFIG to the operator's kubeconfig file")
		os.Exit(exitBadConfig)
	}
	// Named like every implementation, "modeldock-<language>/...": the API server takes the
	// part before "/" as the field manager of writes that name none (managedFields, audit log).
	restConfig.UserAgent = clientUserAgent()
	// Every client of the process (the manager's, the live reader, the Event recorder's, the
	// Lease lock's) is built from restConfig, so each goes through apiTransport; the real
	// operator's is client-go's transport as built, whose REST client honours Retry-After.
	restConfig.Wrap(apiTransport)

	// The CRD may come after the operator (CONTRACT.md, "Process"): ask discovery, with
	// backoff, before anything needs it. A signal meanwhile stops the process, as one before
	// the caches synced does.
	ctx := ctrl.SetupSignalHandler()
	crdDiscovery, err := newCRDDiscovery(restConfig, cfg.RequestTimeout)
	if err != nil {
		log.Error(err, "unable to create the discovery client")
		os.Exit(1)
	}
	stopProbes := serveProbesWhileWaiting(cfg.HealthProbeBindAddress)
	err = crdWait(ctx, crdDiscovery)
	stopProbes()
	if err != nil {
		if ctx.Err() != nil {
			log.Info("Stopped before the informer caches synced")
			return
		}
		log.Error(err, "the ModelService CRD is not served")
		os.Exit(1)
	}

	// The Lease lock is built here so that main knows the identity and can release the Lease
	// after the manager has stopped (see leaderelection.go).
	var lock *resourcelock.LeaseLock
	var identity string
	if cfg.LeaderElection {
		lock, identity, err = newLeaseLock(restConfig, cfg.LeaderElectionNamespace, leaderElectionID)
		if err != nil {
			log.Error(err, "unable to create the Lease lock")
			os.Exit(1)
		}
	}

	options := ctrl.Options{
		Cache:                         managerCacheOptions(cfg.WatchNamespace),
		Client:                        clientOptions(),
		NewClient:                     newClient(cfg.RequestTimeout),
		Metrics:                       metricsserver.Options{BindAddress: cfg.MetricsBindAddress},
		HealthProbeBindAddress:        cfg.HealthProbeBindAddress,
		LeaderElection:                cfg.LeaderElection,
		LeaderElectionID:              leaderElectionID,
		LeaderElectionNamespace:       cfg.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: false, // released by main, after the controllers stop
		LeaseDuration:                 &cfg.LeaseDuration,
		RenewDeadline:                 &cfg.RenewDeadline,
		RetryPeriod:                   &cfg.RetryPeriod,
	}
	if lock != nil {
		options.LeaderElectionResourceLockInterface = electionLock(lock)
	}
	if b := eventBroadcaster(); b != nil {
		options.EventBroadcaster = b //nolint:staticcheck // a mutant's only (seams.go)
	}
	metrics.Registry = metricsRegistry(metrics.Registry)
	mgr, err := ctrl.NewManager(restConfig, options)
	if err != nil {
		log.Error(err, "unable to create manager")
		os.Exit(1)
	}

	apiReader, err := newAPIReader(mgr, cfg.RequestTimeout)
	if err != nil {
		log.Error(err, "unable to create the live reader")
		os.Exit(1)
	}
	r := &ModelServiceReconciler{Client: mgr.GetClient(), APIReader: apiReader,
		Recorder: mgr.GetEventRecorderFor(eventComponent), Clock: clock.RealClock{}, Catalog: catalog}
	if err := r.SetupWithManager(mgr, cfg.MaxConcurrentReconciles); err != nil {
		log.Error(err, "unable to create controller", "controller", "modelservice")
		os.Exit(1)
	}

	// Informers for the three kinds are created now, not when the controller starts. The
	// controller starts only on the leader, but every instance keeps a warm cache: /readyz
	// then means "caches synced" on a standby too, and a new leader starts from a full cache.
	if err := addInformers(ctx, mgr.GetCache()); err != nil {
		log.Error(err, "unable to create informers")
		os.Exit(1)
	}

	// othersStarted: the manager is past waiting for its caches (it starts this runnable only
	// then); synced: /readyz.
	var othersStarted, synced atomic.Bool
	if err := mgr.Add(everyInstance(func(ctx context.Context) error {
		othersStarted.Store(true)
		synced.Store(mgr.GetCache().WaitForCacheSync(ctx))
		return nil
	})); err != nil {
		log.Error(err, "unable to add cache sync watcher")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		log.Error(err, "unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("informers", func(*http.Request) error {
		if !synced.Load() {
			return errors.New("informer caches not synced yet")
		}
		return nil
	}); err != nil {
		log.Error(err, "unable to set up ready check")
		os.Exit(1)
	}

	log.Info("starting manager", "watchNamespace", cfg.WatchNamespace,
		"leaderElection", cfg.LeaderElection, "workers", cfg.MaxConcurrentReconciles,
		"requestTimeout", cfg.RequestTimeout.Seconds())
	// controller-runtime v0.22's manager waits for its caches to sync before it starts
	// anything else, and once a signal has cancelled its context it goes on waiting
	// (runnableGroup.Start does not return on ctx.Done(); fixed upstream after v0.22). While a
	// list is refused (a right missing, the CRD not installed yet) SIGTERM would never stop
	// the process. Before the caches sync nothing has started (no worker, no Lease election),
	// so the process stops then (within cacheWaitGrace), as the Python operator's manager does.
	started := make(chan error, 1)
	go func() { started <- mgr.Start(ctx) }()
	select {
	case err = <-started:
	case <-ctx.Done():
		if !cacheWaitEnded(&othersStarted, started, &err) {
			log.Info("Stopped before the informer caches synced")
			return
		}
	}
	if err != nil {
		managerFailed(err)
	}
	if lock != nil {
		released, err := leaseRelease(context.Background(), lock, identity, cfg.RenewDeadline)
		switch {
		case err != nil:
			log.Error(err, "could not release the Lease; standbys wait for it to expire")
		case released:
			log.Info("Released Lease", "lease", cfg.LeaderElectionNamespace+"/"+leaderElectionID)
		}
	}
}

// exitAfterManagerError ends the process when the manager stopped with err, "leader election
// lost" included: it logs err and exits 1 at once, writing nothing more (no Lease release, no
// wait for the workers: after a lost Lease another instance may already be writing;
// leader-failover[lost-while-busy]). Called through managerFailed (seams.go).
func exitAfterManagerError(err error) {
	ctrl.Log.WithName("setup").Error(err, "manager stopped with an error")
	os.Exit(1)
}
