package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/fake"
	ktesting "k8s.io/client-go/testing"
)

// The wait for the CRD backs off as CONTRACT.md, "Process", says: 0.8 s, doubling, capped at
// 30 s (Python: test_served_retry_delay).
func TestCRDBackoffDoublesToItsCap(t *testing.T) {
	want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}
	for attempt, w := range want {
		if got := crdBackoff(attempt); got != w {
			t.Errorf("crdBackoff(%d) = %v, want %v", attempt, got, w)
		}
	}
	if got := crdBackoff(1000); got != crdWaitCap {
		t.Errorf("crdBackoff(1000) = %v, want the cap %v", got, crdWaitCap)
	}
}

// crdServed is true only when discovery lists modelservices in modeldock.io/v1alpha1; a group
// version not served (fake discovery: NotFound) is false with no error.
func TestCRDServedReadsDiscovery(t *testing.T) {
	dc := &fake.FakeDiscovery{Fake: &ktesting.Fake{}}
	if served, err := crdServed(dc); served || err != nil {
		t.Fatalf("no group version: served %v, error %v; want false, nil", served, err)
	}
	gv := schema.GroupVersion{Group: modelServiceGVK.Group, Version: modelServiceGVK.Version}.String()
	dc.Resources = []*metav1.APIResourceList{{GroupVersion: gv, APIResources: []metav1.APIResource{{Name: "other"}}}}
	if served, err := crdServed(dc); served || err != nil {
		t.Fatalf("group version without modelservices: served %v, error %v; want false, nil", served, err)
	}
	dc.Resources[0].APIResources = append(dc.Resources[0].APIResources, metav1.APIResource{Name: modelServicesPlural})
	if served, err := crdServed(dc); !served || err != nil {
		t.Fatalf("modelservices listed: served %v, error %v; want true, nil", served, err)
	}
}
