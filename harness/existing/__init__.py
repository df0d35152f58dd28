"""The ``existing`` tier: a cluster the harness does not own (KUBECONFIG and ``--context``).

``python -m harness conformance --cluster existing`` runs the operators as local processes
against the cluster of KUBECONFIG (docs/design.md, "Tiers"):

- ``run``: what a run makes and removes: the admin kubeconfig of the context, the CRD of
  crds/ if absent (removed at the end; a CRD that differs is an error, never an upgrade), a
  run namespace for the ServiceAccounts, and the cleanup of every namespace labelled
  ``modeldock.dev/run=<run id>``, also on Ctrl-C and SIGTERM; ``existing-cleanup`` removes
  what a dead run left;
- ``cluster``: the cluster object the plugin's fixtures get (``ExistingCluster``, the
  ``ControlPlane`` surface they use: admin kubeconfig, a TokenRequest-token kubeconfig per
  user, no audit log) and the RoleBinding subjects (ServiceAccounts);
- ``pure``: names, labels, the cleanup's selection, the CRD comparison, the token kubeconfig.

What the tier offers is ``harness.tiers`` (no audit log, no client certificates, no private
control planes; ``pods-ready`` only on kwok nodes): the checks that need more are skipped
with the reason. This module imports nothing, so that the plugin's ``lab`` can import
``pure`` without importing the runner.
"""
