// The envtest test: Reconcile, called by hand, against a real kube-apiserver and etcd (no
// kubelet, no kube-controller-manager). The reconciler is built as main.go builds it, with a
// client that reads from an informer cache limited to the watch namespace and writes to the
// API server, and it runs as the operator's own user (modeldock:go) bound only to the role in
// config/rbac. The world around it (the user creating and editing ModelServices, a foreign
// Deployment) is played by the envtest admin.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"
)

const testNamespace = "modeldock-lab"

// worldStart is when the world's clock starts: the time the reconcilers read.
var worldStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// world is the running control plane, the reconciler's client and the admin's.
type world struct {
	t        *testing.T
	ctx      context.Context
	operator client.Client // as main.go: reads from the cache, writes to the API server
	live     client.Reader // as main.go's mgr.GetAPIReader(): the operator's user, uncached
	admin    client.Client // direct, system:masters: the user and the world
	// writes counts the operator client's write requests. A resourceVersion alone does not
	// show a useless write: the API server does not bump it for an update that changes nothing.
	writes *atomic.Int64
	// clock is every reconciler's Clock: a test moves time by setting it, never by sleeping.
	clock *clocktesting.FakePassiveClock
}

func TestAPIServerConvergence(t *testing.T) {
	w := startWorld(t)
	key := client.ObjectKey{Namespace: testNamespace, Name: "opt"}

	ms := newModelService()
	ms.SetNamespace(key.Namespace)
	ms.SetName(key.Name)
	ms.Object["spec"] = map[string]interface{}{"model": "facebook/opt-125m", "image": "vllm/vllm-openai:v0.6.0",
		"resources": map[string]interface{}{"requests": map[string]interface{}{"cpu": "1000m", "memory": "512Mi"}}}
	if err := w.admin.Create(w.ctx, ms); err != nil {
		t.Fatalf("creating the ModelService: %v", err)
	}
	r := w.reconciler()

	t.Run("create-converges", func(t *testing.T) {
		w.reconcile(r, key, ctrl.Result{})
		ms := w.modelService(key)
		dep, svc := w.deployment(key), w.service(key)
		if dep == nil || svc == nil {
			t.Fatalf("after one reconcile: Deployment %v, Service %v; want both", dep != nil, svc != nil)
		}
		for _, obj := range []metav1.Object{dep, svc} {
			if ref := metav1.GetControllerOf(obj); ref == nil || ref.UID != ms.GetUID() || !ptr.Deref(ref.BlockOwnerDeletion, false) {
				t.Errorf("%s: controller ownerReference %+v, want ModelService UID %s with blockOwnerDeletion", obj.GetName(), ref, ms.GetUID())
			}
		}
		if got := dep.Spec.Template.Spec.Containers[0].Args; len(got) != 2 || got[0] != "--model=facebook/opt-125m" || got[1] != "--port=8000" {
			t.Errorf("args = %v", got)
		}
		if got := ms.GetFinalizers(); len(got) != 1 || got[0] != finalizerName {
			t.Errorf("finalizers = %v", got)
		}
		if og, _, _ := unstructured.NestedInt64(ms.Object, "status", "observedGeneration"); og != ms.GetGeneration() {
			t.Errorf("status.observedGeneration = %d, generation = %d", og, ms.GetGeneration())
		}
	})

	t.Run("noop-stable", func(t *testing.T) {
		before, writes := w.resourceVersions(key), w.writes.Load()
		for i := 0; i < 3; i++ {
			w.reconcile(r, key, ctrl.Result{})
		}
		// A new reconciler, as after a restart, writes nothing either (the server-stored
		// cpu request "1" equals the spec's "1000m").
		w.reconcile(w.reconciler(), key, ctrl.Result{})
		if after := w.resourceVersions(key); after != before {
			t.Errorf("reconciles with nothing to change wrote: resourceVersions (ModelService, Deployment, Service) %v -> %v", before, after)
		}
		if n := w.writes.Load() - writes; n != 0 {
			t.Errorf("reconciles with nothing to change sent %d write requests, want 0", n)
		}
	})

	t.Run("progressing-without-kubelet", func(t *testing.T) {
		ready, progressing := w.conditions(key)
		if ready.Status != metav1.ConditionFalse || ready.Reason != reasonReplicasUnavailable ||
			progressing.Status != metav1.ConditionTrue || progressing.Reason != reasonRolloutInProgress {
			t.Fatalf("Ready = %+v, Progressing = %+v; want False/ReplicasUnavailable, True/RolloutInProgress", ready, progressing)
		}
		if want := `Deployment "opt" is waiting for the deployment controller to observe its latest spec`; ready.Message != want {
			t.Errorf("message = %q, want %q", ready.Message, want)
		}
		if !ready.LastTransitionTime.Time.Equal(worldStart) || !progressing.LastTransitionTime.Time.Equal(worldStart) {
			t.Errorf("lastTransitionTime = %v, %v; want %v, the reconciler's clock", ready.LastTransitionTime, progressing.LastTransitionTime, worldStart)
		}
		// An hour later on the reconciler's clock, so that a reconciler that stamped "now"
		// would show.
		w.clock.SetTime(w.clock.Now().Add(time.Hour))
		w.reconcile(r, key, ctrl.Result{})
		ready2, progressing2 := w.conditions(key)
		if !ready2.LastTransitionTime.Equal(&ready.LastTransitionTime) || !progressing2.LastTransitionTime.Equal(&progressing.LastTransitionTime) {
			t.Errorf("lastTransitionTime moved without a status change: %v -> %v, %v -> %v",
				ready.LastTransitionTime, ready2.LastTransitionTime, progressing.LastTransitionTime, progressing2.LastTransitionTime)
		}
	})

	t.Run("stale-update-conflict", func(t *testing.T) {
		stale := w.modelService(key)
		fresh := stale.DeepCopy()
		if err := unstructured.SetNestedField(fresh.Object, int64(2), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		if err := w.admin.Update(w.ctx, fresh); err != nil {
			t.Fatalf("update of the fresh copy: %v", err)
		}
		if err := unstructured.SetNestedField(stale.Object, int64(3), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		err := w.admin.Update(w.ctx, stale)
		if !apierrors.IsConflict(err) {
			t.Fatalf("update based on resourceVersion %s: got %v, want 409 Conflict", stale.GetResourceVersion(), err)
		}
		t.Logf("stale update refused as expected: %v", err)

		// A new reconciler, given nothing but the key, reads the world and converges.
		w.reconcile(w.reconciler(), key, ctrl.Result{})
		if got := ptr.Deref(w.deployment(key).Spec.Replicas, -1); got != 2 {
			t.Errorf("Deployment replicas = %d, want 2", got)
		}
		ms := w.modelService(key)
		if og, _, _ := unstructured.NestedInt64(ms.Object, "status", "observedGeneration"); og != ms.GetGeneration() {
			t.Errorf("status.observedGeneration = %d, generation = %d", og, ms.GetGeneration())
		}
		if ready, _ := w.conditions(key); ready.Message != `Deployment "opt" is waiting for the deployment controller to observe its latest spec` {
			t.Errorf("Ready message = %q", ready.Message)
		}
	})

	t.Run("child-repaired", func(t *testing.T) {
		dep := w.deployment(key)
		dep.Spec.Replicas = ptr.To[int32](7)
		dep.Annotations = map[string]string{"team": "ml"}
		if err := w.admin.Update(w.ctx, dep); err != nil {
			t.Fatal(err)
		}
		if err := w.admin.Delete(w.ctx, w.service(key)); err != nil {
			t.Fatal(err)
		}
		w.reconcile(r, key, ctrl.Result{})
		dep = w.deployment(key)
		if ptr.Deref(dep.Spec.Replicas, -1) != 2 || dep.Annotations["team"] != "ml" {
			t.Errorf("Deployment replicas = %d (want 2), annotations = %v (want team=ml kept)", ptr.Deref(dep.Spec.Replicas, -1), dep.Annotations)
		}
		if w.service(key) == nil {
			t.Error("deleted Service not recreated")
		}
	})

	t.Run("child-conflict", func(t *testing.T) {
		fkey := client.ObjectKey{Namespace: testNamespace, Name: "foreign"}
		labels := map[string]string{"app": "foreign"}
		foreign := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: fkey.Namespace, Name: fkey.Name},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
				},
			},
		}
		if err := w.admin.Create(w.ctx, foreign); err != nil {
			t.Fatal(err)
		}
		fms := newModelService()
		fms.SetNamespace(fkey.Namespace)
		fms.SetName(fkey.Name)
		fms.Object["spec"] = map[string]interface{}{"model": "m", "image": "i"}
		if err := w.admin.Create(w.ctx, fms); err != nil {
			t.Fatal(err)
		}
		w.settle(fkey)
		rv := w.deployment(fkey).ResourceVersion

		w.reconcile(r, fkey, ctrl.Result{RequeueAfter: 5 * time.Second})
		if dep := w.deployment(fkey); dep.ResourceVersion != rv || metav1.GetControllerOf(dep) != nil {
			t.Errorf("foreign Deployment written (resourceVersion %s -> %s) or adopted (%+v)", rv, dep.ResourceVersion, dep.OwnerReferences)
		}
		if w.service(fkey) != nil {
			t.Error("Service created although the Deployment is in conflict")
		}
		ready, progressing := w.conditions(fkey)
		want := `Deployment "foreign" exists and is not controlled by this ModelService`
		for _, c := range []metav1.Condition{ready, progressing} {
			if c.Status != metav1.ConditionFalse || c.Reason != reasonChildConflict || c.Message != want {
				t.Errorf("%s = %+v, want False/ChildConflict %q", c.Type, c, want)
			}
		}

		// Deleting that ModelService leaves the foreign Deployment alone.
		if err := w.admin.Delete(w.ctx, w.modelService(fkey)); err != nil {
			t.Fatal(err)
		}
		w.settle(fkey)
		w.reconcile(r, fkey, ctrl.Result{})
		if w.modelService(fkey) != nil {
			t.Error("finalizer not removed: nothing of ours was left to delete")
		}
		if dep := w.deployment(fkey); dep == nil || dep.ResourceVersion != rv {
			t.Errorf("foreign Deployment deleted or written during finalization: %v", dep)
		}
	})

	t.Run("finalizer-ordered-delete", func(t *testing.T) {
		if err := w.admin.Delete(w.ctx, w.modelService(key)); err != nil {
			t.Fatal(err)
		}
		w.settle(key)
		w.reconcile(r, key, ctrl.Result{RequeueAfter: time.Second})
		if w.deployment(key) != nil || w.service(key) != nil {
			t.Error("children not deleted")
		}
		ms := w.modelService(key)
		if ms == nil || len(ms.GetFinalizers()) != 1 {
			t.Fatalf("finalizer removed before the cache saw the children go: %v", ms)
		}
		w.reconcile(r, key, ctrl.Result{})
		if w.modelService(key) != nil {
			t.Error("ModelService still there after its children were gone")
		}
		w.reconcile(r, key, ctrl.Result{}) // gone: nothing to do, no error
	})
}

// TestFinalizeOnTheAPIServer covers the deletion paths that depend on what only the API
// server knows: children the cache has not seen yet, and the deletion policy the user chose.
func TestFinalizeOnTheAPIServer(t *testing.T) {
	w := startWorld(t)
	create := func(name string) client.ObjectKey {
		key := client.ObjectKey{Namespace: testNamespace, Name: name}
		ms := newModelService()
		ms.SetNamespace(key.Namespace)
		ms.SetName(key.Name)
		ms.Object["spec"] = map[string]interface{}{"model": "m", "image": "srv:1"}
		if err := w.admin.Create(w.ctx, ms); err != nil {
			t.Fatal(err)
		}
		w.reconcile(w.reconciler(), key, ctrl.Result{})
		if w.deployment(key) == nil || w.service(key) == nil {
			t.Fatalf("%s: children not created", name)
		}
		return key
	}

	t.Run("lagging cache", func(t *testing.T) {
		key := create("lagging")
		if err := w.admin.Delete(w.ctx, w.modelService(key)); err != nil {
			t.Fatal(err)
		}
		// A cache that has not seen this process's own creates: it holds no child at all.
		blind := interceptor.NewClient(w.operator.(client.WithWatch), interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				switch obj.(type) {
				case *appsv1.Deployment, *corev1.Service:
					return apierrors.NewNotFound(schema.GroupResource{Resource: "children"}, k.Name)
				}
				return c.Get(ctx, k, obj, opts...)
			},
		})
		r := &ModelServiceReconciler{Client: blind, APIReader: w.live, Clock: w.clock}
		w.reconcile(r, key, ctrl.Result{RequeueAfter: time.Second})
		if w.deployment(key) != nil || w.service(key) != nil {
			t.Error("children the cache did not hold were not deleted")
		}
		if ms := w.modelService(key); ms == nil || !controllerutil.ContainsFinalizer(ms, finalizerName) {
			t.Fatalf("finalizer removed in the pass that found children: %v", ms)
		}
		w.reconcile(r, key, ctrl.Result{})
		if w.modelService(key) != nil {
			t.Error("ModelService still there after the API server showed no child")
		}
	})

	t.Run("orphan policy", func(t *testing.T) {
		key := create("orphaned")
		ms := w.modelService(key)
		if err := w.admin.Delete(w.ctx, ms, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
			t.Fatal(err)
		}
		dep, svc := w.deployment(key).UID, w.service(key).UID
		w.reconcile(w.reconciler(), key, ctrl.Result{})
		if d, s := w.deployment(key), w.service(key); d == nil || s == nil || d.UID != dep || s.UID != svc {
			t.Errorf("children deleted although the user asked to orphan them: %v, %v", d, s)
		}
		// No garbage collector here: the API server's orphan finalizer stays, ours is gone.
		if got := w.modelService(key).GetFinalizers(); len(got) != 1 || got[0] != metav1.FinalizerOrphanDependents {
			t.Errorf("finalizers = %v, want only %q", got, metav1.FinalizerOrphanDependents)
		}
	})
}

// startWorld starts kube-apiserver and etcd from KUBEBUILDER_ASSETS, installs the CRD, the
// namespace and the operator's RBAC, and starts the operator's cache.
func startWorld(t *testing.T) *world {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: it must name a directory holding kube-apiserver, etcd and kubectl " +
			"(the Makefile sets it; build them with `make binaries`). Nothing is downloaded.")
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "crds")},
		ErrorIfCRDPathMissing: true,
		DownloadBinaryAssets:  false,
	}
	started := time.Now()
	adminConfig, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest from KUBEBUILDER_ASSETS=%s: %v", os.Getenv("KUBEBUILDER_ASSETS"), err)
	}
	t.Logf("control plane up in %s", time.Since(started).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // runs before env.Stop

	admin, err := client.New(adminConfig, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}); err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	var binding rbacv1.RoleBinding
	readYAML(t, "../config/rbac/role.yaml", &role)
	readYAML(t, "../config/rbac/role_binding.yaml", &binding)
	binding.Namespace = testNamespace
	for _, obj := range []client.Object{&role, &binding} {
		if err := admin.Create(ctx, obj); err != nil {
			t.Fatalf("creating %s: %v", obj.GetName(), err)
		}
	}
	user, err := env.AddUser(envtest.User{Name: "modeldock:go"}, nil)
	if err != nil {
		t.Fatal(err)
	}

	operator, writes := operatorClient(t, ctx, user.Config())
	live, err := client.New(user.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, ctx: ctx, operator: operator, live: live, admin: admin, writes: writes,
		clock: clocktesting.NewFakePassiveClock(worldStart)}
}

// operatorClient is the manager's client, built by hand: the cache options of main.go, the
// same informers registered before the start, and the client options of main.go. It also
// counts write requests.
func operatorClient(t *testing.T, ctx context.Context, cfg *rest.Config) (client.Client, *atomic.Int64) {
	c, err := cache.New(cfg, cacheOptions(testNamespace))
	if err != nil {
		t.Fatal(err)
	}
	if err := addInformers(ctx, c); err != nil {
		t.Fatal(err)
	}
	go func() {
		if err := c.Start(ctx); err != nil {
			t.Errorf("cache stopped: %v", err)
		}
	}()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("operator cache did not sync")
	}
	opts := clientOptions()
	opts.Cache.Reader = c
	cl, err := client.NewWithWatch(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	writes := &atomic.Int64{}
	return interceptor.NewClient(cl, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			writes.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			writes.Add(1)
			return c.Patch(ctx, obj, p, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			writes.Add(1)
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			writes.Add(1)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			writes.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	}), writes
}

func readYAML(t *testing.T, path string, into interface{}) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// reconcile waits until the operator's cache holds what the API server holds for key (the
// ModelService and both children), calls Reconcile, checks its outcome, and waits again, so
// the next step reads a settled cache, as a controller would after the watch events arrived.
func (w *world) reconcile(r *ModelServiceReconciler, key client.ObjectKey, want ctrl.Result) {
	w.t.Helper()
	w.settle(key)
	got, err := r.Reconcile(w.ctx, ctrl.Request{NamespacedName: key})
	if err != nil || got != want {
		w.t.Fatalf("Reconcile(%s) = %+v, %v; want %+v, nil", key, got, err, want)
	}
	w.settle(key)
}

// settle waits until the cache and the API server agree on the three objects named key.
func (w *world) settle(key client.ObjectKey) {
	w.t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(w.ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, newObj := range []func() client.Object{
			func() client.Object { return newModelService() },
			func() client.Object { return &appsv1.Deployment{} },
			func() client.Object { return &corev1.Service{} },
		} {
			cached, direct := newObj(), newObj()
			cerr := w.operator.Get(ctx, key, cached)
			derr := w.admin.Get(ctx, key, direct)
			if client.IgnoreNotFound(cerr) != nil || client.IgnoreNotFound(derr) != nil {
				return false, fmt.Errorf("cache: %v, API server: %v", cerr, derr)
			}
			if apierrors.IsNotFound(cerr) != apierrors.IsNotFound(derr) || cached.GetResourceVersion() != direct.GetResourceVersion() {
				last = fmt.Sprintf("%T: cache rv %q (%v), API server rv %q (%v)", direct, cached.GetResourceVersion(), cerr, direct.GetResourceVersion(), derr)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		w.t.Fatalf("cache did not catch up with the API server for %s: %v; last: %s", key, err, last)
	}
}

// modelService, deployment and service read from the API server; nil when absent.
func (w *world) modelService(key client.ObjectKey) *unstructured.Unstructured {
	return get(w, key, newModelService())
}

func (w *world) deployment(key client.ObjectKey) *appsv1.Deployment {
	return get(w, key, &appsv1.Deployment{})
}

func (w *world) service(key client.ObjectKey) *corev1.Service {
	return get(w, key, &corev1.Service{})
}

func get[T client.Object](w *world, key client.ObjectKey, obj T) T {
	w.t.Helper()
	var zero T
	if err := w.admin.Get(w.ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return zero
		}
		w.t.Fatal(err)
	}
	return obj
}

// reconciler is a fresh reconciler wired as main.go wires it: the cached client and the
// uncached APIReader, both as the operator's user; its clock is the world's.
func (w *world) reconciler() *ModelServiceReconciler {
	return &ModelServiceReconciler{Client: w.operator, APIReader: w.live, Clock: w.clock}
}

// resourceVersions of the ModelService, the Deployment and the Service.
func (w *world) resourceVersions(key client.ObjectKey) [3]string {
	w.t.Helper()
	return [3]string{w.modelService(key).GetResourceVersion(), w.deployment(key).ResourceVersion, w.service(key).ResourceVersion}
}

// conditions returns the stored Ready and Progressing conditions.
func (w *world) conditions(key client.ObjectKey) (ready, progressing metav1.Condition) {
	w.t.Helper()
	raw, _, _ := unstructured.NestedMap(w.modelService(key).Object, "status")
	var status decodedStatus
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
		w.t.Fatal(err)
	}
	r, p := meta.FindStatusCondition(status.Conditions, conditionReady), meta.FindStatusCondition(status.Conditions, conditionProgressing)
	if r == nil || p == nil {
		w.t.Fatalf("conditions = %+v, want Ready and Progressing", status.Conditions)
	}
	return *r, *p
}
