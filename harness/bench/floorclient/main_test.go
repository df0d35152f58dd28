package main

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// normal is v as encoding/json gives it back (numbers float64, maps map[string]any).
func normal(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuildersMatchPython: the floor's objects are those of harness/bench/floor.py, which
// writes testdata/desired.json (harness/tests/test_bench_floor.py checks that side).
func TestBuildersMatchPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/desired.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	ms := &unstructured.Unstructured{Object: doc["modelservice"].(map[string]any)}
	// JSON numbers decode as float64; the builders read int64, as from an API answer
	ms.Object["spec"].(map[string]any)["replicas"] = int64(3)
	ms.Object["spec"].(map[string]any)["port"] = int64(9000)
	ms.Object["metadata"].(map[string]any)["generation"] = int64(2)
	now, err := time.Parse(time.RFC3339, doc["now"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]any{
		"deployment":     desiredDeployment(ms).Object,
		"service":        desiredService(ms).Object,
		"with_finalizer": withFinalizer(ms).Object,
		"status":         floorStatus(ms, now),
	} {
		if g, want := normal(t, got), normal(t, doc[name]); !reflect.DeepEqual(g, want) {
			t.Errorf("%s differs from floor.py's:\n got %v\nwant %v", name, g, want)
		}
	}
}
