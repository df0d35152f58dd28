// checkQuantityExponent and readSpec on exponents beyond quantityMaxExponent. Python twin:
// the exponent tests of python_operator/tests/test_quantity.py.
package main

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestCheckQuantityExponentRefusesBeyondTheBound(t *testing.T) {
	for _, text := range []string{"1e-999999999", "1e999999999", "1E+100", "1e-100", "5.5e-0000100", "1e99999999999999999999"} {
		if err := checkQuantityExponent(text); !errors.Is(err, errQuantityExponent) {
			t.Errorf("%q: error %v, want %v", text, err, errQuantityExponent)
		}
	}
	if got, want := errQuantityExponent.Error(), "quantity's exponent must be between -99 and 99"; got != want {
		t.Errorf("message %q, want %q (the Python operator's text)", got, want)
	}
}

func TestCheckQuantityExponentTakesWithinTheBound(t *testing.T) {
	for _, text := range []string{"1e99", "1e-99", "1E+099", "1e-0099", "99", "1Ki", "1.5", "lots", ""} {
		if err := checkQuantityExponent(text); err != nil {
			t.Errorf("%q: %v, want none", text, err)
		}
	}
	// Every spelling of the shared table passes.
	raw, err := os.ReadFile(quantitySpellingsFile)
	if err != nil {
		t.Fatal(err)
	}
	var table quantitySpellings
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("%s: %v", quantitySpellingsFile, err)
	}
	for _, row := range table.Spellings {
		if err := checkQuantityExponent(row.Spelling); err != nil {
			t.Errorf("table spelling %q: %v", row.Spelling, err)
		}
	}
}

// Before the bound, readSpec handed "1e-999999999" to ParseQuantity (FromUnstructured), which
// rounds an inf.Dec of scale 999999999 to a nano and did not return; the test's deadline
// turns that hang into a failure.
func TestReadSpecRefusesAnExponentBeyondTheBound(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		_, err := readSpec(testModelService(map[string]interface{}{
			"resources": map[string]interface{}{"limits": map[string]interface{}{"cpu": "1e-999999999"}},
		}))
		done <- err
	}()
	select {
	case err := <-done:
		want := "reading spec of ModelService lab/opt: spec.resources.limits.cpu: quantity's exponent must be between -99 and 99"
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("readSpec did not return within 10s")
	}
}

func TestDefaultResourcesWritesALargeExponentWithoutReadingItBack(t *testing.T) {
	spec, err := readSpec(testModelService(map[string]interface{}{
		"resources": map[string]interface{}{"limits": map[string]interface{}{"cpu": "1000e99"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	q := spec.Resources.Limits["cpu"]
	if got := q.String(); got != "1e102" || q.Cmp(resource.MustParse("1e102")) != 0 {
		t.Errorf("cpu = %s, want 1e102", got)
	}
}
