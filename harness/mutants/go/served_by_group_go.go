// served-by-group-go: the CRD is taken for served as soon as its group version is (Go).
//
// Anti-pattern: the wait for the CRD asks discovery for /apis/modeldock.io/v1alpha1 and stops
// at the first answer that lists any resource. A group whose CRDs are applied one by one
// serves the group version before the ModelService CRD, and the manager starts on a kind its
// RESTMapper does not know: it exits, or never becomes ready.
//
// Why people write it: with one CRD in the group, "the group version is served" and "the CRD
// is served" are the same answer.
//
// What the correct operator does: it waits until discovery lists modelservices in the group
// version (CONTRACT.md, "Process"); waits-for-crd serves a decoy CRD of the same group before
// it starts the operator.
package main

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
)

// groupServed is crdServed answering true for any resource of the group version.
func groupServed(dc discovery.DiscoveryInterface) (bool, error) {
	list, err := dc.ServerResourcesForGroupVersion(modelServiceGVK.GroupVersion().String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return len(list.APIResources) > 0, nil
}

func init() {
	// waitForCRD with groupServed for crdServed.
	crdWait = func(ctx context.Context, dc discovery.DiscoveryInterface) error {
		for attempt := 0; ; attempt++ {
			if served, _ := groupServed(dc); served {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(crdRetryDelay(attempt)):
			}
		}
	}
}
