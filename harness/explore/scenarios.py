"""The scenarios exploration runs: each a situation an operator meets, in two phases.

``prepare`` brings the namespace to where the scenario starts (usually a converged
ModelService) with the operator running; its writes are not explored. ``act`` is what the
user does; the operator's writes from then on are the scenario's *write boundaries*: the clean
run counts them, and each perturbed run crashes the operator at one of them (or answers it
with an error). Both phases act as the admin only, never on the operator's behalf, and
neither waits for a particular end: the oracle compares the end state with the clean run's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kubernetes.client.exceptions import ApiException

from harness.kube import Kube, wait_for
from harness.modelservice import modelservice, status_converged


class CaseEnv(Protocol):
    """What a scenario acts on (``harness.explore.case.CaseEnv``): the admin client, the
    namespace, and the operator's lifecycle."""

    admin: Kube
    ns: str

    def start_operator(self) -> None: ...

    def stop_operator(self) -> None: ...


#: The ModelService every scenario is about.
NAME = "demo"
#: Seconds any one wait of a scenario may take, on a loaded machine.
WAIT = 60.0


def converged(env: CaseEnv) -> dict[str, Any]:
    """Wait until the ModelService's status has caught up with its spec and both children
    exist; return it."""

    def ready(m: dict[str, Any] | None) -> bool:
        return (
            bool(m)
            and status_converged(m or {})
            and env.admin.get("deployments", env.ns, NAME) is not None
            and env.admin.get("services", env.ns, NAME) is not None
        )

    return wait_for(
        lambda: env.admin.get("modelservices", env.ns, NAME),
        ready,
        WAIT,
        f"ModelService {env.ns}/{NAME} to converge (scenario set-up)",
    )


def create(env: CaseEnv, **spec: Any) -> dict[str, Any]:
    return env.admin.create("modelservices", env.ns, modelservice(NAME, **spec))


def create_converged(env: CaseEnv) -> None:
    create(env)
    converged(env)


def patch_spec(env: CaseEnv, **spec: Any) -> None:
    env.admin.patch("modelservices", env.ns, NAME, {"spec": spec})


def delete_child(env: CaseEnv, resource: str) -> None:
    env.admin.delete(resource, env.ns, NAME)


def foreign_deployment(env: CaseEnv) -> None:
    """A Deployment named like the ModelService that another controller (a ConfigMap, here)
    controls: the operator must neither adopt nor overwrite it."""
    owner = env.admin.create(
        "configmaps",
        env.ns,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other-owner"}},
    )
    env.admin.create(
        "deployments",
        env.ns,
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": NAME,
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "name": "other-owner",
                        "uid": owner["metadata"]["uid"],
                        "controller": True,
                    }
                ],
            },
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "other"}},
                "template": {
                    "metadata": {"labels": {"app": "other"}},
                    "spec": {"containers": [{"name": "c", "image": "other:1"}]},
                },
            },
        },
    )


def delete_racing_create(env: CaseEnv) -> None:
    """Create, and delete as soon as the operator has put its finalizer on: the deletion
    arrives while it creates the children."""
    create(env)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        m = env.admin.get("modelservices", env.ns, NAME)
        if m and m["metadata"].get("finalizers"):
            break
        time.sleep(0.01)
    env.admin.delete("modelservices", env.ns, NAME)


def restart_prepare(env: CaseEnv) -> None:
    """Converged, then the operator stops and the world changes while it is down: a new spec,
    and the Service deleted."""
    env.start_operator()
    create_converged(env)
    env.stop_operator()
    patch_spec(env, replicas=2, image="example/server:2")
    delete_child(env, "services")


def delete_both_children(env: CaseEnv) -> None:
    delete_child(env, "deployments")
    delete_child(env, "services")


def _nothing(env: CaseEnv) -> None:
    pass


def create_only(env: CaseEnv) -> None:
    create(env)


def scale(env: CaseEnv) -> None:
    patch_spec(env, replicas=3)


def spec_change(env: CaseEnv) -> None:
    patch_spec(env, image="example/server:2", port=9000)


def delete(env: CaseEnv) -> None:
    env.admin.delete("modelservices", env.ns, NAME)


def restart(env: CaseEnv) -> None:
    env.start_operator()


@dataclass(frozen=True)
class Scenario:
    """One scenario: ``prepare`` and ``act`` (see the module docstring); ``start_in_act``: the
    scenario starts and stops the operator itself (``prepare``), and ``act`` starts it (a
    restart with changes pending); ``extra``: its perturbed runs besides the boundaries."""

    id: str
    title: str
    prepare: Callable[[CaseEnv], None]
    act: Callable[[CaseEnv], None]
    start_in_act: bool = False
    #: the runs besides the write boundaries: a stale view needs a child the operator writes
    #: (its events are the ones delayed), so a scenario where it writes none has no such run
    extra: tuple[str, ...] = ("stale-view", "coalesced")


def _ignore_404(fn: Callable[[CaseEnv], None]) -> Callable[[CaseEnv], None]:
    def run(env: CaseEnv) -> None:
        try:
            fn(env)
        except ApiException as exc:
            if exc.status != 404:
                raise

    return run


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("create", "a new ModelService", _nothing, create_only),
    Scenario("scale", "spec.replicas 1 -> 3", create_converged, scale),
    Scenario("spec-change", "a new image and port", create_converged, spec_change),
    Scenario(
        "child-deleted",
        "both children deleted by hand",
        create_converged,
        _ignore_404(delete_both_children),
    ),
    Scenario("delete", "deleted: children first, then the finalizer", create_converged, delete),
    Scenario(
        "delete-racing-create",
        "deleted while its children are being created",
        _nothing,
        delete_racing_create,
    ),
    Scenario(
        "foreign-child",
        "a same-named Deployment someone else controls",
        foreign_deployment,
        create_only,
        # The conflict at the Deployment ends the pass before the Service (CONTRACT.md, steps
        # 4 and 5): the operator writes no child, so no child event can be late.
        extra=("coalesced",),
    ),
    Scenario(
        "restart-pending",
        "the operator restarts after the spec changed and the Service "
        "was deleted while it was down",
        restart_prepare,
        restart,
        start_in_act=True,
    ),
)

BY_ID = {s.id: s for s in SCENARIOS}
