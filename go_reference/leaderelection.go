package main

// Leader election, wired so that a leader that stops leading stops writing first.
//
// Python twin: python_operator/runtime/leaderelection.py.
//
// controller-runtime can release the Lease itself (LeaderElectionReleaseOnCancel), but client-go
// releases from inside the elector, *before* the manager hears that leadership ended: when a
// renewal fails (a partitioned leader), release() spends up to another RenewDeadline trying to
// reach the API server while every controller keeps reconciling. With the default timings
// (15 s lease, 10 s renew deadline) that is a window in which the old and the new leader both
// write. The leader-failover[partitioned-leader] check catches it. So the manager here never
// releases on its own: a lost Lease ends the process at once (controller-runtime's "leader
// election lost"), and on SIGTERM main releases the Lease only after mgr.Start has returned,
// that is after every controller has stopped.

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/retry"
)

// newLeaseLock returns the Lease lock "<namespace>/<name>" and this process's identity,
// "<hostname>_<uuid>" as controller-runtime makes it. Errors come from building the client.
func newLeaseLock(cfg *rest.Config, namespace, name string) (*resourcelock.LeaseLock, string, error) {
	host, err := os.Hostname()
	if err != nil {
		return nil, "", fmt.Errorf("hostname for the leader identity: %w", err)
	}
	identity := host + "_" + string(uuid.NewUUID())
	clientset, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, "", fmt.Errorf("client for the Lease: %w", err)
	}
	return &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: namespace, Name: name},
		Client:     clientset.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}, identity, nil
}

// electionLockOf is the resourcelock.Interface the manager's leader election runs on: lock
// itself. main calls it through the seam electionLock.
func electionLockOf(lock *resourcelock.LeaseLock) resourcelock.Interface {
	return lock
}

// releaseLease gives the Lease up if this process still holds it, the way client-go's
// LeaderElector.release does (holderIdentity empty, leaseDurationSeconds 1), so a standby
// takes over at its next retry instead of waiting out the lease. It returns nil when another
// process holds the Lease; errors are the API server's. A 409 is read again and retried
// (retry.RetryOnConflict). Call it only once no controller runs. main calls it through the
// seam leaseRelease.
func releaseLease(ctx context.Context, lock *resourcelock.LeaseLock, identity string, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	released := false
	// A renewal cancelled by the shutdown may still have reached the API server after our
	// Get: the Update then meets a newer resourceVersion (409). Read again and retry; seen
	// on a loaded machine, where the standby otherwise waited the whole lease out.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		record, _, err := lock.Get(ctx)
		if err != nil {
			return err
		}
		if record.HolderIdentity != identity {
			released = false
			return nil
		}
		now := metav1.NewTime(time.Now())
		released = true
		return lock.Update(ctx, resourcelock.LeaderElectionRecord{
			LeaderTransitions:    record.LeaderTransitions,
			LeaseDurationSeconds: 1,
			RenewTime:            now,
			AcquireTime:          now,
		})
	})
	if err != nil {
		return false, err
	}
	return released, nil
}
