package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fakeCatalog answers registrations as harness/catalog does: a new key gets a new id, a seen
// key the original one. It is the catalog's protocol, not the Kubernetes API.
func fakeCatalog(t *testing.T) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	ids := map[string]string{}
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		key := r.Header.Get("Idempotency-Key")
		var body catalogRegistration
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" || key == "" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error": "field model: required"}`))
			return
		}
		id, seen := ids[key]
		if !seen {
			keys = append(keys, key)
			id = "reg-" + string(rune('0'+len(keys)))
			ids[key] = id
			w.WriteHeader(http.StatusCreated)
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id, "key": key})
	}))
	t.Cleanup(srv.Close)
	return srv, &keys
}

func catalogMS(generation int64) *unstructured.Unstructured {
	ms := newModelService()
	ms.SetName("web")
	ms.SetNamespace("ns")
	ms.SetUID("u-1")
	ms.SetGeneration(generation)
	return ms
}

func TestRegisterInCatalogOncePerGeneration(t *testing.T) {
	srv, keys := fakeCatalog(t)
	c, err := catalogFromEnv(func(string) string { return srv.URL })
	if err != nil || c == nil {
		t.Fatalf("catalogFromEnv: %v %v", c, err)
	}
	r := &ModelServiceReconciler{Catalog: c}
	spec := modelServiceSpec{Model: "m", Image: "img"}
	status := map[string]interface{}{"url": "http://web.ns.svc:8000"}
	if err := r.registerInCatalog(context.Background(), catalogMS(1), spec, "", status); err != nil {
		t.Fatal(err)
	}
	want := map[string]interface{}{"generation": int64(1), "key": "u-1/1", "registration": "reg-1"}
	if got := status["catalog"]; !mapsEqual(got, want) {
		t.Fatalf("status.catalog = %v, want %v", got, want)
	}
	retry := map[string]interface{}{}
	if err := r.registerInCatalog(context.Background(), catalogMS(1), spec, "", retry); err != nil {
		t.Fatal(err)
	}
	if !mapsEqual(retry["catalog"], want) {
		t.Fatalf("a retry of generation 1 got %v, want the original %v", retry["catalog"], want)
	}
	kept := map[string]interface{}{"catalog": want}
	if err := r.registerInCatalog(context.Background(), catalogMS(1), spec, "", kept); err != nil {
		t.Fatal(err)
	}
	if err := r.registerInCatalog(context.Background(), catalogMS(2), spec, "conflict", kept); err != nil {
		t.Fatal(err)
	}
	if len(*keys) != 1 {
		t.Fatalf("registered %v, want only u-1/1", *keys)
	}
	if err := r.registerInCatalog(context.Background(), catalogMS(2), spec, "", kept); err != nil {
		t.Fatal(err)
	}
	if len(*keys) != 2 || (*keys)[1] != "u-1/2" {
		t.Fatalf("registered %v, want u-1/1 then u-1/2", *keys)
	}
	if err := r.registerInCatalog(context.Background(), catalogMS(3), modelServiceSpec{}, "", map[string]interface{}{}); err == nil {
		t.Fatal("a refused registration must be an error")
	}
}

func TestCatalogFromEnv(t *testing.T) {
	if c, err := catalogFromEnv(func(string) string { return "" }); c != nil || err != nil {
		t.Fatalf("unset: %v %v", c, err)
	}
	if _, err := catalogFromEnv(func(string) string { return "catalog:80" }); err == nil {
		t.Fatal("catalog:80 must be refused")
	}
}

func mapsEqual(a interface{}, b map[string]interface{}) bool {
	m, ok := a.(map[string]interface{})
	if !ok || len(m) != len(b) {
		return false
	}
	for k, v := range b {
		if m[k] != v {
			return false
		}
	}
	return true
}
