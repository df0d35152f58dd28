"""Fixtures the harness's own tests share: a real envtest control plane per test module
(the Kubernetes binaries from the cache) and an admin client of it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.envtest.controlplane import ControlPlane
from harness.kube import Kube


@pytest.fixture(scope="module")
def cp() -> Iterator[ControlPlane]:
    """An envtest control plane (etcd + kube-apiserver) for the module; stopped after it."""
    with ControlPlane() as plane:
        yield plane


@pytest.fixture(scope="module")
def admin(cp: ControlPlane) -> Iterator[Kube]:
    """A ``Kube`` client of ``cp`` as its admin (``system:masters``); closed after the module.
    It overrides the conformance plugin's session-wide ``admin`` in these tests."""
    kube = Kube(cp.admin_kubeconfig)
    yield kube
    kube.close()
