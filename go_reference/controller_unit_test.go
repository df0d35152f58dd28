// Unit tests of the pure parts of the reconciler: desired objects, mutate, conditions, status,
// configuration. No API server; controller_test.go has the envtest test.
//
// Each test has the name of its Python twin in python_operator/tests/ (TestStatusChildConflict-
// ZeroesReplicas is test_status_child_conflict_zeroes_replicas), where there is one.
package main

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// testModelService returns a ModelService as the API server would store it, defaults applied.
func testModelService(spec map[string]interface{}) *unstructured.Unstructured {
	full := map[string]interface{}{"model": "facebook/opt-125m", "image": "vllm/vllm-openai:v0.6.0", "replicas": int64(1), "port": int64(8000)}
	for k, v := range spec {
		full[k] = v
	}
	ms := newModelService()
	ms.SetName("opt")
	ms.SetNamespace("lab")
	ms.SetUID(types.UID("ms-uid"))
	ms.SetGeneration(3)
	ms.Object["spec"] = full
	return ms
}

func mustSpec(t *testing.T, ms *unstructured.Unstructured) modelServiceSpec {
	t.Helper()
	spec, err := readSpec(ms)
	if err != nil {
		t.Fatalf("readSpec: %v", err)
	}
	return spec
}

func TestDesiredDeployment(t *testing.T) {
	ms := testModelService(map[string]interface{}{
		"replicas": int64(2), "port": int64(9000), "args": []interface{}{"--dtype=half"},
		"resources": map[string]interface{}{"limits": map[string]interface{}{"cpu": "500m", "memory": int64(1073741824)}},
	})
	dep := desiredDeployment(ms, mustSpec(t, ms))

	wantLabels := map[string]string{"app.kubernetes.io/name": "opt", "app.kubernetes.io/managed-by": "modeldock", "modeldock.io/modelservice": "opt"}
	if dep.Name != "opt" || dep.Namespace != "lab" {
		t.Errorf("name = %s/%s, want lab/opt", dep.Namespace, dep.Name)
	}
	if !equality.Semantic.DeepEqual(dep.Labels, wantLabels) || !equality.Semantic.DeepEqual(dep.Spec.Template.Labels, wantLabels) {
		t.Errorf("labels = %v, template labels = %v, want %v", dep.Labels, dep.Spec.Template.Labels, wantLabels)
	}
	if got := dep.Spec.Selector.MatchLabels; len(got) != 1 || got["modeldock.io/modelservice"] != "opt" {
		t.Errorf("selector = %v", got)
	}
	if *dep.Spec.Replicas != 2 {
		t.Errorf("replicas = %d, want 2", *dep.Spec.Replicas)
	}
	wantRef := metav1.OwnerReference{APIVersion: "modeldock.io/v1alpha1", Kind: "ModelService", Name: "opt", UID: "ms-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	if len(dep.OwnerReferences) != 1 || !equality.Semantic.DeepEqual(dep.OwnerReferences[0], wantRef) {
		t.Errorf("ownerReferences = %+v", dep.OwnerReferences)
	}
	cs := dep.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "server" || cs[0].Image != "vllm/vllm-openai:v0.6.0" {
		t.Fatalf("containers = %+v", cs)
	}
	if got, want := strings.Join(cs[0].Args, " "), "--model=facebook/opt-125m --port=9000 --dtype=half"; got != want {
		t.Errorf("args = %q, want %q", got, want)
	}
	if want := []corev1.ContainerPort{{Name: "http", ContainerPort: 9000, Protocol: corev1.ProtocolTCP}}; !equality.Semantic.DeepEqual(cs[0].Ports, want) {
		t.Errorf("ports = %+v", cs[0].Ports)
	}
	if got := cs[0].Resources.Limits[corev1.ResourceMemory]; got.Cmp(resource.MustParse("1Gi")) != 0 {
		t.Errorf("memory limit = %s, want 1Gi", got.String())
	}
	if got := cs[0].Resources.Limits[corev1.ResourceCPU]; got.Cmp(resource.MustParse("0.5")) != 0 {
		t.Errorf("cpu limit = %s, want 500m", got.String())
	}
}

func TestReadSpecFillsCRDDefaults(t *testing.T) {
	ms := newModelService()
	ms.Object["spec"] = map[string]interface{}{"model": "m", "image": "i"}
	spec := mustSpec(t, ms)
	if *spec.Replicas != 1 || *spec.Port != 8000 {
		t.Errorf("defaults = replicas %d, port %d; want 1, 8000", *spec.Replicas, *spec.Port)
	}
	ms.Object["spec"] = map[string]interface{}{"model": "m", "image": "i", "replicas": int64(0)}
	if spec := mustSpec(t, ms); *spec.Replicas != 0 {
		t.Errorf("replicas 0 read as %d", *spec.Replicas)
	}
}

// The API server rounds every resource quantity up to milli when it stores a Deployment
// (SetDefaults_ResourceList); readSpec must compute the same, or "nothing changed" never holds.
func TestReadSpecRoundsResourcesAsTheAPIServerWill(t *testing.T) {
	ms := testModelService(map[string]interface{}{"resources": map[string]interface{}{
		"requests": map[string]interface{}{"cpu": "1.5m", "memory": "0.5Gi"},
		"limits":   map[string]interface{}{"cpu": "1e-4", "memory": "-0.5m"}}})
	r := mustSpec(t, ms).Resources
	for _, c := range []struct {
		got  resource.Quantity
		want string
	}{
		{r.Requests[corev1.ResourceCPU], "2m"},
		{r.Requests[corev1.ResourceMemory], "512Mi"},
		{r.Limits[corev1.ResourceCPU], "1e-3"},
		{r.Limits[corev1.ResourceMemory], "-1m"},
	} {
		// The text too: it is what the API server stores (conformance/quantity-spellings.json).
		if c.got.String() != c.want {
			t.Errorf("quantity = %s, want %s", c.got.String(), c.want)
		}
	}
}

func TestDesiredDeploymentWithoutResourcesHasEmptyResources(t *testing.T) {
	ms := testModelService(map[string]interface{}{"resources": map[string]interface{}{
		"limits": map[string]interface{}{}, "requests": map[string]interface{}{}}})
	r := desiredDeployment(ms, mustSpec(t, ms)).Spec.Template.Spec.Containers[0].Resources
	if len(r.Limits) != 0 || len(r.Requests) != 0 || len(r.Claims) != 0 {
		t.Errorf("resources = %+v, want none", r)
	}
}

func TestReadSpecRejectsWrongTypes(t *testing.T) {
	for _, bad := range []map[string]interface{}{
		{"replicas": "two"},
		{"port": true},
		{"args": "--x"},
		{"args": []interface{}{int64(1)}},
		{"resources": map[string]interface{}{"limits": []interface{}{"1"}}},
	} {
		_, err := readSpec(testModelService(bad))
		if err == nil || !strings.Contains(err.Error(), "reading spec of ModelService lab/opt") {
			t.Errorf("spec %v: error %v, want one naming the ModelService", bad, err)
		}
	}
}

func TestDesiredService(t *testing.T) {
	ms := testModelService(map[string]interface{}{"port": int64(9000)})
	svc := desiredService(ms, mustSpec(t, ms))
	if svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("type = %s", svc.Spec.Type)
	}
	if len(svc.Spec.Selector) != 1 || svc.Spec.Selector["modeldock.io/modelservice"] != "opt" {
		t.Errorf("selector = %v", svc.Spec.Selector)
	}
	want := []corev1.ServicePort{{Name: "http", Port: 9000, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}
	if !equality.Semantic.DeepEqual(svc.Spec.Ports, want) {
		t.Errorf("ports = %+v", svc.Spec.Ports)
	}
	if len(svc.Labels) != 3 || len(svc.OwnerReferences) != 1 || !*svc.OwnerReferences[0].Controller {
		t.Errorf("metadata = %+v", svc.ObjectMeta)
	}
}

// serverDefaultedDeployment is desired as the API server and the deployment controller hand it
// back: defaults filled in, bookkeeping set, a foreign annotation and label added.
func serverDefaultedDeployment(desired *appsv1.Deployment) *appsv1.Deployment {
	live := desired.DeepCopy()
	live.UID, live.ResourceVersion, live.Generation = "dep-uid", "4711", 1
	live.CreationTimestamp = metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	live.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1", "team": "ml"}
	live.Labels["extra"] = "kept"
	live.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "go_reference", Operation: metav1.ManagedFieldsOperationUpdate}}
	live.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	live.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	maxSurge, maxUnavailable := intstr.FromString("25%"), intstr.FromString("25%")
	live.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable}}
	pod := &live.Spec.Template.Spec
	pod.RestartPolicy = corev1.RestartPolicyAlways
	pod.TerminationGracePeriodSeconds = ptr.To[int64](30)
	pod.DNSPolicy = corev1.DNSClusterFirst
	pod.SecurityContext = &corev1.PodSecurityContext{}
	pod.SchedulerName = corev1.DefaultSchedulerName
	c := &pod.Containers[0]
	c.ImagePullPolicy = corev1.PullIfNotPresent
	c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	live.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1}
	return live
}

// mutated applies mutate to a deep copy of live, as ensureChild does, and says whether a write
// would follow.
func mutatedDeployment(live, desired *appsv1.Deployment) (*appsv1.Deployment, bool) {
	updated := live.DeepCopy()
	mutateDeployment(updated, desired)
	return updated, !equality.Semantic.DeepEqual(live, updated)
}

func TestMutateOfBareObjectBuildsTheDesiredObject(t *testing.T) {
	ms := testModelService(map[string]interface{}{"args": []interface{}{"-x"}})
	spec := mustSpec(t, ms)
	desired := desiredDeployment(ms, spec)
	bare := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "opt", Namespace: "lab"}}
	mutateDeployment(bare, desired)
	if !equality.Semantic.DeepEqual(bare, desired) {
		t.Errorf("mutate of a bare Deployment:\n got %+v\nwant %+v", bare, desired)
	}
	desiredSvc := desiredService(ms, spec)
	bareSvc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "opt", Namespace: "lab"}}
	mutateService(bareSvc, desiredSvc)
	if !equality.Semantic.DeepEqual(bareSvc, desiredSvc) {
		t.Errorf("mutate of a bare Service:\n got %+v\nwant %+v", bareSvc, desiredSvc)
	}
}

func TestMutateServerDefaultedDeploymentNeedsNoWrite(t *testing.T) {
	ms := testModelService(nil)
	desired := desiredDeployment(ms, mustSpec(t, ms))
	live := serverDefaultedDeployment(desired)
	if updated, write := mutatedDeployment(live, desired); write {
		t.Errorf("mutate changed a live object that already matches; it would write:\nlive    %+v\nupdated %+v", live, updated)
	}
}

func TestQuantitiesCompareByValue(t *testing.T) {
	ms := testModelService(map[string]interface{}{"resources": map[string]interface{}{
		"requests": map[string]interface{}{"cpu": "1000m", "memory": "1024Mi"}}})
	desired := desiredDeployment(ms, mustSpec(t, ms))
	live := serverDefaultedDeployment(desired)
	// The API server stores the canonical form.
	live.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}
	if _, write := mutatedDeployment(live, desired); write {
		t.Error("1000m vs 1 (or 1024Mi vs 1Gi) would cause a write; quantities must compare by value")
	}
	live.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
	if _, write := mutatedDeployment(live, desired); !write {
		t.Error("a different cpu request was not repaired")
	}
}

func TestMutateRevertsWhatTheModelServiceDecides(t *testing.T) {
	ms := testModelService(nil)
	desired := desiredDeployment(ms, mustSpec(t, ms))
	live := serverDefaultedDeployment(desired)
	live.Spec.Replicas = ptr.To[int32](5)
	live.Labels["app.kubernetes.io/managed-by"] = "someone"
	live.Spec.Template.Spec.Containers[0].Image = "other:latest"

	updated, write := mutatedDeployment(live, desired)
	if !write {
		t.Fatal("drift was not detected")
	}
	if *updated.Spec.Replicas != 1 || updated.Labels["app.kubernetes.io/managed-by"] != "modeldock" ||
		updated.Spec.Template.Spec.Containers[0].Image != "vllm/vllm-openai:v0.6.0" {
		t.Errorf("drift not repaired: %+v", updated)
	}

	desiredSvc := desiredService(ms, mustSpec(t, ms))
	liveSvc := serverDefaultedService(desiredSvc)
	liveSvc.Spec.Ports[0].Port = 1234
	updatedSvc := liveSvc.DeepCopy()
	mutateService(updatedSvc, desiredSvc)
	if updatedSvc.Spec.Ports[0].Port != 8000 || updatedSvc.Spec.ClusterIP != "10.0.0.12" {
		t.Errorf("port not repaired or clusterIP lost: %+v", updatedSvc.Spec)
	}
}

func TestMutateKeepsForeignLabelsAnnotationsAndContainers(t *testing.T) {
	ms := testModelService(nil)
	desired := desiredDeployment(ms, mustSpec(t, ms))
	live := serverDefaultedDeployment(desired)
	sidecar := corev1.Container{Name: "sidecar", Image: "envoy"}
	live.Spec.Template.Spec.Containers = append(live.Spec.Template.Spec.Containers, sidecar)
	live.Spec.Replicas = ptr.To[int32](5) // so that there is a write, and something to keep

	updated, _ := mutatedDeployment(live, desired)
	if updated.Labels["extra"] != "kept" || updated.Annotations["team"] != "ml" ||
		len(updated.Spec.Template.Spec.Containers) != 2 || updated.Spec.Template.Spec.Containers[1].Name != "sidecar" ||
		updated.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("fields of other writers or server defaults lost: %+v", updated)
	}
}

func TestMutateAppendsMissingServerContainer(t *testing.T) {
	ms := testModelService(nil)
	desired := desiredDeployment(ms, mustSpec(t, ms))
	live := serverDefaultedDeployment(desired)
	live.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar", Image: "envoy"}}
	updated, _ := mutatedDeployment(live, desired)
	if cs := updated.Spec.Template.Spec.Containers; len(cs) != 2 || cs[0].Name != "sidecar" || cs[1].Name != "server" {
		t.Errorf("containers = %+v, want sidecar then server", cs)
	}
}

// serverDefaultedService is desired as the API server hands it back: a cluster IP, IP families
// and the other defaults filled in, bookkeeping set, a foreign annotation added.
func serverDefaultedService(desired *corev1.Service) *corev1.Service {
	live := desired.DeepCopy()
	live.UID, live.ResourceVersion = "svc-uid", "4712"
	live.Annotations = map[string]string{"team": "ml"}
	live.Spec.ClusterIP, live.Spec.ClusterIPs = "10.0.0.12", []string{"10.0.0.12"}
	live.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	live.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
	live.Spec.SessionAffinity = corev1.ServiceAffinityNone
	live.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	return live
}

func TestMutateEnsuresOwnerReferenceAndKeepsOthers(t *testing.T) {
	ms := testModelService(nil)
	desired := desiredDeployment(ms, mustSpec(t, ms))
	live := serverDefaultedDeployment(desired)
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "cm-uid"}
	ours := desired.OwnerReferences[0]
	stale := *ours.DeepCopy()
	stale.BlockOwnerDeletion = ptr.To(false)
	live.OwnerReferences = []metav1.OwnerReference{other, stale}
	updated, _ := mutatedDeployment(live, desired)
	if want := []metav1.OwnerReference{other, ours}; !equality.Semantic.DeepEqual(updated.OwnerReferences, want) {
		t.Errorf("ownerReferences = %+v, want %+v", updated.OwnerReferences, want)
	}
}

func TestMutateServerDefaultedServiceNeedsNoWrite(t *testing.T) {
	ms := testModelService(nil)
	desired := desiredService(ms, mustSpec(t, ms))
	live := serverDefaultedService(desired)
	updated := live.DeepCopy()
	mutateService(updated, desired)
	if !equality.Semantic.DeepEqual(live, updated) {
		t.Errorf("mutate changed a live Service that already matches:\nlive    %+v\nupdated %+v", live, updated)
	}
}

func TestSetConditionNewGetsTransitionTime(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 999, time.UTC)
	var conds []metav1.Condition
	if !setCondition(&conds, "Ready", metav1.ConditionFalse, "ReplicasUnavailable", "0/1", 1, t0) {
		t.Error("a new condition reported no change")
	}
	if got := conds[0].LastTransitionTime.Time; len(conds) != 1 || !got.Equal(t0.Truncate(time.Second)) {
		t.Fatalf("conditions = %+v, want one with lastTransitionTime %v (seconds, UTC)", conds, t0.Truncate(time.Second))
	}
}

func TestSetConditionSameStatusKeepsTransitionTime(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 999, time.UTC)
	var conds []metav1.Condition
	setCondition(&conds, "Ready", metav1.ConditionFalse, "ReplicasUnavailable", "0/1", 1, t0)
	if setCondition(&conds, "Ready", metav1.ConditionFalse, "ReplicasUnavailable", "0/1", 1, t0.Add(time.Hour)) {
		t.Error("setting the same condition again reported a change")
	}
	// Same status, new reason, message and generation: the time stays.
	setCondition(&conds, "Ready", metav1.ConditionFalse, "Other", "0/2", 2, t0.Add(time.Hour))
	if c := conds[0]; !c.LastTransitionTime.Time.Equal(t0.Truncate(time.Second)) || c.Reason != "Other" || c.Message != "0/2" || c.ObservedGeneration != 2 {
		t.Errorf("after same-status update: %+v", c)
	}
}

func TestSetConditionStatusFlipMovesTransitionTime(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 999, time.UTC)
	var conds []metav1.Condition
	setCondition(&conds, "Ready", metav1.ConditionFalse, "ReplicasUnavailable", "0/1", 1, t0)
	setCondition(&conds, "Ready", metav1.ConditionTrue, "ReplicasAvailable", "1/1", 2, t0.Add(2*time.Hour))
	if got := conds[0].LastTransitionTime.Time; !got.Equal(t0.Add(2 * time.Hour).Truncate(time.Second)) {
		t.Errorf("lastTransitionTime after a status change = %v", got)
	}
}

// storedForm is what a status map looks like after a round trip through the API server: JSON
// out, and back in through the unstructured decoder (integers as int64).
func storedForm(t *testing.T, status map[string]interface{}) map[string]interface{} {
	t.Helper()
	data, err := json.Marshal(map[string]interface{}{"apiVersion": "modeldock.io/v1alpha1", "kind": "ModelService", "status": status})
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*unstructured.Unstructured).Object["status"].(map[string]interface{})
}

// decodedStatus is .status as the tests read it back: the scalar fields and the conditions.
type decodedStatus struct {
	modelServiceStatus `json:",inline"`
	Conditions         []metav1.Condition `json:"conditions"`
}

// statusWorld is where the status tests start: a ModelService of 2 replicas, its spec, its
// Deployment (generation 1, no status: no kubelet has run a pod) and the time of the first
// reconcile.
func statusWorld(t *testing.T) (*unstructured.Unstructured, modelServiceSpec, *appsv1.Deployment, time.Time) {
	t.Helper()
	ms := testModelService(map[string]interface{}{"replicas": int64(2)})
	spec := mustSpec(t, ms)
	dep := desiredDeployment(ms, spec)
	dep.Generation = 1
	return ms, spec, dep, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
}

// decodeStatus reads a computed status back as the typed decodedStatus.
func decodeStatus(t *testing.T, m map[string]interface{}) decodedStatus {
	t.Helper()
	var s decodedStatus
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStatusRolloutInProgressWithoutKubelet(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	status, err := computeStatus(ms, spec, dep, "", t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"observedGeneration", "replicas", "readyReplicas", "availableReplicas", "selector", "url"} {
		if _, ok := status[k]; !ok {
			t.Errorf("status lacks %s (zeros must be written): %v", k, status)
		}
	}
	s := decodeStatus(t, status)
	if s.ObservedGeneration != 3 || s.Selector != "modeldock.io/modelservice=opt" || s.URL != "http://opt.lab.svc:8000" {
		t.Errorf("status = %+v", s)
	}
	if len(s.Conditions) != 2 || s.Conditions[0].Type != "Ready" || s.Conditions[1].Type != "Progressing" {
		t.Fatalf("conditions = %+v, want Ready then Progressing", s.Conditions)
	}
	ready, progressing := s.Conditions[0], s.Conditions[1]
	msg := `Deployment "opt" is waiting for the deployment controller to observe its latest spec`
	if ready.Status != "False" || ready.Reason != "ReplicasUnavailable" || ready.Message != msg || ready.ObservedGeneration != 3 {
		t.Errorf("Ready = %+v", ready)
	}
	if progressing.Status != "True" || progressing.Reason != "RolloutInProgress" || progressing.Message != msg {
		t.Errorf("Progressing = %+v", progressing)
	}
}

func TestStatusRecomputedIsEqualToStoredAndKeepsTimes(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	status, err := computeStatus(ms, spec, dep, "", t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Stored, then recomputed an hour later with nothing changed: equal, so no write.
	ms.Object["status"] = storedForm(t, status)
	again, err := computeStatus(ms, spec, dep, "", t0.Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(ms.Object["status"], again) {
		t.Errorf("recomputed status differs from the stored one; a write would follow:\nstored %v\nnew    %v", ms.Object["status"], again)
	}
}

func TestStatusAvailableWhenDeploymentObservedItsGeneration(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	status, _ := computeStatus(ms, spec, dep, "", t0, nil)
	s := decodeStatus(t, status)
	ready := meta.FindStatusCondition(s.Conditions, "Ready")
	progressing := meta.FindStatusCondition(s.Conditions, "Progressing")
	if s.AvailableReplicas != 2 || ready.Status != "True" || ready.Reason != "ReplicasAvailable" ||
		progressing.Status != "False" || progressing.Reason != "RolloutComplete" ||
		ready.Message != `Deployment "opt" has 2/2 available replicas` {
		t.Errorf("status = %+v", s)
	}
}

func TestStatusNotAvailableWhileDeploymentGenerationUnobserved(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	// The Deployment has not observed its latest generation: still rolling out.
	dep.Generation = 2
	status, _ := computeStatus(ms, spec, dep, "", t0, nil)
	if c := meta.FindStatusCondition(decodeStatus(t, status).Conditions, "Progressing"); c.Status != "True" {
		t.Errorf("Progressing = %+v while the Deployment's observedGeneration lags", c)
	}
}

func TestStatusChildConflictZeroesReplicas(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	foreign := dep.DeepCopy()
	foreign.Status = appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}
	msg := `Deployment "opt" exists and is not controlled by this ModelService`
	status, _ := computeStatus(ms, spec, foreign, msg, t0, nil)
	s := decodeStatus(t, status)
	if s.Replicas != 0 || s.ReadyReplicas != 0 || s.AvailableReplicas != 0 {
		t.Errorf("replica counts on conflict = %+v, want zeros", s)
	}
	for _, c := range s.Conditions {
		if c.Status != "False" || c.Reason != "ChildConflict" || c.Message != msg {
			t.Errorf("%s = %+v", c.Type, c)
		}
	}
}

func TestStatusKeepsForeignConditionsInPlaceUntouched(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	first, _ := computeStatus(ms, spec, dep, "", t0, nil)
	stored := storedForm(t, first)
	conds := stored["conditions"].([]interface{})
	// Another controller's condition, with a timestamp metav1.Time would re-encode.
	audited := map[string]interface{}{"type": "Audited", "status": "True", "reason": "Checked",
		"message": "by the auditor", "lastTransitionTime": "2020-01-01T00:00:00.5Z"}
	stored["conditions"] = []interface{}{conds[1], audited, conds[0]}
	ms.Object["status"] = stored
	again, _ := computeStatus(ms, spec, dep, "", t0.Add(time.Hour), nil)
	if !equality.Semantic.DeepEqual(storedForm(t, again), stored) {
		t.Errorf("nothing changed, yet the status differs:\n got %v\nwant %v", again, stored)
	}

	// A transition rewrites Ready and Progressing in place and leaves Audited as it was.
	available := dep.DeepCopy()
	available.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	moved, _ := computeStatus(ms, spec, available, "", t0.Add(time.Hour), nil)
	got := moved["conditions"].([]interface{})
	if len(got) != 3 || got[0].(map[string]interface{})["type"] != "Progressing" ||
		!equality.Semantic.DeepEqual(got[1], audited) || got[2].(map[string]interface{})["type"] != "Ready" {
		t.Errorf("conditions = %v, want Progressing, Audited (untouched), Ready", got)
	}
	if ready := got[2].(map[string]interface{}); ready["status"] != "True" || ready["lastTransitionTime"] != "2025-01-02T04:04:05Z" {
		t.Errorf("Ready = %v, want True since the transition", ready)
	}
}

func TestStatusUnchangedConditionKeepsItsStoredSpelling(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	first, _ := computeStatus(ms, spec, dep, "", t0, nil)
	stored := storedForm(t, first)
	conds := stored["conditions"].([]interface{})
	// The same instant as written by another client: fractional seconds and an offset.
	conds[0].(map[string]interface{})["lastTransitionTime"] = "2025-01-02T04:04:05.250+01:00"
	ms.Object["status"] = stored
	again, _ := computeStatus(ms, spec, dep, "", t0.Add(time.Hour), nil)
	if !equality.Semantic.DeepEqual(storedForm(t, again), stored) {
		t.Errorf("nothing changed, yet the status differs:\n got %v\nwant %v", again, stored)
	}
}

func TestStatusAppendsOwnedConditionsAfterForeignOnes(t *testing.T) {
	ms, spec, dep, t0 := statusWorld(t)
	audited := map[string]interface{}{"type": "Audited", "status": "True", "reason": "Checked",
		"message": "", "lastTransitionTime": "2020-01-01T00:00:00Z"}
	ms.Object["status"] = map[string]interface{}{"conditions": []interface{}{audited}}
	status, _ := computeStatus(ms, spec, dep, "", t0, nil)
	got := status["conditions"].([]interface{})
	if len(got) != 3 || !equality.Semantic.DeepEqual(got[0], audited) ||
		got[1].(map[string]interface{})["type"] != "Ready" || got[2].(map[string]interface{})["type"] != "Progressing" {
		t.Errorf("conditions = %v, want Audited, Ready, Progressing", got)
	}
}

// envOf is a getenv that reads kv.
func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := configFromEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config{WatchNamespace: "modeldock-lab", LeaderElectionNamespace: "modeldock-lab",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		MetricsBindAddress: ":8080", HealthProbeBindAddress: ":8081", MaxConcurrentReconciles: 4,
		RequestTimeout: 35 * time.Second}
	if c != want {
		t.Errorf("defaults = %+v, want %+v", c, want)
	}
}

func TestConfigValuesAndFractionalSeconds(t *testing.T) {
	c, err := configFromEnv(envOf(map[string]string{"WATCH_NAMESPACE": "ns1", "LEADER_ELECTION": "true",
		"LEASE_DURATION": "1.5", "RENEW_DEADLINE": "1", "RETRY_PERIOD": "0.25", "METRICS_BIND_ADDRESS": "0",
		"MAX_CONCURRENT_RECONCILES": "2", "REQUEST_TIMEOUT_SECONDS": "2.5"}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.LeaderElection || c.LeaderElectionNamespace != "ns1" || c.LeaseDuration != 1500*time.Millisecond ||
		c.RetryPeriod != 250*time.Millisecond || c.MetricsBindAddress != "0" || c.MaxConcurrentReconciles != 2 ||
		c.RequestTimeout != 2500*time.Millisecond {
		t.Errorf("config = %+v", c)
	}
}

func TestConfigBadValueNamesVariableAndFix(t *testing.T) {
	for name, value := range map[string]string{"LEADER_ELECTION": "yes", "LEASE_DURATION": "15s",
		"RETRY_PERIOD": "-1", "MAX_CONCURRENT_RECONCILES": "0", "REQUEST_TIMEOUT_SECONDS": "0"} {
		_, err := configFromEnv(envOf(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: error %v does not name the variable", name, value, err)
		}
	}
}

// TestClientRequestsTimeOutOnTheSharedTransport: the client's HTTP client carries the request
// timeout and shares the manager's transport (one HTTP/2 connection); the manager's own, which
// the cache's watches use, keeps none.
func TestClientRequestsTimeOutOnTheSharedTransport(t *testing.T) {
	shared := &http.Client{Transport: http.DefaultTransport}
	timed := withRequestTimeout(shared, 35*time.Second)
	if timed.Timeout != 35*time.Second || timed.Transport != shared.Transport || shared.Timeout != 0 {
		t.Errorf("timed = %+v, shared = %+v", timed, shared)
	}
}

// TestConfigAddressInUseNamesVariable: a port another process holds is refused before any
// request, naming the variable that sets it and the fix (twin: test_config_address_in_use_names_variable).
func TestConfigAddressInUseNamesVariable(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	c := config{MetricsBindAddress: held.Addr().String(), HealthProbeBindAddress: "127.0.0.1:0"}
	err = addressesFree(c, net.Listen)
	want := "METRICS_BIND_ADDRESS=" + held.Addr().String() + " cannot be listened on ("
	fix := "): must be a host:port no other process holds, e.g. METRICS_BIND_ADDRESS=127.0.0.1:18080, or 0 to turn it off"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), fix) {
		t.Errorf("error %v, want %q...%q", err, want, fix)
	}
	c.MetricsBindAddress = "0" // off: not tried
	if err := addressesFree(c, net.Listen); err != nil {
		t.Errorf("free addresses: %v", err)
	}
}

func TestConfigLeaderElectionTimingsAreChecked(t *testing.T) {
	_, err := configFromEnv(envOf(map[string]string{"LEADER_ELECTION": "true", "LEASE_DURATION": "5", "RENEW_DEADLINE": "10"}))
	if err == nil || !strings.Contains(err.Error(), "LEASE_DURATION") {
		t.Errorf("lease shorter than renew deadline: error %v", err)
	}
}

// The two causes of the refused create of harness/generate/cases/refusal-message-order.yaml, as
// the API server words them, and the Event message both operators make of them in whichever
// order the answer lists them (the Python twin has the same strings).
const (
	causeGPU     = `spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "500m": must be an integer`
	causeStorage = `spec.template.spec.containers[0].resources.limits[ephemeral-storage]: Invalid value: "-1": must be greater than or equal to 0`
	sortedCauses = `Failed to create Deployment "web": Deployment.apps "web" is invalid: [` + causeStorage + `, ` + causeGPU + `]`
)

// twoCauses is the 422 Invalid the API server answers for those two causes, listed in the
// order given (apimachinery's NewInvalid, as the API server builds it).
func twoCauses(gpuFirst bool) error {
	containers := field.NewPath("spec", "template", "spec", "containers").Index(0).Child("resources", "limits")
	gpu := field.Invalid(containers.Key("nvidia.com/gpu"), "500m", "must be an integer")
	storage := field.Invalid(containers.Key("ephemeral-storage"), "-1", "must be greater than or equal to 0")
	errs := field.ErrorList{storage, gpu}
	if gpuFirst {
		errs = field.ErrorList{gpu, storage}
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", errs)
}

func TestErrorMessageSortsTheCausesOfARefusal(t *testing.T) {
	for _, gpuFirst := range []bool{true, false} {
		err := twoCauses(gpuFirst)
		if !strings.Contains(err.Error(), "[") {
			t.Fatalf("the answer lists no causes: %q", err.Error())
		}
		if _, message := failureEvent("create", `Deployment "web"`, err); message != sortedCauses {
			t.Errorf("gpu first %v: message\n%s\nwant\n%s", gpuFirst, message, sortedCauses)
		}
	}
}

func TestErrorMessageKeepsAnAnswerWithOneCauseOrItsOwnWording(t *testing.T) {
	one := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web",
		field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0")})
	own := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web",
		errors.New("denied: b, a"))
	own.ErrStatus.Details.Causes = []metav1.StatusCause{{Field: "b", Message: "x"}, {Field: "a", Message: "y"}}
	for _, err := range []error{one, own, errors.New("dial tcp: connection refused")} {
		if got := errorMessage(err); got != err.Error() {
			t.Errorf("errorMessage = %q, want the error's own text %q", got, err.Error())
		}
	}
}

// The cut to the CRD's bound comes after the sort: a refusal too long for a condition, with
// two causes listed in either order, is the same message, cut at the same character.
func TestErrorMessageIsSortedBeforeItIsCut(t *testing.T) {
	refusal := func(aFirst bool) error {
		a := field.Invalid(field.NewPath("a"), "x", strings.Repeat("a", 20000))
		b := field.Invalid(field.NewPath("b"), "x", strings.Repeat("b", 20000))
		errs := field.ErrorList{b, a}
		if aFirst {
			errs = field.ErrorList{a, b}
		}
		return apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", errs)
	}
	_, first := failureEvent("create", `Deployment "web"`, refusal(true))
	_, second := failureEvent("create", `Deployment "web"`, refusal(false))
	cutFirst, cutSecond := boundMessage(first), boundMessage(second)
	if cutFirst != cutSecond || len([]rune(cutFirst)) != messageMaxLength ||
		!strings.HasPrefix(cutFirst, `Failed to create Deployment "web": Deployment.apps "web" is invalid: [a: Invalid value: "x": aaa`) {
		t.Errorf("the two orders cut to %q... and %q...; want one message of %d characters, cause a first",
			cutFirst[:100], cutSecond[:100], messageMaxLength)
	}
}
