// Unit tests of Reconcile's steps against controller-runtime's fake client: the writes each
// situation costs, in order, and what they leave. No API server (controller_test.go runs the
// same steps against one). Each test has the name of its Python twin in
// python_operator/tests/test_controller.py (TestFinalizeLeavesReplacedChildAlone is
// test_finalize_leaves_replaced_child_alone).
package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// stepsStart is the time on the clock of every reconciler in these tests.
var stepsStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// write is one write request a fake world was sent: "<verb> <Kind>" (verb create, update,
// update_status or delete, as Python's World.verbs() spells them) and, for a delete, its
// options.
type write struct {
	what   string
	delete client.DeleteOptions
}

// writeLog is a fake world (fakeWorld) that records every write sent to it, in order, and
// fails each one with fail while that is not nil. attempts holds every write sent; writes only
// those that succeeded.
type writeLog struct {
	client.Client
	attempts, writes []write
	fail             error
	// refuse fails only the writes it names ("create Deployment"), with its error.
	refuse map[string]error
	// failStatus fails each status update (and only those) while it is not nil.
	failStatus error
}

// stepsWorld is a fake API server holding objs, logging the writes sent to it.
func stepsWorld(t *testing.T, objs ...client.Object) *writeLog {
	t.Helper()
	l := &writeLog{}
	send := func(verb string, obj client.Object, del client.DeleteOptions, do func() error) error {
		w := write{what: verb + " " + kindOfAny(obj), delete: del}
		l.attempts = append(l.attempts, w)
		if l.fail != nil {
			return l.fail
		}
		if err := l.refuse[w.what]; err != nil {
			return err
		}
		if l.failStatus != nil && strings.HasPrefix(verb, "update_") {
			return l.failStatus
		}
		if err := do(); err != nil {
			return err
		}
		l.writes = append(l.writes, w)
		return nil
	}
	l.Client = fakeWorld(t, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return send("create", obj, client.DeleteOptions{}, func() error {
				if obj.GetUID() == "" {
					obj.SetUID(types.UID(strings.ToLower(kindOfAny(obj)) + "-uid")) // as the API server does
				}
				return c.Create(ctx, obj, opts...)
			})
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return send("update", obj, client.DeleteOptions{}, func() error { return c.Update(ctx, obj, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			del := client.DeleteOptions{}
			del.ApplyOptions(opts)
			return send("delete", obj, del, func() error { return c.Delete(ctx, obj, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return send("update_"+sub, obj, client.DeleteOptions{}, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
	}, objs...)
	return l
}

// kindOfAny is kindOf, and the kind an unstructured object names for itself.
func kindOfAny(obj client.Object) string {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.GetKind()
	}
	return kindOf(obj)
}

// verbs are the writes that succeeded, "<verb> <Kind>" each.
func (l *writeLog) verbs() []string {
	var out []string
	for _, w := range l.writes {
		out = append(out, w.what)
	}
	return out
}

// reset forgets the writes so far: the test's own set-up writes go through the log too.
func (l *writeLog) reset() { l.attempts, l.writes = nil, nil }

// reconcile runs one Reconcile of eventsKey, as main.go wires it (cache and API reader alike
// are the fake world here) and checks that it returns want and no error.
func (l *writeLog) reconcile(t *testing.T, want ctrl.Result) {
	t.Helper()
	got, err := l.reconciler(l).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if err != nil || got != want {
		t.Fatalf("Reconcile = %+v, %v; want %+v, nil", got, err, want)
	}
}

// reconciler is a reconciler whose cache is cache and whose API reader is the world.
func (l *writeLog) reconciler(cache client.Client) *ModelServiceReconciler {
	return &ModelServiceReconciler{Client: cache, APIReader: l.Client, Clock: clocktesting.NewFakePassiveClock(stepsStart)}
}

// stepsModelService is "lab/opt" with our finalizer, as a reconcile leaves it.
func stepsModelService() *unstructured.Unstructured {
	ms := eventsModelService()
	ms.SetFinalizers([]string{finalizerName})
	return ms
}

// get reads key's object of obj's type from the world; nil when there is none.
func getObj[T client.Object](t *testing.T, c client.Client, obj T) T {
	t.Helper()
	var zero T
	if err := c.Get(context.Background(), eventsKey, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return zero
		}
		t.Fatal(err)
	}
	return obj
}

// edit reads key's object of obj's type, applies change, and writes it back (as the user),
// then forgets that write.
func edit[T client.Object](t *testing.T, l *writeLog, obj T, change func(T)) {
	t.Helper()
	obj = getObj(t, l, obj)
	change(obj)
	if err := l.Update(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	l.reset()
}

// convergedWorld is a world in which "lab/opt" has been reconciled until nothing changes, with
// the log reset.
func convergedWorld(t *testing.T) *writeLog {
	t.Helper()
	l := stepsWorld(t, eventsModelService())
	converge(t, l)
	l.reset()
	return l
}

// deleteAs deletes key's object of obj's type as the user would, and forgets that write.
func deleteAs(t *testing.T, l *writeLog, obj client.Object) {
	t.Helper()
	obj.SetNamespace(eventsKey.Namespace)
	obj.SetName(eventsKey.Name)
	if err := l.Delete(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	l.reset()
}

func wantVerbs(t *testing.T, l *writeLog, want ...string) {
	t.Helper()
	if got := l.verbs(); !slices.Equal(got, want) {
		t.Errorf("writes:\n  got  %q\n  want %q", got, want)
	}
}

func TestReconcileGoneModelServiceDoesNothing(t *testing.T) {
	l := stepsWorld(t)
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l)
}

func TestReconcileNewModelServiceWritesFinalizerChildrenStatus(t *testing.T) {
	l := stepsWorld(t, eventsModelService())
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update ModelService", "create Deployment", "create Service", "update_status ModelService")
	ms := getObj(t, l, newModelService())
	if got := ms.GetFinalizers(); !slices.Equal(got, []string{finalizerName}) {
		t.Errorf("finalizers = %v", got)
	}
	if getObj(t, l, &appsv1.Deployment{}) == nil || getObj(t, l, &corev1.Service{}) == nil {
		t.Error("children not created")
	}
	if c := conditionOf(t, ms, conditionProgressing); c.Reason != reasonRolloutInProgress || !c.LastTransitionTime.Time.Equal(stepsStart) {
		t.Errorf("Progressing = %+v, want RolloutInProgress since %v", c, stepsStart)
	}
}

func TestReconcileConvergedWorldMakesNoWrite(t *testing.T) {
	l := convergedWorld(t)
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l)
}

func TestReconcileRepairsHandEditedDeploymentAndDeletedService(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) {
		d.Spec.Replicas = ptr.To[int32](7)
		d.Annotations = map[string]string{"foreign": "kept"}
	})
	deleteAs(t, l, &corev1.Service{})
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update Deployment", "create Service")
	if d := getObj(t, l, &appsv1.Deployment{}); *d.Spec.Replicas != 1 || d.Annotations["foreign"] != "kept" {
		t.Errorf("Deployment replicas %d (want 1), annotations %v (want foreign kept)", *d.Spec.Replicas, d.Annotations)
	}
}

func TestReconcileForeignDeploymentIsNotAdopted(t *testing.T) {
	foreign := desiredDeployment(eventsModelService(), mustSpec(t, eventsModelService()))
	// Ownerless and without our selector label: made by hand, not ours (CONTRACT.md,
	// "Ownership").
	foreign.OwnerReferences = nil
	delete(foreign.Labels, labelModelService)
	l := stepsWorld(t, stepsModelService(), foreign)
	// Polled: the foreign child's events never map to this ModelService.
	l.reconcile(t, ctrl.Result{RequeueAfter: 5 * time.Second})
	wantVerbs(t, l, "update_status ModelService")
	ms := getObj(t, l, newModelService())
	want := `Deployment "opt" exists and is not controlled by this ModelService`
	for _, condType := range ownedConditions {
		if c := conditionOf(t, ms, condType); c.Status != metav1.ConditionFalse || c.Reason != reasonChildConflict || c.Message != want {
			t.Errorf("%s = %+v", condType, c)
		}
	}
}

func TestReconcileOwnerlessLabelledChildrenAreAdopted(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.OwnerReferences = nil })
	edit(t, l, &corev1.Service{}, func(s *corev1.Service) { s.OwnerReferences = nil })
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update Deployment", "update Service")
	ms := getObj(t, l, newModelService())
	if !controlledBy(getObj(t, l, &appsv1.Deployment{}), ms) || !controlledBy(getObj(t, l, &corev1.Service{}), ms) {
		t.Error("the ownerless children were not adopted")
	}
}

func TestReconcileAdoptionNeedsTheModelServiceLive(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.OwnerReferences = nil })
	// The cache still holds the ModelService; the API server no longer does.
	cache := stepsWorld(t, getObj(t, l, newModelService()), getObj(t, l, &appsv1.Deployment{}))
	deleteAs(t, l, newModelService())
	r := &ModelServiceReconciler{Client: cache, APIReader: l.Client, Clock: clocktesting.NewFakePassiveClock(stepsStart)}
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if err == nil || !strings.Contains(err.Error(), `not adopting Deployment "opt"`) {
		t.Fatalf("error = %v, want not adopting", err)
	}
	if len(cache.writes) != 0 {
		t.Errorf("writes %v, want none", cache.writes)
	}
}

func TestReconcileImmutableSelectorReplacesTheDeployment(t *testing.T) {
	ms := stepsModelService()
	old := desiredDeployment(ms, mustSpec(t, ms))
	old.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{labelName: "opt"}}
	old.UID = "old-uid" // the fake client gives no object a UID; an API server would
	l := stepsWorld(t, ms, old)
	l.reconcile(t, ctrl.Result{})
	if len(l.writes) == 0 || l.writes[0].what != "delete Deployment" {
		t.Fatalf("writes %v, want a delete of the Deployment first", l.verbs())
	}
	del := l.writes[0].delete
	if del.Preconditions == nil || del.Preconditions.UID == nil || *del.Preconditions.UID != old.UID ||
		del.PropagationPolicy == nil || *del.PropagationPolicy != metav1.DeletePropagationBackground {
		t.Errorf("delete options %+v, want the UID precondition and Background", del)
	}
	for _, w := range l.writes {
		if w.what == "update Deployment" {
			t.Errorf("an update of the immutable selector was sent: %v", l.verbs())
		}
	}
}

func TestReconcileForeignServiceIsNotAdopted(t *testing.T) {
	l := convergedWorld(t)
	// Controlled by another kind: a ModelService of this name would be a vanished one
	// (TestReconcileChildOfVanishedModelServiceIsReplaced).
	edit(t, l, &corev1.Service{}, func(s *corev1.Service) {
		s.OwnerReferences[0] = metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "opt", UID: "someone-else", Controller: ptr.To(true)}
	})
	l.reconcile(t, ctrl.Result{RequeueAfter: 5 * time.Second})
	wantVerbs(t, l, "update_status ModelService")
	want := `Service "opt" exists and is not controlled by this ModelService`
	if c := conditionOf(t, getObj(t, l, newModelService()), conditionReady); c.Message != want {
		t.Errorf("Ready message = %q, want %q", c.Message, want)
	}
}

func TestReconcileChildOfVanishedModelServiceIsReplaced(t *testing.T) {
	l := convergedWorld(t)
	old := getObj(t, l, &corev1.Service{})
	edit(t, l, &corev1.Service{}, func(s *corev1.Service) { s.OwnerReferences[0].UID = "vanished-uid" })
	read := getObj(t, l, &corev1.Service{})
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "delete Service", "create Service")
	if del := l.writes[0].delete; del.Preconditions == nil || *del.Preconditions.UID != old.UID ||
		del.PropagationPolicy == nil || *del.PropagationPolicy != metav1.DeletePropagationBackground {
		t.Errorf("delete options %+v; want the UID precondition %s and Background", del, old.UID)
	}
	// the garbage collector's precondition too: the object as read, not one changed since
	if rv := l.writes[0].delete.Preconditions.ResourceVersion; rv == nil || *rv != read.GetResourceVersion() {
		t.Errorf("delete precondition resourceVersion %v, want %s (as read)", rv, read.GetResourceVersion())
	}
	ms := getObj(t, l, newModelService())
	if ref := metav1.GetControllerOf(getObj(t, l, &corev1.Service{})); ref == nil || ref.UID != ms.GetUID() {
		t.Errorf("the new Service's controller is %+v, want the ModelService %s", ref, ms.GetUID())
	}
}

// TestAVanishedOwnersChildChangedSinceReadIsReadAgainNotReplaced is the 409 path of
// vanished-owner[orphaned-unseen]: the delete of a dead owner's child carries the
// resourceVersion read, and a 409 (orphaned since, perhaps) ends the pass with the conflict:
// no create, no status write, no Event. Python twin:
// test_a_vanished_owners_child_changed_since_read_is_read_again_not_replaced.
func TestAVanishedOwnersChildChangedSinceReadIsReadAgainNotReplaced(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &corev1.Service{}, func(s *corev1.Service) { s.OwnerReferences[0].UID = "vanished-uid" })
	l.refuse = map[string]error{"delete Service": apierrors.NewConflict(
		schema.GroupResource{Resource: "services"}, "opt", errors.New("precondition failed"))}
	rec := record.NewFakeRecorder(10)
	r := l.reconciler(l)
	r.Recorder = rec
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if !apierrors.IsConflict(err) {
		t.Fatalf("error = %v, want the 409", err)
	}
	if len(l.attempts) != 1 || l.attempts[0].what != "delete Service" || len(l.writes) != 0 {
		t.Errorf("attempts %v, writes %v; want one refused delete of the Service", l.attempts, l.writes)
	}
	if len(rec.Events) != 0 {
		t.Errorf("recorded %q; want no Event", <-rec.Events)
	}
}

// TestAVanishedOwnersChildIsKeptWhenTheModelServiceInHandNoLongerHoldsTheName is
// vanished-owner[successor-unseen]: the cache still holds a ModelService the API server has
// deleted and re-created under the name, and the children are the new one's. They look like a
// dead owner's to the stale pass; the live read (confirmSuccessor) refuses before any delete.
func TestAVanishedOwnersChildIsKeptWhenTheModelServiceInHandNoLongerHoldsTheName(t *testing.T) {
	l := convergedWorld(t)
	stale := interceptor.NewClient(l.Client.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			err := c.Get(ctx, k, obj, opts...)
			if u, ok := obj.(*unstructured.Unstructured); ok && err == nil {
				u.SetUID("the-deleted-one") // the predecessor the cache still holds
			}
			return err
		},
	})
	_, err := l.reconciler(stale).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if err == nil || !strings.Contains(err.Error(), "not replacing Deployment \"opt\"") {
		t.Fatalf("error = %v, want the refusal to replace Deployment \"opt\"", err)
	}
	for _, w := range l.attempts {
		if strings.HasPrefix(w.what, "delete") || strings.HasPrefix(w.what, "create") {
			t.Errorf("sent %q: the living owner's child must be neither deleted nor replaced", w.what)
		}
	}
}

func TestReconcileStatusNotFoundDeletesChildrenOfVanishedModelService(t *testing.T) {
	l := stepsWorld(t, stepsModelService())
	l.failStatus = apierrors.NewNotFound(schema.GroupResource{Group: "modeldock.io", Resource: "modelservices"}, "opt")
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "create Deployment", "create Service", "delete Deployment", "delete Service")
	for _, w := range l.writes[2:] {
		if w.delete.Preconditions == nil || w.delete.Preconditions.UID == nil || *w.delete.Preconditions.UID == "" {
			t.Errorf("%s without a UID precondition: %+v", w.what, w.delete)
		}
	}
}

func TestReconcileWriteConflictIsNotRetried(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](7) })
	l.fail = apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "opt", errors.New("the object has been modified"))
	_, err := l.reconciler(l).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if !apierrors.IsConflict(err) {
		t.Fatalf("error = %v, want the 409", err)
	}
	// Sent once and refused: the 409 goes back to the queue, the write is not resent.
	if len(l.attempts) != 1 || l.attempts[0].what != "update Deployment" || len(l.writes) != 0 {
		t.Errorf("attempts %v, writes %v; want one refused update of the Deployment", l.attempts, l.writes)
	}
}

func TestFinalizeDeletesOwnChildrenWithUIDPreconditionThenWaits(t *testing.T) {
	l := convergedWorld(t)
	// The fake client gives no object a UID; an API server would.
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.UID = "dep-uid" })
	edit(t, l, &corev1.Service{}, func(s *corev1.Service) { s.UID = "svc-uid" })
	uids := []string{"dep-uid", "svc-uid"}
	deleteAs(t, l, newModelService())
	l.reconcile(t, ctrl.Result{RequeueAfter: time.Second})
	wantVerbs(t, l, "delete Deployment", "delete Service")
	for i, w := range l.writes {
		if p := w.delete.Preconditions; p == nil || p.UID == nil || string(*p.UID) != uids[i] ||
			ptr.Deref(w.delete.PropagationPolicy, "") != metav1.DeletePropagationBackground {
			t.Errorf("%s: preconditions %+v, propagationPolicy %q; want UID %q, Background", w.what, p, ptr.Deref(w.delete.PropagationPolicy, ""), uids[i])
		}
	}
}

func TestFinalizeRemovesFinalizerWhenChildrenAreGone(t *testing.T) {
	l := convergedWorld(t)
	deleteAs(t, l, newModelService())
	deleteAs(t, l, &appsv1.Deployment{})
	deleteAs(t, l, &corev1.Service{})
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update ModelService")
	if getObj(t, l, newModelService()) != nil {
		t.Error("ModelService still there: finalizer not removed")
	}
}

func TestFinalizeLeavesReplacedChildAlone(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.OwnerReferences[0].UID = "another-modelservice" })
	edit(t, l, &corev1.Service{}, func(s *corev1.Service) { s.OwnerReferences = nil })
	deleteAs(t, l, newModelService())
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update ModelService")
	if getObj(t, l, &appsv1.Deployment{}) == nil || getObj(t, l, &corev1.Service{}) == nil {
		t.Error("a child that is not ours was deleted")
	}
}

func TestFinalizeWithoutFinalizerDoesNothing(t *testing.T) {
	ms := eventsModelService()
	ms.SetFinalizers([]string{"example.com/audit"}) // someone else's, so that deletion waits
	dep := desiredDeployment(ms, mustSpec(t, ms))
	l := stepsWorld(t, ms, dep)
	deleteAs(t, l, newModelService())
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l)
}

func TestFinalizeReadsChildrenLiveNotFromALaggingCache(t *testing.T) {
	l := convergedWorld(t)
	deleteAs(t, l, newModelService())
	// A cache that has not seen this process's own creates: it holds no child at all.
	blind := interceptor.NewClient(l.Client.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			switch obj.(type) {
			case *appsv1.Deployment, *corev1.Service:
				return apierrors.NewNotFound(schema.GroupResource{Resource: "children"}, k.Name)
			}
			return c.Get(ctx, k, obj, opts...)
		},
	})
	got, err := l.reconciler(blind).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if err != nil || got != (ctrl.Result{RequeueAfter: time.Second}) {
		t.Fatalf("Reconcile = %+v, %v; want RequeueAfter 1s", got, err)
	}
	wantVerbs(t, l, "delete Deployment", "delete Service")
}

func TestFinalizeOrphanPolicyDeletesNoChildAndKeepsOtherFinalizers(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, newModelService(), func(ms *unstructured.Unstructured) {
		ms.SetFinalizers([]string{"example.com/audit", metav1.FinalizerOrphanDependents, finalizerName})
	})
	deleteAs(t, l, newModelService())
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update ModelService")
	want := []string{"example.com/audit", metav1.FinalizerOrphanDependents}
	if got := getObj(t, l, newModelService()).GetFinalizers(); !slices.Equal(got, want) {
		t.Errorf("finalizers = %v, want %v", got, want)
	}
}

// TestFinalizeHonoursAPolicySwitchedToOrphanSinceTheCacheRead is deletion-policy
// [switched-to-orphan]: the cache holds the first delete's view (no orphan), the API server the
// second's (kubectl delete --cascade=orphan of an object already deleting adds it): no child is
// deleted, and our finalizer comes off the live object, orphan kept.
func TestFinalizeHonoursAPolicySwitchedToOrphanSinceTheCacheRead(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, newModelService(), func(ms *unstructured.Unstructured) {
		ms.SetFinalizers([]string{metav1.FinalizerOrphanDependents, finalizerName})
	})
	deleteAs(t, l, newModelService())
	stale := interceptor.NewClient(l.Client.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			err := c.Get(ctx, k, obj, opts...)
			if u, ok := obj.(*unstructured.Unstructured); ok && err == nil {
				u.SetFinalizers([]string{finalizerName}) // the first delete's view
				u.SetResourceVersion("1")
			}
			return err
		},
	})
	got, err := l.reconciler(stale).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if err != nil || got != (ctrl.Result{}) {
		t.Fatalf("Reconcile = %+v, %v; want an empty Result", got, err)
	}
	wantVerbs(t, l, "update ModelService")
	want := []string{metav1.FinalizerOrphanDependents}
	if ms := getObj(t, l, newModelService()); ms == nil || !slices.Equal(ms.GetFinalizers(), want) {
		t.Errorf("ModelService %v; want it stored with finalizers %v", ms, want)
	}
}

func TestFinalizeOfAModelServiceGoneSinceTheCacheReadWritesNothing(t *testing.T) {
	l := convergedWorld(t)
	deleteAs(t, l, newModelService())
	held := getObj(t, l, newModelService()) // deleting, our finalizer on: what the cache keeps
	edit(t, l, newModelService(), func(ms *unstructured.Unstructured) { ms.SetFinalizers(nil) })
	if getObj(t, l, newModelService()) != nil {
		t.Fatal("set-up: the ModelService should be gone once its finalizers are")
	}
	cache := interceptor.NewClient(l.Client.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				held.DeepCopyInto(u)
				return nil
			}
			return c.Get(ctx, k, obj, opts...)
		},
	})
	got, err := l.reconciler(cache).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	if err != nil || got != (ctrl.Result{}) {
		t.Fatalf("Reconcile = %+v, %v; want an empty Result", got, err)
	}
	wantVerbs(t, l)
}

func TestFinalizeForegroundPolicyCleansUpAndKeepsItsFinalizer(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, newModelService(), func(ms *unstructured.Unstructured) {
		ms.SetFinalizers([]string{metav1.FinalizerDeleteDependents, finalizerName})
	})
	deleteAs(t, l, newModelService())
	l.reconcile(t, ctrl.Result{RequeueAfter: time.Second})
	wantVerbs(t, l, "delete Deployment", "delete Service")
	l.reset()
	l.reconcile(t, ctrl.Result{})
	wantVerbs(t, l, "update ModelService")
	if got := getObj(t, l, newModelService()).GetFinalizers(); !slices.Equal(got, []string{metav1.FinalizerDeleteDependents}) {
		t.Errorf("finalizers = %v, want only %q", got, metav1.FinalizerDeleteDependents)
	}
}

func TestFinalizeWaitsForAChildThatIsAlreadyDeleting(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.Finalizers = []string{"example.com/hold"} })
	deleteAs(t, l, &appsv1.Deployment{}) // held by its finalizer: deleting, not gone
	deleteAs(t, l, &corev1.Service{})
	deleteAs(t, l, newModelService())
	if getObj(t, l, &appsv1.Deployment{}).DeletionTimestamp == nil {
		t.Fatal("set-up: the Deployment is not deleting")
	}
	l.reconcile(t, ctrl.Result{RequeueAfter: time.Second})
	wantVerbs(t, l)
}

// conditionOf is ms's stored condition of type condType; the test fails if there is none.
func conditionOf(t *testing.T, ms *unstructured.Unstructured, condType string) metav1.Condition {
	t.Helper()
	raw, _, _ := unstructured.NestedMap(ms.Object, "status")
	s := decodeStatus(t, raw)
	c := meta.FindStatusCondition(s.Conditions, condType)
	if c == nil {
		t.Fatalf("no %s condition in %v", condType, fmt.Sprint(s.Conditions))
	}
	return *c
}

// rolloutStates are the Deployment states judgeRollout tells apart (Python: ROLLOUT_STATES).
var rolloutStates = []struct {
	generation int64
	status     appsv1.DeploymentStatus
	rollout    string
	message    string
}{
	{3, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 4},
		rolloutProgressing, `Deployment "opt" is waiting for the deployment controller to observe its latest spec`},
	{3, appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 4, UpdatedReplicas: 2, AvailableReplicas: 4},
		rolloutProgressing, `Deployment "opt" has 2/4 updated replicas`},
	{3, appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 5, UpdatedReplicas: 4, AvailableReplicas: 4},
		rolloutProgressing, `Deployment "opt" has 1 old replicas pending termination`},
	{3, appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 3},
		rolloutProgressing, `Deployment "opt" has 3/4 updated replicas available`},
	{3, appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 4},
		rolloutComplete, `Deployment "opt" has 4/4 available replicas`},
	{3, appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 4, UpdatedReplicas: 2, AvailableReplicas: 4,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
			Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "opt-7f" has timed out progressing.`}}},
		rolloutStalled, `Deployment "opt" exceeded its progress deadline: ReplicaSet "opt-7f" has timed out progressing.`},
	// A deadline reported for an older generation says nothing about this one.
	{4, appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 4, UpdatedReplicas: 2, AvailableReplicas: 4,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
			Reason: "ProgressDeadlineExceeded", Message: "old"}}},
		rolloutProgressing, `Deployment "opt" is waiting for the deployment controller to observe its latest spec`},
}

func TestJudgeRolloutFollowsKubectlRolloutStatus(t *testing.T) {
	for _, tc := range rolloutStates {
		dep := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4)}, Status: tc.status}
		dep.Generation = tc.generation
		if rollout, message := judgeRollout("opt", dep); rollout != tc.rollout || message != tc.message {
			t.Errorf("judgeRollout(%+v) = %s, %q; want %s, %q", tc.status, rollout, message, tc.rollout, tc.message)
		}
	}
}

func TestStatusReadyOnlyOnceTheRolloutIsComplete(t *testing.T) {
	want := map[string][4]string{
		rolloutProgressing: {"False", reasonReplicasUnavailable, "True", reasonRolloutInProgress},
		rolloutStalled:     {"False", reasonProgressDeadlineExceeded, "False", reasonProgressDeadlineExceeded},
		rolloutComplete:    {"True", reasonReplicasAvailable, "False", reasonRolloutComplete},
	}
	for _, tc := range rolloutStates {
		ms := testModelService(map[string]interface{}{"replicas": int64(4)})
		dep := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4)}, Status: tc.status}
		dep.Generation = tc.generation
		status, err := computeStatus(ms, mustSpec(t, ms), dep, "", stepsStart, nil)
		if err != nil {
			t.Fatal(err)
		}
		conds := decodeStatus(t, status).Conditions
		ready, progressing := meta.FindStatusCondition(conds, conditionReady), meta.FindStatusCondition(conds, conditionProgressing)
		got := [4]string{string(ready.Status), ready.Reason, string(progressing.Status), progressing.Reason}
		if got != want[tc.rollout] || ready.Message != tc.message || progressing.Message != tc.message {
			t.Errorf("%+v: Ready %+v, Progressing %+v; want %v, %q", tc.status, ready, progressing, want[tc.rollout], tc.message)
		}
	}
}

func TestBoundMessageCutsVisiblyToTheCRDLimit(t *testing.T) {
	if got := boundMessage("short"); got != "short" {
		t.Errorf("boundMessage(short) = %q", got)
	}
	exact := strings.Repeat("é", messageMaxLength)
	if got := boundMessage(exact); got != exact {
		t.Error("a message of exactly the limit was cut")
	}
	cut := boundMessage(strings.Repeat("é", messageMaxLength+1))
	if n := utf8.RuneCountInString(cut); n != messageMaxLength || !strings.HasSuffix(cut, truncatedMarker) {
		t.Errorf("cut to %d characters, suffix %q; want %d ending in %q", n, cut[len(cut)-20:], messageMaxLength, truncatedMarker)
	}
}

func TestReconcileRefusedCreateIsReportedInTheStatusOnce(t *testing.T) {
	l := stepsWorld(t, stepsModelService())
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "opt",
		field.ErrorList{field.Invalid(field.NewPath("spec"), strings.Repeat("x", 40000), "too long")})
	l.refuse = map[string]error{"create Deployment": invalid}
	for i := range 2 {
		_, err := l.reconciler(l).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
		if !apierrors.IsInvalid(err) || err.Error() != invalid.Error() {
			t.Fatalf("reconcile %d: error = %v, want the 422 as it came", i, err)
		}
	}
	// The retry meets the same refusal: the status already says so, no second write.
	wantVerbs(t, l, "update_status ModelService")
	ms := getObj(t, l, newModelService())
	if g, _, _ := unstructured.NestedInt64(ms.Object, "status", "observedGeneration"); g != ms.GetGeneration() {
		t.Errorf("status.observedGeneration = %d, want %d", g, ms.GetGeneration())
	}
	for _, condType := range ownedConditions {
		c := conditionOf(t, ms, condType)
		if c.Status != metav1.ConditionFalse || c.Reason != "FailedCreate" ||
			!strings.HasPrefix(c.Message, `Failed to create Deployment "opt": Deployment.apps "opt" is invalid`) ||
			utf8.RuneCountInString(c.Message) != messageMaxLength || !strings.HasSuffix(c.Message, truncatedMarker) {
			t.Errorf("%s = %s %s, message of %d characters", condType, c.Status, c.Reason, len(c.Message))
		}
	}

	// The write succeeds: the refusal is cleared in the same reconcile.
	l.refuse = nil
	l.reconcile(t, ctrl.Result{})
	if c := conditionOf(t, getObj(t, l, newModelService()), conditionProgressing); c.Reason != reasonRolloutInProgress {
		t.Errorf("Progressing = %+v after the write succeeded", c)
	}
}

func TestReconcileConflictIsNoRefusal(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](7) })
	l.refuse = map[string]error{"update Deployment": apierrors.NewConflict(
		schema.GroupResource{Group: "apps", Resource: "deployments"}, "opt", errors.New("stale"))}
	_, err := l.reconciler(l).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey})
	var refused *refusedWrite
	if !apierrors.IsConflict(err) || errors.As(err, &refused) {
		t.Fatalf("error = %#v, want the bare 409", err)
	}
	wantVerbs(t, l)
}

func TestReconcileRefusedDeploymentUpdateKeepsTheCountsItReads(t *testing.T) {
	l := convergedWorld(t)
	edit(t, l, &appsv1.Deployment{}, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](7) })
	dep := getObj(t, l, &appsv1.Deployment{})
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 7, AvailableReplicas: 7}
	if err := l.Status().Update(context.Background(), dep); err != nil {
		t.Fatal(err)
	}
	l.reset()
	l.refuse = map[string]error{"update Deployment": apierrors.NewForbidden(
		schema.GroupResource{Group: "apps", Resource: "deployments"}, "opt", errors.New("denied"))}
	if _, err := l.reconciler(l).Reconcile(context.Background(), ctrl.Request{NamespacedName: eventsKey}); !apierrors.IsForbidden(err) {
		t.Fatalf("error = %v, want the 403", err)
	}
	wantVerbs(t, l, "update_status ModelService")
	ms := getObj(t, l, newModelService())
	if n, _, _ := unstructured.NestedInt64(ms.Object, "status", "availableReplicas"); n != 7 {
		t.Errorf("status.availableReplicas = %d, want the 7 the Deployment reports", n)
	}
	want := `Failed to update Deployment "opt": ` + l.refuse["update Deployment"].Error()
	for _, condType := range ownedConditions {
		if c := conditionOf(t, ms, condType); c.Reason != "FailedUpdate" || c.Message != want {
			t.Errorf("%s = %s %q, want FailedUpdate %q", condType, c.Reason, c.Message, want)
		}
	}
}
