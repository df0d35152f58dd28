// Command modeldock-floor is the bench's floor (harness/bench/floor.py, docs/design.md,
// "Measurements"): the writes a perfect operator needs for each new ModelService, sent by a Go
// client (client-go, no informer, no work queue, no client-side rate limit) at a given
// concurrency, so that no operator on the same control plane can converge N ModelServices
// sooner.
//
// Protocol (stdin/stdout, one JSON object a line):
//
//  1. It connects, creates and handles one unmeasured ModelService "warmup" (connections,
//     first use), then prints {"ready": true}.
//  2. It waits for one line on stdin; the caller notes its own clock as it sends it.
//  3. Mode "floor": N ModelServices <prefix><0000..> are created by -create-threads goroutines
//     as the admin (-admin-kubeconfig); each create's answer goes straight to one of -workers
//     goroutines, which send as the floor user (-kubeconfig), in the contract's order
//     (conformance/CONTRACT.md, "Reconcile, step by step"): the ModelService with the finalizer
//     appended (update, the create's resourceVersion as precondition), the Deployment
//     (create), the Service (create), the status (update of /status, from the answer of the
//     first write). Mode "capacity": the same writes with -workers and -create-threads both
//     the given concurrency, to measure the writes per second the API server takes.
//  4. It prints the outcome (type outcome) and exits 0; a failure to connect or to handle
//     the warm-up object exits 1 with the error on stderr.
//
// The builders are the twins of harness/bench/floor.py's desired_deployment, desired_service,
// with_finalizer and floor_status (same fields, same values); harness/tests/test_bench_floor.py
// compares them.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// userAgent is the User-Agent of every request, so the audit log names the floor.
const userAgent = "modeldock-floor"

// finalizerName is the finalizer the contract puts on every ModelService before its children.
const finalizerName = "modeldock.io/cleanup"

// selectorLabel is the label the children select their pods by.
const selectorLabel = "modeldock.io/modelservice"

// attempts is how many times one write is sent before the floor gives it up: a failed write is
// counted, the object read again (the ModelService writes) and the write sent again.
const attempts = 3

var (
	msGVR  = schema.GroupVersionResource{Group: "modeldock.io", Version: "v1alpha1", Resource: "modelservices"}
	depGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	svcGVR = schema.GroupVersionResource{Group: "", Version: "v1", Resource: "services"}
)

// outcome is what one measured run did; seconds are counted from the line read on stdin.
type outcome struct {
	Objects         int            `json:"objects"`
	Workers         int            `json:"workers"`
	CreateThreads   int            `json:"create_threads"`
	CreatesDoneS    float64        `json:"creates_done_s"`
	LastWriteDoneS  float64        `json:"last_write_done_s"`
	WritesOK        int            `json:"writes_ok"`
	WritesFailed    int            `json:"writes_failed"`
	FailedByKind    map[string]int `json:"failed_by_kind"`
	CPUSeconds      float64        `json:"cpu_s"`
	WritesPerSecond float64        `json:"writes_per_s"`
}

// floor holds the two clients and the counters of one run.
type floor struct {
	admin, writer dynamic.Interface
	namespace     string
	mu            sync.Mutex
	ok            int
	failed        map[string]int
	last          time.Time
}

func client(kubeconfig string) (dynamic.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = userAgent
	cfg.QPS = -1 // no client-side rate limit: the floor waits only for the API server
	return dynamic.NewForConfig(cfg)
}

func childLabels(name string) map[string]any {
	return map[string]any{
		"app.kubernetes.io/name":       name,
		"app.kubernetes.io/managed-by": "modeldock",
		selectorLabel:                  name,
	}
}

func childMetadata(ms *unstructured.Unstructured) map[string]any {
	return map[string]any{
		"name":      ms.GetName(),
		"namespace": ms.GetNamespace(),
		"labels":    childLabels(ms.GetName()),
		"ownerReferences": []any{map[string]any{
			"apiVersion":         "modeldock.io/v1alpha1",
			"kind":               "ModelService",
			"name":               ms.GetName(),
			"uid":                string(ms.GetUID()),
			"controller":         true,
			"blockOwnerDeletion": true,
		}},
	}
}

// specOf returns the spec's replicas and port, with the CRD's defaults (1, 8000) where absent.
func specOf(ms *unstructured.Unstructured) (replicas, port int64) {
	replicas, port = 1, 8000
	if v, ok, _ := unstructured.NestedInt64(ms.Object, "spec", "replicas"); ok {
		replicas = v
	}
	if v, ok, _ := unstructured.NestedInt64(ms.Object, "spec", "port"); ok {
		port = v
	}
	return replicas, port
}

// desiredDeployment is the Deployment the contract prescribes for ms (as stored).
func desiredDeployment(ms *unstructured.Unstructured) *unstructured.Unstructured {
	name := ms.GetName()
	replicas, port := specOf(ms)
	model, _, _ := unstructured.NestedString(ms.Object, "spec", "model")
	image, _, _ := unstructured.NestedString(ms.Object, "spec", "image")
	extra, _, _ := unstructured.NestedStringSlice(ms.Object, "spec", "args")
	args := []any{"--model=" + model, fmt.Sprintf("--port=%d", port)}
	for _, a := range extra {
		args = append(args, a)
	}
	resources, _, _ := unstructured.NestedMap(ms.Object, "spec", "resources")
	if resources == nil {
		resources = map[string]any{}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   childMetadata(ms),
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{selectorLabel: name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": childLabels(name)},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name":      "server",
					"image":     image,
					"args":      args,
					"ports":     []any{map[string]any{"name": "http", "containerPort": port, "protocol": "TCP"}},
					"resources": resources,
				}}},
			},
		},
	}}
}

// desiredService is the Service the contract prescribes for ms.
func desiredService(ms *unstructured.Unstructured) *unstructured.Unstructured {
	_, port := specOf(ms)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata":   childMetadata(ms),
		"spec": map[string]any{
			"type":     "ClusterIP",
			"selector": map[string]any{selectorLabel: ms.GetName()},
			"ports":    []any{map[string]any{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}},
		},
	}}
}

// withFinalizer is a copy of ms with the contract's finalizer appended.
func withFinalizer(ms *unstructured.Unstructured) *unstructured.Unstructured {
	out := ms.DeepCopy()
	out.SetFinalizers(append(out.GetFinalizers(), finalizerName))
	return out
}

// floorStatus is the status the operators write after creating a Deployment that has no
// status yet: zero replicas, Ready False ReplicasUnavailable, Progressing True
// RolloutInProgress, both at the ModelService's generation.
func floorStatus(ms *unstructured.Unstructured, now time.Time) map[string]any {
	name, generation := ms.GetName(), ms.GetGeneration()
	_, port := specOf(ms)
	when := now.UTC().Format("2006-01-02T15:04:05Z")
	message := fmt.Sprintf("Deployment %q is waiting for the deployment controller to observe its latest spec", name)
	cond := func(ctype, status, reason string) map[string]any {
		return map[string]any{"type": ctype, "status": status, "observedGeneration": generation,
			"lastTransitionTime": when, "reason": reason, "message": message}
	}
	return map[string]any{
		"observedGeneration": generation,
		"replicas":           int64(0),
		"readyReplicas":      int64(0),
		"availableReplicas":  int64(0),
		"selector":           selectorLabel + "=" + name,
		"url":                fmt.Sprintf("http://%s.%s.svc:%d", name, ms.GetNamespace(), port),
		"conditions": []any{
			cond("Ready", "False", "ReplicasUnavailable"),
			cond("Progressing", "True", "RolloutInProgress"),
		},
	}
}

// count records one write's answer under kind; it returns whether the write succeeded.
func (f *floor) count(kind string, err error) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		f.ok++
		return true
	}
	code := 0
	if st, ok := err.(apierrors.APIStatus); ok {
		code = int(st.Status().Code)
	}
	f.failed[fmt.Sprintf("%s %d", kind, code)]++
	return false
}

// reconcile sends the four writes for one created ModelService, as its create answered it.
func (f *floor) reconcile(ctx context.Context, created *unstructured.Unstructured) {
	ms := f.writer.Resource(msGVR).Namespace(created.GetNamespace())
	current, name := created, created.GetName()
	var stored *unstructured.Unstructured
	for range attempts {
		out, err := ms.Update(ctx, withFinalizer(current), metav1.UpdateOptions{})
		if f.count("update modelservices", err) {
			stored = out
			break
		}
		if got, gerr := ms.Get(ctx, name, metav1.GetOptions{}); gerr == nil {
			current = got
		}
	}
	if stored == nil {
		return
	}
	for _, child := range []struct {
		gvr  schema.GroupVersionResource
		kind string
		obj  *unstructured.Unstructured
	}{{depGVR, "create deployments", desiredDeployment(stored)}, {svcGVR, "create services", desiredService(stored)}} {
		for range attempts {
			_, err := f.writer.Resource(child.gvr).Namespace(stored.GetNamespace()).Create(ctx, child.obj, metav1.CreateOptions{})
			if f.count(child.kind, err) {
				break
			}
		}
	}
	for range attempts {
		body := stored.DeepCopy()
		body.Object["status"] = floorStatus(stored, time.Now())
		_, err := ms.UpdateStatus(ctx, body, metav1.UpdateOptions{})
		if f.count("update modelservices/status", err) {
			break
		}
		if got, gerr := ms.Get(ctx, name, metav1.GetOptions{}); gerr == nil {
			stored = got
		}
	}
	f.mu.Lock()
	if now := time.Now(); now.After(f.last) {
		f.last = now
	}
	f.mu.Unlock()
}

func modelService(namespace, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "modeldock.io/v1alpha1",
		"kind":       "ModelService",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       map[string]any{"model": "m", "image": "srv:1"},
	}}
}

// run creates names with createThreads goroutines and hands each answer to workers goroutines;
// it returns when every write is answered. A create that fails is counted under "create
// modelservices" and handed to no worker.
func (f *floor) run(ctx context.Context, names []string, workers, createThreads int, start time.Time) outcome {
	f.ok, f.failed, f.last = 0, map[string]int{}, start
	work := make(chan *unstructured.Unstructured, len(names))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ms := range work {
				f.reconcile(ctx, ms)
			}
		}()
	}
	todo := make(chan string, len(names))
	for _, n := range names {
		todo <- n
	}
	close(todo)
	var cw sync.WaitGroup
	var createsFailed int
	var cmu sync.Mutex
	for range createThreads {
		cw.Add(1)
		go func() {
			defer cw.Done()
			for n := range todo {
				out, err := f.admin.Resource(msGVR).Namespace(f.namespace).Create(ctx, modelService(f.namespace, n), metav1.CreateOptions{})
				if err != nil {
					cmu.Lock()
					createsFailed++
					cmu.Unlock()
					continue
				}
				work <- out
			}
		}()
	}
	cw.Wait()
	createsDone := time.Since(start)
	close(work)
	wg.Wait()
	if createsFailed > 0 {
		f.failed["create modelservices"] += createsFailed
	}
	failed := 0
	for _, c := range f.failed {
		failed += c
	}
	last := f.last.Sub(start).Seconds()
	out := outcome{Objects: len(names), Workers: workers, CreateThreads: createThreads,
		CreatesDoneS: createsDone.Seconds(), LastWriteDoneS: last, WritesOK: f.ok,
		WritesFailed: failed, FailedByKind: f.failed}
	if last > 0 {
		// the creates are writes too: every write the API server answered, per second
		out.WritesPerSecond = float64(f.ok+len(names)-createsFailed) / last
	}
	return out
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func main() {
	adminKC := flag.String("admin-kubeconfig", "", "kubeconfig of the user that creates the ModelServices")
	writerKC := flag.String("kubeconfig", "", "kubeconfig of the floor's user, who writes")
	namespace := flag.String("namespace", "", "namespace of the ModelServices")
	objects := flag.Int("objects", 100, "N: ModelServices created at once")
	workers := flag.Int("workers", 1, "goroutines that send the writes (the operators' workers)")
	createThreads := flag.Int("create-threads", 8, "goroutines that create the ModelServices")
	prefix := flag.String("prefix", "tp-", "name prefix; names are <prefix>0000, <prefix>0001, ...")
	flag.Parse()
	if *adminKC == "" || *writerKC == "" || *namespace == "" {
		fmt.Fprintln(os.Stderr, "modeldock-floor: -admin-kubeconfig, -kubeconfig and -namespace are required")
		os.Exit(2)
	}
	admin, err := client(*adminKC)
	if err == nil {
		var writer dynamic.Interface
		writer, err = client(*writerKC)
		f := &floor{admin: admin, writer: writer, namespace: *namespace}
		if err == nil {
			ctx := context.Background()
			warm := f.run(ctx, []string{"warmup"}, 1, 1, time.Now())
			if warm.WritesFailed > 0 {
				err = fmt.Errorf("the warm-up ModelService's writes failed: %v", warm.FailedByKind)
			} else {
				run(ctx, f, *objects, *workers, *createThreads, *prefix)
				return
			}
		}
	}
	fmt.Fprintln(os.Stderr, "modeldock-floor:", err)
	os.Exit(1)
}

func run(ctx context.Context, f *floor, objects, workers, createThreads int, prefix string) {
	names := make([]string, objects)
	for i := range names {
		names[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	enc := json.NewEncoder(os.Stdout)
	_ = enc.Encode(map[string]bool{"ready": true})
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, "modeldock-floor: no start line on stdin:", err)
		os.Exit(1)
	}
	start, cpu0 := time.Now(), cpuSeconds()
	out := f.run(ctx, names, workers, createThreads, start)
	out.CPUSeconds = cpuSeconds() - cpu0
	_ = enc.Encode(out)
}
