// The table of quantity spellings both operators are held to: conformance/quantity-spellings.json.
// Python twin: python_operator/tests/test_quantity.py, which reads the same file.
//
// Each row is a spelling a ModelService may carry and two texts Go produces from it:
// "parsed", resource.MustParse(spelling).String(), and "stored", what this operator writes
// into the Deployment (readSpec's RoundUp(resource.Milli), then the Quantity's JSON), which is
// what the API server stores when given the spelling itself (CONTRACT.md, "Desired
// Deployment"). The values are Go's by construction: edit the spellings, then
//
//	go test -run TestQuantitySpellings -update-spellings .
//
// rewrites the file from what this Go computes; without the flag the test fails on any row
// that differs.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// quantitySpellingsFile is the shared table, relative to go_reference/.
const quantitySpellingsFile = "../conformance/quantity-spellings.json"

var updateSpellings = flag.Bool("update-spellings", false,
	"rewrite "+quantitySpellingsFile+" with the values this Go computes")

// quantitySpelling is one row of the table.
type quantitySpelling struct {
	Spelling string `json:"spelling"`
	Parsed   string `json:"parsed"`
	Stored   string `json:"stored"`
}

// quantitySpellings is the file: a note for the reader and the rows.
type quantitySpellings struct {
	About     string             `json:"about"`
	Spellings []quantitySpelling `json:"spellings"`
}

// storedSpelling is what the operator writes for a ModelService's CPU request spelled s: the
// Deployment's quantity as JSON, unquoted. It fails t when the desired value differs from the
// value of that text (what the API server stores and the next reconcile compares with): such
// a quantity would be written again by every reconcile.
func storedSpelling(t *testing.T, s string) string {
	t.Helper()
	ms := testModelService(map[string]interface{}{"resources": map[string]interface{}{
		"requests": map[string]interface{}{"cpu": s}}})
	dep := desiredDeployment(ms, mustSpec(t, ms))
	q := dep.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	if back := resource.MustParse(q.String()); q.Cmp(back) != 0 {
		t.Errorf("%q: the operator wants %s, but its text %q reads back as another value",
			s, q.AsDec().String(), q.String())
	}
	raw, err := json.Marshal(q)
	if err != nil {
		t.Fatalf("marshal %q: %v", s, err)
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		t.Fatalf("unmarshal %s: %v", raw, err)
	}
	return text
}

func TestQuantitySpellings(t *testing.T) {
	raw, err := os.ReadFile(quantitySpellingsFile)
	if err != nil {
		t.Fatal(err)
	}
	var table quantitySpellings
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("%s: %v", quantitySpellingsFile, err)
	}
	if len(table.Spellings) == 0 {
		t.Fatalf("%s has no spellings", quantitySpellingsFile)
	}
	got := table
	got.Spellings = nil
	for _, row := range table.Spellings {
		parsed := resource.MustParse(row.Spelling)
		got.Spellings = append(got.Spellings, quantitySpelling{
			Spelling: row.Spelling,
			Parsed:   parsed.String(),
			Stored:   storedSpelling(t, row.Spelling),
		})
	}
	if *updateSpellings {
		if err := os.WriteFile(quantitySpellingsFile, formatSpellings(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, want := range got.Spellings {
		if table.Spellings[i] != want {
			t.Errorf("%q: the file says parsed %q, stored %q; Go gives %q, %q (run with -update-spellings after a deliberate change)",
				want.Spelling, table.Spellings[i].Parsed, table.Spellings[i].Stored, want.Parsed, want.Stored)
		}
	}
}

// formatSpellings writes the table as JSON with one row a line, so that a diff shows rows.
func formatSpellings(table quantitySpellings) []byte {
	var b bytes.Buffer
	about, _ := json.Marshal(table.About)
	fmt.Fprintf(&b, "{\n  \"about\": %s,\n  \"spellings\": [\n", about)
	for i, row := range table.Spellings {
		line, _ := json.Marshal(row)
		sep := ","
		if i == len(table.Spellings)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %s%s\n", line, sep)
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes()
}
