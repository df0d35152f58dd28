// Unit tests of the Events the reconciler records (CONTRACT.md, "Events"): Reconcile against
// controller-runtime's fake client, with client-go's record.FakeRecorder. No API server; the
// recorder's own aggregation (EventCorrelator) is client-go's and is not retested here. Each
// test has the name of its Python twin in python_operator/tests/test_controller.py.
package main

import (
	"context"
	"errors"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var eventsKey = client.ObjectKey{Namespace: "lab", Name: "opt"}

// fakeWorld is a fake API server holding objs (a ModelService as unstructured, children
// typed), with funcs intercepting the reconciler's requests.
func fakeWorld(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scheme.AddKnownTypeWithName(modelServiceGVK, &unstructured.Unstructured{})
	scheme.AddKnownTypeWithName(modelServiceGVK.GroupVersion().WithKind(modelServiceGVK.Kind+"List"), &unstructured.UnstructuredList{})
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(newModelService()).WithInterceptorFuncs(funcs).Build()
}

// reconcileEvents runs one Reconcile of eventsKey and returns the Events it recorded, in
// FakeRecorder's form "<type> <reason> <message>", and its error.
func reconcileEvents(t *testing.T, c client.Client) ([]string, error) {
	t.Helper()
	rec := record.NewFakeRecorder(100)
	_, err := (&ModelServiceReconciler{Client: c, APIReader: c, Recorder: rec}).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	return got, err
}

func wantEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("events:\n  got  %q\n  want %q", got, want)
	}
}

// eventsModelService is a new ModelService "lab/opt", as the API server stores it.
func eventsModelService() *unstructured.Unstructured {
	ms := testModelService(nil)
	ms.SetResourceVersion("")
	return ms
}

// converge reconciles until a Reconcile records nothing, and fails after 5.
func converge(t *testing.T, c client.Client) {
	t.Helper()
	for i := 0; i < 5; i++ {
		got, err := reconcileEvents(t, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			return
		}
	}
	t.Fatal("still recording events after 5 reconciles")
}

func TestEventsForTheChildrenANewModelServiceGets(t *testing.T) {
	c := fakeWorld(t, interceptor.Funcs{}, eventsModelService())
	got, err := reconcileEvents(t, c)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, got, `Normal CreatedDeployment Created Deployment "opt"`, `Normal CreatedService Created Service "opt"`)
}

func TestEventsNoneWhenNothingChanges(t *testing.T) {
	c := fakeWorld(t, interceptor.Funcs{}, eventsModelService())
	converge(t, c)
	for i := 0; i < 3; i++ {
		got, err := reconcileEvents(t, c)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, got)
	}
}

func TestEventsForRepairs(t *testing.T) {
	c := fakeWorld(t, interceptor.Funcs{}, eventsModelService())
	converge(t, c)
	dep := &appsv1.Deployment{}
	if err := c.Get(context.Background(), eventsKey, dep); err != nil {
		t.Fatal(err)
	}
	dep.Spec.Replicas = ptr.To[int32](7)
	if err := c.Update(context.Background(), dep); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(context.Background(), &corev1.Service{ObjectMeta: dep.ObjectMeta}); err != nil {
		t.Fatal(err)
	}
	got, err := reconcileEvents(t, c)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, got, `Normal UpdatedDeployment Updated Deployment "opt"`, `Normal CreatedService Created Service "opt"`)
}

func TestEventsChildConflictIsAWarningEveryTimeItIsFound(t *testing.T) {
	foreign := desiredDeployment(eventsModelService(), mustSpec(t, eventsModelService()))
	foreign.OwnerReferences = nil
	delete(foreign.Labels, labelModelService) // ownerless and unlabelled: not adoptable
	c := fakeWorld(t, interceptor.Funcs{}, eventsModelService(), foreign)
	want := `Warning ChildConflict Deployment "opt" exists and is not controlled by this ModelService`
	for i := 0; i < 2; i++ { // the recorder, not the reconciler, folds repeats into one Event
		got, err := reconcileEvents(t, c)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, got, want)
	}
}

func TestEventsAFailedWriteIsAWarningWithTheError(t *testing.T) {
	refused := errors.New("refused")
	fail := func(verb string) interceptor.Funcs {
		return interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if verb == "create" && kindOf(obj) == kindService {
					return refused
				}
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if verb == "finalizer" {
					return refused
				}
				return c.Update(ctx, obj, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				if verb == "status" {
					return refused
				}
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
		}
	}
	for verb, want := range map[string][]string{
		"finalizer": {`Warning FailedUpdate Failed to update ModelService "opt": refused`},
		"create":    {`Normal CreatedDeployment Created Deployment "opt"`, `Warning FailedCreate Failed to create Service "opt": refused`},
		"status":    {`Normal CreatedDeployment Created Deployment "opt"`, `Normal CreatedService Created Service "opt"`, `Warning FailedUpdate Failed to update status of ModelService "opt": refused`},
	} {
		t.Run(verb, func(t *testing.T) {
			got, err := reconcileEvents(t, fakeWorld(t, fail(verb), eventsModelService()))
			if !errors.Is(err, refused) {
				t.Errorf("error = %v, want the refused write's", err)
			}
			wantEvents(t, got, want...)
		})
	}
}

func TestEventsA409IsNoWarningTheNextReconcileRecomputes(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	for _, conflict := range []error{apierrors.NewConflict(gr, "opt", errors.New("the object has been modified")), apierrors.NewAlreadyExists(gr, "opt")} {
		c := fakeWorld(t, interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if kindOf(obj) == kindDeployment {
					return conflict
				}
				return c.Create(ctx, obj, opts...)
			},
		}, eventsModelService())
		got, err := reconcileEvents(t, c)
		if err != conflict {
			t.Errorf("error = %v, want %v", err, conflict)
		}
		wantEvents(t, got)
	}
}

// deletingWorld is a converged ModelService "lab/opt", then deleted: it waits for our
// finalizer. From then on, every delete fails with *deleteErr while that is not nil.
func deletingWorld(t *testing.T, deleteErr *error) client.Client {
	t.Helper()
	c := fakeWorld(t, interceptor.Funcs{
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if *deleteErr != nil {
				return *deleteErr
			}
			return c.Delete(ctx, obj, opts...)
		},
	}, eventsModelService())
	converge(t, c)
	ms := newModelService()
	if err := c.Get(context.Background(), eventsKey, ms); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEventsAChildAlreadyGoneIsNoFailureButARefusedDeleteIs(t *testing.T) {
	var deleteErr error
	c := deletingWorld(t, &deleteErr)
	deleteErr = apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "opt")
	got, err := reconcileEvents(t, c)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, got)

	deleteErr = errors.New("etcd is down")
	got, _ = reconcileEvents(t, c)
	wantEvents(t, got, `Warning FailedDelete Failed to delete Deployment "opt": etcd is down`)
}

func TestEventsForCleanup(t *testing.T) {
	var deleteErr error
	c := deletingWorld(t, &deleteErr)
	got, err := reconcileEvents(t, c)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, got, `Normal DeletedDeployment Deleted Deployment "opt"`, `Normal DeletedService Deleted Service "opt"`)
	got, err = reconcileEvents(t, c)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, got, `Normal RemovedFinalizer Removed finalizer "modeldock.io/cleanup"`)
}

func TestEventsWithoutARecorderNothingIsRecordedAndNothingBreaks(t *testing.T) {
	c := fakeWorld(t, interceptor.Funcs{}, eventsModelService())
	if _, err := (&ModelServiceReconciler{Client: c, APIReader: c}).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey}); err != nil {
		t.Fatal(err)
	}
}
