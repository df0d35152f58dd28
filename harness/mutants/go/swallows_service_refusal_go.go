// swallows-service-refusal-go: a refused Service write is logged and dropped because the Deployment is fine (Go).
//
// Anti-pattern: step 5's error is taken for less than step 4's. The Service update (or
// create) that an admission policy, a webhook or a quota refuses is logged, and the reconcile
// carries on to step 6 as if the Service were written: the status is rebuilt from the
// Deployment, which rolled out, so it says Ready while the Service still routes the old port;
// and the reconcile returns success, so the workqueue forgets the key and nothing writes the
// Service once the refusal is lifted.
//
// Why people write it: "the Service is a detail, the pods are what matters"; or a status
// computed from the last child's result alone, or an error variable that the next child's
// success overwrites.
//
// What the correct operator does: a refused Service write goes through step 6 with the
// refusal (Ready and Progressing False, FailedUpdate naming the Service), then back to the
// queue as the error, retried with backoff until it is written
// (refused-write-reported[service-refused]).
package main

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

func init() {
	ensureServiceSeam = func(ctx context.Context, r *ModelServiceReconciler, ms *unstructured.Unstructured,
		spec modelServiceSpec) (*corev1.Service, string, error) {
		svc, conflict, err := ensureService(ctx, r, ms, spec)
		var refused *refusedWrite
		if errors.As(err, &refused) {
			log.FromContext(ctx).Info("Service not written; the Deployment is fine", "error", err.Error())
			return nil, "", nil
		}
		return svc, conflict, err
	}
}
