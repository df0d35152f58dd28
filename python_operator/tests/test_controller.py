"""The reconciler's pure parts (desired objects, mutate, conditions, status) and its steps,
on plain data. Live objects in data/ were read from a real API server (managedFields
dropped): they carry every field the server defaults, which mutate must leave alone.

A test with a Go twin has its name: test_status_child_conflict_zeroes_replicas is
TestStatusChildConflictZeroesReplicas in go_reference/controller_unit_test.go, the test_events_*
are TestEvents* in go_reference/events_unit_test.go, the test_reconcile_* and test_finalize_*
are TestReconcile* and TestFinalize* in go_reference/reconcile_unit_test.go."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import events, informer
from python_operator.runtime.reconcile import Request, Result

Obj = dict[str, Any]
DATA = Path(__file__).parent / "data"
T0 = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
# The ModelService of data/live_*.json, and the one model_service() builds.
OPT = Request(namespace="pyop-a", name="opt")
LAB_OPT = Request(namespace="lab", name="opt")


def load(name: str) -> Obj:
    obj = json.loads((DATA / name).read_text())
    assert isinstance(obj, dict)
    return obj


def model_service(**spec: Any) -> Obj:
    """A ModelService as the API server stores it, defaults applied."""
    full = {
        "model": "facebook/opt-125m",
        "image": "vllm/vllm-openai:v0.6.0",
        "replicas": 1,
        "port": 8000,
        **spec,
    }
    return {
        "apiVersion": "modeldock.io/v1alpha1",
        "kind": "ModelService",
        "metadata": {
            "name": "opt",
            "namespace": "lab",
            "uid": "ms-uid",
            "generation": 3,
            "resourceVersion": "10",
            "finalizers": ["modeldock.io/cleanup"],
        },
        "spec": full,
    }


def desired_pair(ms: Obj) -> tuple[Obj, Obj]:
    spec = controller.read_spec(ms)
    return controller.desired_deployment(ms, spec), controller.desired_service(ms, spec)


# ---------------------------------------------------------------------- desired objects
def test_desired_deployment() -> None:
    ms = model_service(
        replicas=2,
        port=9000,
        args=["--dtype=half"],
        resources={"limits": {"cpu": "500m", "memory": 1073741824}},
    )
    dep, _ = desired_pair(ms)
    labels = {
        "app.kubernetes.io/name": "opt",
        "app.kubernetes.io/managed-by": "modeldock",
        "modeldock.io/modelservice": "opt",
    }
    assert dep == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "opt",
            "namespace": "lab",
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "modeldock.io/v1alpha1",
                    "kind": "ModelService",
                    "name": "opt",
                    "uid": "ms-uid",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"modeldock.io/modelservice": "opt"}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "server",
                            "image": "vllm/vllm-openai:v0.6.0",
                            "args": ["--model=facebook/opt-125m", "--port=9000", "--dtype=half"],
                            "ports": [{"name": "http", "containerPort": 9000, "protocol": "TCP"}],
                            "resources": {"limits": {"cpu": "500m", "memory": "1073741824"}},
                        }
                    ]
                },
            },
        },
    }


def test_desired_deployment_without_resources_has_empty_resources() -> None:
    dep, _ = desired_pair(model_service(resources={"limits": {}, "requests": {}}))
    assert dep["spec"]["template"]["spec"]["containers"][0]["resources"] == {}


def test_desired_service() -> None:
    _, svc = desired_pair(model_service(port=9000))
    assert svc["spec"] == {
        "type": "ClusterIP",
        "selector": {"modeldock.io/modelservice": "opt"},
        "ports": [{"name": "http", "port": 9000, "targetPort": "http", "protocol": "TCP"}],
    }
    assert svc["metadata"]["labels"]["modeldock.io/modelservice"] == "opt"
    assert svc["metadata"]["ownerReferences"][0]["uid"] == "ms-uid"


def test_read_spec_fills_crd_defaults() -> None:
    ms = model_service()
    del ms["spec"]["replicas"], ms["spec"]["port"]
    spec = controller.read_spec(ms)
    assert (spec.replicas, spec.port, spec.args) == (1, 8000, ())


@pytest.mark.parametrize(
    "bad",
    [
        {"replicas": "two"},
        {"port": True},
        {"args": "--x"},
        {"args": [1]},
        {"resources": {"limits": ["1"]}},
    ],
)
def test_read_spec_rejects_wrong_types(bad: Obj) -> None:
    with pytest.raises(ValueError, match="reading spec of ModelService lab/opt"):
        controller.read_spec(model_service(**bad))


@pytest.mark.parametrize(
    "mutate, desired_index", [(controller.mutate_deployment, 0), (controller.mutate_service, 1)]
)
def test_mutate_of_bare_object_builds_the_desired_object(mutate: Any, desired_index: int) -> None:
    """mutate sets every field the ModelService decides: applied to an object that has only
    a name, it builds the desired object (what controllerutil.CreateOrUpdate would create)."""
    desired = desired_pair(model_service(args=["-x"]))[desired_index]
    bare = {
        "apiVersion": desired["apiVersion"],
        "kind": desired["kind"],
        "metadata": {"name": "opt", "namespace": "lab"},
    }
    mutate(bare, desired)
    assert bare == desired


# ---------------------------------------------------------------------- mutate
def live_world() -> tuple[Obj, Obj, Obj]:
    """The ModelService, Deployment and Service as a real API server stored them."""
    return load("live_msvc.json"), load("live_deploy.json"), load("live_svc.json")


def mutated(live: Obj, ms: Obj, index: int) -> Obj:
    desired = desired_pair(ms)[index]
    copy = informer.copy_obj(live)
    (controller.mutate_deployment if index == 0 else controller.mutate_service)(copy, desired)
    return copy


def test_mutate_server_defaulted_deployment_needs_no_write() -> None:
    ms, dep, _ = live_world()
    # The stored spec says cpu 1000m and memory as a number; the Deployment stores "1" and
    # "1073741824". Equal by value: no write.
    assert ms["spec"]["resources"]["limits"] == {"cpu": "1000m", "memory": 1073741824}
    assert dep["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {
        "cpu": "1",
        "memory": "1073741824",
    }
    assert mutated(dep, ms, 0) == dep


def test_mutate_server_defaulted_service_needs_no_write() -> None:
    ms, _, svc = live_world()
    assert mutated(svc, ms, 1) == svc


def test_mutate_keeps_foreign_labels_annotations_and_containers() -> None:
    ms, dep, svc = live_world()
    dep["metadata"]["labels"]["team"] = "ml"
    dep["metadata"]["annotations"]["note"] = "hand-written"
    dep["spec"]["template"]["metadata"]["labels"]["extra"] = "yes"
    sidecar = {"name": "sidecar", "image": "busybox"}
    dep["spec"]["template"]["spec"]["containers"].append(sidecar)
    svc["metadata"]["labels"]["team"] = "ml"
    svc["metadata"]["annotations"] = {"note": "x"}
    assert mutated(dep, ms, 0) == dep
    assert mutated(svc, ms, 1) == svc


def test_mutate_reverts_what_the_modelservice_decides() -> None:
    ms, dep, svc = live_world()
    want = informer.copy_obj(dep)
    dep["spec"]["replicas"] = 5
    dep["metadata"]["labels"]["modeldock.io/modelservice"] = "other"
    container = dep["spec"]["template"]["spec"]["containers"][0]
    container["image"] = "evil:latest"
    container["args"] = ["--model=other"]
    container["resources"]["limits"]["cpu"] = "2"
    # A changed quantity is written as the API server stores the spec's 1000m: "1", as before.
    assert mutated(dep, ms, 0) == want
    svc_want = informer.copy_obj(svc)
    svc["spec"]["ports"][0]["port"] = 1234
    svc["spec"]["type"] = "NodePort"
    assert mutated(svc, ms, 1) == svc_want


def test_mutate_writes_new_quantity_value_in_spec_spelling() -> None:
    ms, dep, _ = live_world()
    ms["spec"]["resources"]["limits"]["cpu"] = "1500m"
    out = mutated(dep, ms, 0)
    assert out["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {
        "cpu": "1500m",
        "memory": "1073741824",
    }


def test_mutate_appends_missing_server_container() -> None:
    ms, dep, _ = live_world()
    dep["spec"]["template"]["spec"]["containers"] = [{"name": "other", "image": "x"}]
    out = mutated(dep, ms, 0)
    names = [c["name"] for c in out["spec"]["template"]["spec"]["containers"]]
    assert names == ["other", "server"]


def test_mutate_ensures_owner_reference_and_keeps_others() -> None:
    ms, dep, _ = live_world()
    other = {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "cm-uid"}
    ours = dep["metadata"]["ownerReferences"][0]
    dep["metadata"]["ownerReferences"] = [other, {**ours, "blockOwnerDeletion": False}]
    out = mutated(dep, ms, 0)
    assert out["metadata"]["ownerReferences"] == [other, ours]


@pytest.mark.parametrize(
    "a, b, equal",
    [
        ("1000m", "1", True),
        (1, "1", True),
        ("1Gi", 1073741824, True),
        ("0.5", "500m", True),
        ("1", "1001m", False),
        ("1Ki", "1k", False),
    ],
)
def test_quantities_compare_by_value(a: object, b: object, equal: bool) -> None:
    assert controller.same_quantity(a, b) is equal


def test_read_spec_rounds_resources_as_the_api_server_will() -> None:
    ms = model_service(resources={"requests": {"cpu": "1.5m"}, "limits": {"cpu": "1e-4", "x": 2}})
    assert controller.read_spec(ms).resources == {
        "limits": {"cpu": "1e-3", "x": "2"},
        "requests": {"cpu": "2m"},
    }


# ---------------------------------------------------------------------- conditions
def test_set_condition_new_gets_transition_time() -> None:
    conditions: list[Obj] = []
    assert controller.set_condition(conditions, "Ready", "False", "R", "m", 3, T0)
    assert conditions == [
        {
            "type": "Ready",
            "status": "False",
            "observedGeneration": 3,
            "lastTransitionTime": "2026-01-02T03:04:05Z",
            "reason": "R",
            "message": "m",
        }
    ]


def test_set_condition_same_status_keeps_transition_time() -> None:
    conditions: list[Obj] = []
    controller.set_condition(conditions, "Ready", "False", "R", "m", 3, T0)
    later = T0 + timedelta(hours=1)
    assert not controller.set_condition(conditions, "Ready", "False", "R", "m", 3, later)
    assert controller.set_condition(conditions, "Ready", "False", "R2", "m2", 4, later)
    assert conditions[0]["lastTransitionTime"] == "2026-01-02T03:04:05Z"
    assert (
        conditions[0]["reason"],
        conditions[0]["message"],
        conditions[0]["observedGeneration"],
    ) == ("R2", "m2", 4)


def test_set_condition_status_flip_moves_transition_time() -> None:
    conditions: list[Obj] = []
    controller.set_condition(conditions, "Ready", "False", "R", "m", 3, T0)
    later = T0 + timedelta(minutes=5)
    assert controller.set_condition(conditions, "Ready", "True", "R", "m", 3, later)
    assert conditions[0]["lastTransitionTime"] == "2026-01-02T03:09:05Z"


# ---------------------------------------------------------------------- status
def deployment_with_status(spec_replicas: int = 1, **status: Any) -> Obj:
    return {
        "metadata": {"name": "opt", "generation": 2},
        "spec": {"replicas": spec_replicas},
        "status": status,
    }


def conditions_of(status: Obj) -> list[tuple[str, str, str, str]]:
    return [(c["type"], c["status"], c["reason"], c["message"]) for c in status["conditions"]]


def test_status_rollout_in_progress_without_kubelet() -> None:
    ms = model_service(replicas=2)
    spec = controller.read_spec(ms)
    status = controller.compute_status(ms, spec, deployment_with_status(2), "", T0)
    message = 'Deployment "opt" is waiting for the deployment controller to observe its latest spec'
    assert status == {
        "observedGeneration": 3,
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "selector": "modeldock.io/modelservice=opt",
        "url": "http://opt.lab.svc:8000",
        "conditions": [
            {
                "type": "Ready",
                "status": "False",
                "observedGeneration": 3,
                "lastTransitionTime": "2026-01-02T03:04:05Z",
                "reason": "ReplicasUnavailable",
                "message": message,
            },
            {
                "type": "Progressing",
                "status": "True",
                "observedGeneration": 3,
                "lastTransitionTime": "2026-01-02T03:04:05Z",
                "reason": "RolloutInProgress",
                "message": message,
            },
        ],
    }


def test_status_available_when_deployment_observed_its_generation() -> None:
    ms = model_service(replicas=2)
    spec = controller.read_spec(ms)
    dep = deployment_with_status(
        2, observedGeneration=2, replicas=2, updatedReplicas=2, readyReplicas=2, availableReplicas=2
    )
    status = controller.compute_status(ms, spec, dep, "", T0)
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (2, 2, 2)
    message = 'Deployment "opt" has 2/2 available replicas'
    assert conditions_of(status) == [
        ("Ready", "True", "ReplicasAvailable", message),
        ("Progressing", "False", "RolloutComplete", message),
    ]


def test_status_not_available_while_deployment_generation_unobserved() -> None:
    ms = model_service(replicas=2)
    dep = deployment_with_status(observedGeneration=1, availableReplicas=2)
    status = controller.compute_status(ms, controller.read_spec(ms), dep, "", T0)
    assert conditions_of(status)[0][:3] == ("Ready", "False", "ReplicasUnavailable")


def test_status_child_conflict_zeroes_replicas() -> None:
    ms = model_service()
    dep = deployment_with_status(observedGeneration=2, replicas=3, availableReplicas=3)
    message = 'Deployment "opt" exists and is not controlled by this ModelService'
    status = controller.compute_status(ms, controller.read_spec(ms), dep, message, T0)
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (0, 0, 0)
    assert conditions_of(status) == [
        ("Ready", "False", "ChildConflict", message),
        ("Progressing", "False", "ChildConflict", message),
    ]


def test_status_recomputed_is_equal_to_stored_and_keeps_times() -> None:
    ms = model_service()
    spec = controller.read_spec(ms)
    ms["status"] = controller.compute_status(ms, spec, deployment_with_status(), "", T0)
    again = controller.compute_status(
        ms, spec, deployment_with_status(), "", T0 + timedelta(days=1)
    )
    assert again == ms["status"]


def test_status_keeps_foreign_conditions_in_place_untouched() -> None:
    ms = model_service()
    spec = controller.read_spec(ms)
    stored = controller.compute_status(ms, spec, deployment_with_status(), "", T0)
    ready, progressing = stored["conditions"]
    # Another controller's condition, with a timestamp a typed round trip would re-encode.
    audited = {
        "type": "Audited",
        "status": "True",
        "reason": "Checked",
        "message": "ok",
        "lastTransitionTime": "2020-01-01T00:00:00.5Z",
    }
    stored["conditions"] = [progressing, audited, ready]
    ms["status"] = stored
    again = controller.compute_status(ms, spec, deployment_with_status(), "", T0 + timedelta(1))
    assert again == stored, "nothing changed, so nothing may be written"

    available = deployment_with_status(
        observedGeneration=2, replicas=1, updatedReplicas=1, availableReplicas=1
    )
    moved = controller.compute_status(ms, spec, available, "", T0 + timedelta(1))
    assert [c["type"] for c in moved["conditions"]] == ["Progressing", "Audited", "Ready"]
    assert moved["conditions"][1] == audited
    assert moved["conditions"][2]["status"] == "True"


def test_status_appends_owned_conditions_after_foreign_ones() -> None:
    ms = model_service()
    audited = {
        "type": "Audited",
        "status": "True",
        "reason": "Checked",
        "message": "",
        "lastTransitionTime": "2020-01-01T00:00:00Z",
    }
    ms["status"] = {"conditions": [audited]}
    status = controller.compute_status(ms, controller.read_spec(ms), None, "", T0)
    assert [c["type"] for c in status["conditions"]] == ["Audited", "Ready", "Progressing"]
    assert status["conditions"][0] == audited


def test_status_unchanged_condition_keeps_its_stored_spelling() -> None:
    """A lastTransitionTime another client wrote another way (fractional seconds, an offset)
    stays as written while its condition's status holds: re-encoding it would be a write that
    changes nothing (CONTRACT.md, "Status")."""
    ms = model_service()
    spec = controller.read_spec(ms)
    stored = controller.compute_status(ms, spec, deployment_with_status(), "", T0)
    stored["conditions"][0]["lastTransitionTime"] = "2026-01-02T04:04:05.250+01:00"
    ms["status"] = stored
    again = controller.compute_status(
        ms, spec, deployment_with_status(), "", T0 + timedelta(hours=1)
    )
    assert again == stored


# ---------------------------------------------------------------------- reconcile steps
class World:
    """Plain data standing in for the cache (reader) and a recorder of writes (writer).
    A write returns what it was sent, as a stored object would look; nothing else. Every
    write sent is recorded in ``attempts`` first, then, unless ``fail_with`` makes it fail,
    in ``writes``: a write resent after a failure shows as a second attempt."""

    def __init__(self, *objs: Obj) -> None:
        self.objects: dict[tuple[str, str, str], Obj] = {}
        self.writes: list[tuple[str, str, Obj]] = []
        self.attempts: list[tuple[str, str, Obj]] = []
        self.fail_with: client_.ApiError | None = None
        for obj in objs:
            self.put(obj)

    def put(self, obj: Obj) -> None:
        meta = obj["metadata"]
        self.objects[(obj["kind"], meta["namespace"], meta["name"])] = obj

    def get(self, resource: client_.Resource, namespace: str, name: str) -> Obj | None:
        obj = self.objects.get((resource.kind, namespace, name))
        return None if obj is None else informer.copy_obj(obj)

    def _write(self, verb: str, resource: client_.Resource, obj: Obj) -> Obj:
        self.attempts.append((verb, resource.kind, informer.copy_obj(obj)))
        if self.fail_with is not None:
            raise self.fail_with
        self.writes.append((verb, resource.kind, informer.copy_obj(obj)))
        return informer.copy_obj(obj)

    def create(self, resource: client_.Resource, obj: Obj) -> Obj:
        return self._write("create", resource, obj)

    def update(self, resource: client_.Resource, obj: Obj) -> Obj:
        return self._write("update", resource, obj)

    def update_status(self, resource: client_.Resource, obj: Obj) -> Obj:
        return self._write("update_status", resource, obj)

    def delete(
        self,
        resource: client_.Resource,
        namespace: str,
        name: str,
        *,
        uid: str | None = None,
        resource_version: str | None = None,
        propagation_policy: str | None = None,
    ) -> None:
        meta = {"name": name, "uid": uid}
        if resource_version is not None:  # the precondition sent only when given
            meta["resourceVersion"] = resource_version
        self._write(
            "delete",
            resource,
            {"metadata": meta, "propagationPolicy": propagation_policy},
        )

    def verbs(self) -> list[tuple[str, str]]:
        return [(verb, kind) for verb, kind, _ in self.writes]


def reconciler(world: World, live: World | None = None) -> controller.ModelServiceReconciler:
    """A reconciler whose cache is ``world``; ``live`` is what the API server holds (default:
    the same as the cache, a cache that is up to date)."""
    return controller.ModelServiceReconciler(
        reader=world, writer=world, live=live or world, now=lambda: T0
    )


def test_reconcile_gone_modelservice_does_nothing() -> None:
    world = World()
    assert reconciler(world).reconcile(LAB_OPT) == Result()
    assert world.writes == []


def test_reconcile_new_modelservice_writes_finalizer_children_status() -> None:
    ms = model_service()
    ms["metadata"]["finalizers"] = []
    world = World(ms)
    assert reconciler(world).reconcile(LAB_OPT) == Result()
    assert world.verbs() == [
        ("update", "ModelService"),
        ("create", "Deployment"),
        ("create", "Service"),
        ("update_status", "ModelService"),
    ]
    assert world.writes[0][2]["metadata"]["finalizers"] == ["modeldock.io/cleanup"]
    dep, svc = desired_pair(ms)
    assert world.writes[1][2] == dep
    assert world.writes[2][2] == svc
    assert world.writes[3][2]["status"]["conditions"][1]["reason"] == "RolloutInProgress"


def test_reconcile_converged_world_makes_no_write() -> None:
    world = World(*live_world())
    assert reconciler(world).reconcile(OPT) == Result()
    assert world.writes == []


def test_reconcile_repairs_hand_edited_deployment_and_deleted_service() -> None:
    ms, dep, _ = live_world()
    dep["spec"]["replicas"] = 7
    world = World(ms, dep)
    reconciler(world).reconcile(OPT)
    assert world.verbs() == [("update", "Deployment"), ("create", "Service")]
    updated = world.writes[0][2]
    assert updated["spec"]["replicas"] == 1
    assert updated["metadata"]["resourceVersion"] == dep["metadata"]["resourceVersion"]
    assert updated["metadata"]["annotations"] == {"foreign": "kept"}


def test_reconcile_foreign_deployment_is_not_adopted() -> None:
    ms, dep, _ = live_world()
    # Ownerless and without our selector label: made by hand, not ours (CONTRACT.md,
    # "Ownership").
    dep["metadata"]["ownerReferences"] = []
    del dep["metadata"]["labels"][controller.LABEL_MODELSERVICE]
    world = World(ms, dep)
    # Polled: the foreign child's events never map to this ModelService.
    assert reconciler(world).reconcile(OPT) == Result(requeue_after=timedelta(seconds=5))
    assert world.verbs() == [("update_status", "ModelService")]
    message = 'Deployment "opt" exists and is not controlled by this ModelService'
    assert conditions_of(world.writes[0][2]["status"]) == [
        ("Ready", "False", "ChildConflict", message),
        ("Progressing", "False", "ChildConflict", message),
    ]


def test_reconcile_ownerless_labelled_children_are_adopted() -> None:
    """What --cascade=orphan leaves (no ownerReferences, our labels): one update each that adds
    our controller ownerReference, with Normal Adopted<Kind> Events, no create or delete."""
    ms, dep, svc = live_world()
    dep["metadata"]["ownerReferences"] = []
    svc["metadata"]["ownerReferences"] = []
    world = World(ms, dep, svc)
    assert recorded(world) == [
        'Normal AdoptedDeployment Adopted Deployment "opt"',
        'Normal AdoptedService Adopted Service "opt"',
    ]
    assert [v for v in world.verbs() if v[1] != "ModelService"] == [
        ("update", "Deployment"),
        ("update", "Service"),
    ]
    for _, _, obj in world.writes[:2]:
        assert controller.controlled_by(obj, ms)


def test_reconcile_adoption_needs_the_modelservice_live() -> None:
    """The cache says the ModelService is there; the API server says it is being deleted
    (or gone): no adoption, an error for the queue."""
    ms, dep, _ = live_world()
    dep["metadata"]["ownerReferences"] = []
    deleting = informer.copy_obj(ms)
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    for live in (World(deleting), World()):
        world = World(ms, dep)
        with pytest.raises(RuntimeError, match='not adopting Deployment "opt"'):
            reconciler(world, live).reconcile(OPT)
        assert world.writes == []


def test_reconcile_immutable_selector_replaces_the_deployment() -> None:
    """A Deployment of ours whose spec.selector differs: deleted with its UID and Background,
    a ReplacingDeployment Event, never an update; a deleting one of ours is waited for."""
    ms, dep, svc = live_world()
    dep["spec"]["selector"] = {"matchLabels": {"app.kubernetes.io/name": "opt"}}
    world = World(ms, dep, svc)
    assert recorded(world) == [
        'Normal ReplacingDeployment Deleted Deployment "opt" to re-create it: spec.selector is '
        "immutable and differs from the desired one"
    ]
    verb, kind, sent = world.writes[0]
    assert (verb, kind) == ("delete", "Deployment")
    assert sent == {
        "metadata": {"name": "opt", "uid": dep["metadata"]["uid"]},
        "propagationPolicy": "Background",
    }
    assert ("update", "Deployment") not in world.verbs()

    dep["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    waiting = World(ms, dep, svc)
    reconciler(waiting).reconcile(OPT)
    assert [v for v in waiting.verbs() if v[1] == "Deployment"] == []


def test_reconcile_immutable_selector_blocks_adoption() -> None:
    ms, dep, _ = live_world()
    dep["metadata"]["ownerReferences"] = []
    dep["spec"]["selector"] = {"matchLabels": {"app.kubernetes.io/name": "opt"}}
    world = World(ms, dep)
    assert reconciler(world).reconcile(OPT) == Result(requeue_after=timedelta(seconds=5))
    assert world.verbs() == [("update_status", "ModelService")]


def test_reconcile_foreign_service_is_not_adopted() -> None:
    ms, dep, svc = live_world()
    # Controlled by another kind: a ModelService of this name would be a vanished one
    # (test_reconcile_child_of_vanished_modelservice_is_replaced).
    svc["metadata"]["ownerReferences"][0] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "opt",
        "uid": "someone-else",
        "controller": True,
    }
    world = World(ms, dep, svc)
    assert reconciler(world).reconcile(OPT) == Result(requeue_after=timedelta(seconds=5))
    assert world.verbs() == [("update_status", "ModelService")]
    assert world.writes[0][2]["status"]["conditions"][0]["message"] == (
        'Service "opt" exists and is not controlled by this ModelService'
    )


def test_reconcile_child_of_vanished_modelservice_is_replaced() -> None:
    ms, dep, svc = live_world()
    svc["metadata"]["ownerReferences"][0]["uid"] = "vanished-uid"
    world = World(ms, dep, svc)
    assert reconciler(world).reconcile(OPT) == Result()
    assert world.verbs() == [("delete", "Service"), ("create", "Service")]
    deleted, created = world.writes[0][2], world.writes[1][2]
    assert deleted["metadata"]["uid"] == svc["metadata"]["uid"]
    # the garbage collector's precondition too: the object as read, not one changed since
    assert deleted["metadata"]["resourceVersion"] == svc["metadata"]["resourceVersion"]
    assert deleted["propagationPolicy"] == "Background"
    assert created["metadata"]["ownerReferences"][0]["uid"] == ms["metadata"]["uid"]


class GoneWorld(World):
    """A world whose ModelService is gone at the API server: a status update is answered 404;
    a create gets a UID, as from the API server."""

    def create(self, resource: client_.Resource, obj: Obj) -> Obj:
        created = super().create(resource, obj)
        created["metadata"]["uid"] = resource.kind.lower() + "-uid"
        return created

    def update_status(self, resource: client_.Resource, obj: Obj) -> Obj:
        raise client_.ApiError(404, "NotFound", 'modelservices.modeldock.io "opt" not found')


def test_reconcile_status_404_deletes_children_of_vanished_modelservice() -> None:
    ms = model_service()
    world = GoneWorld(ms)
    assert reconciler(world).reconcile(LAB_OPT) == Result()
    assert world.verbs() == [
        ("create", "Deployment"),
        ("create", "Service"),
        ("delete", "Deployment"),
        ("delete", "Service"),
    ]
    assert [w[2]["metadata"]["uid"] for w in world.writes[2:]] == ["deployment-uid", "service-uid"]


def test_reconcile_write_conflict_is_not_retried() -> None:
    ms, dep, _ = live_world()
    dep["spec"]["replicas"] = 7
    world = World(ms, dep)
    world.fail_with = client_.ApiError(409, "Conflict", "the object has been modified")
    with pytest.raises(client_.ApiError):
        reconciler(world).reconcile(OPT)
    # Sent once and refused: the 409 goes back to the queue, the write is not resent.
    assert [(verb, kind) for verb, kind, _ in world.attempts] == [("update", "Deployment")]
    assert world.writes == []


def deleting(ms: Obj) -> Obj:
    ms["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return ms


def test_finalize_deletes_own_children_with_uid_precondition_then_waits() -> None:
    ms, dep, svc = live_world()
    world = World(deleting(ms), dep, svc)
    result = reconciler(world).reconcile(OPT)
    assert result == Result(requeue_after=timedelta(seconds=1))
    assert world.verbs() == [("delete", "Deployment"), ("delete", "Service")]
    assert [w[2]["metadata"]["uid"] for w in world.writes] == [
        dep["metadata"]["uid"],
        svc["metadata"]["uid"],
    ]
    assert {w[2]["propagationPolicy"] for w in world.writes} == {"Background"}


def test_finalize_removes_finalizer_when_children_are_gone() -> None:
    ms, _, _ = live_world()
    world = World(deleting(ms))
    assert reconciler(world).reconcile(OPT) == Result()
    assert world.verbs() == [("update", "ModelService")]
    assert world.writes[0][2]["metadata"].get("finalizers") == []


def test_finalize_leaves_replaced_child_alone() -> None:
    ms, dep, svc = live_world()
    dep["metadata"]["ownerReferences"][0]["uid"] = "another-modelservice"
    svc["metadata"]["ownerReferences"] = []
    world = World(deleting(ms), dep, svc)
    assert reconciler(world).reconcile(OPT) == Result()
    assert world.verbs() == [("update", "ModelService")]


def test_finalize_without_finalizer_does_nothing() -> None:
    ms, dep, _ = live_world()
    ms["metadata"]["finalizers"] = []
    world = World(deleting(ms), dep)
    assert reconciler(world).reconcile(OPT) == Result()
    assert world.writes == []


def test_finalize_reads_children_live_not_from_a_lagging_cache() -> None:
    ms, dep, svc = live_world()
    cache = World(deleting(ms))  # has not seen this process's own creates yet
    api_server = World(deleting(informer.copy_obj(ms)), dep, svc)
    result = reconciler(cache, live=api_server).reconcile(OPT)
    assert result == Result(requeue_after=timedelta(seconds=1))
    assert cache.verbs() == [("delete", "Deployment"), ("delete", "Service")]


def test_finalize_orphan_policy_deletes_no_child_and_keeps_other_finalizers() -> None:
    ms, dep, svc = live_world()
    ms["metadata"]["finalizers"] = ["example.com/audit", "orphan", controller.FINALIZER_NAME]
    world = World(deleting(ms), dep, svc)
    assert reconciler(world).reconcile(OPT) == Result()
    assert world.verbs() == [("update", "ModelService")]
    assert world.writes[0][2]["metadata"]["finalizers"] == ["example.com/audit", "orphan"]


def test_finalize_honours_a_policy_switched_to_orphan_since_the_cache_read() -> None:
    """deletion-policy[switched-to-orphan]: the cache holds the first delete's view (no
    ``orphan``), the API server the second's (``kubectl delete --cascade=orphan`` of an object
    already deleting adds it): no child is deleted, and our finalizer comes off the live
    object, ``orphan`` kept."""
    ms, dep, svc = live_world()
    cache = World(deleting(ms), dep, svc)
    switched = deleting(informer.copy_obj(ms))
    switched["metadata"]["finalizers"] = ["orphan", controller.FINALIZER_NAME]
    switched["metadata"]["resourceVersion"] = "after-the-second-delete"
    api_server = World(switched, dep, svc)
    assert reconciler(cache, live=api_server).reconcile(OPT) == Result()
    assert cache.verbs() == [("update", "ModelService")]
    written = cache.writes[0][2]["metadata"]
    assert written["finalizers"] == ["orphan"]
    assert written["resourceVersion"] == "after-the-second-delete"


def test_finalize_of_a_modelservice_gone_since_the_cache_read_writes_nothing() -> None:
    ms, dep, svc = live_world()
    cache = World(deleting(ms), dep, svc)
    assert reconciler(cache, live=World(dep, svc)).reconcile(OPT) == Result()
    assert cache.writes == []


def test_finalize_foreground_policy_cleans_up_and_keeps_its_finalizer() -> None:
    ms, dep, svc = live_world()
    ms["metadata"]["finalizers"] = ["foregroundDeletion", controller.FINALIZER_NAME]
    world = World(deleting(ms), dep, svc)
    assert reconciler(world).reconcile(OPT) == Result(requeue_after=timedelta(seconds=1))
    assert world.verbs() == [("delete", "Deployment"), ("delete", "Service")]
    gone = World(deleting(ms))
    assert reconciler(gone).reconcile(OPT) == Result()
    assert gone.writes[0][2]["metadata"]["finalizers"] == ["foregroundDeletion"]


def test_finalize_waits_for_a_child_that_is_already_deleting() -> None:
    ms, dep, _ = live_world()
    dep["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    world = World(deleting(ms), dep)
    assert reconciler(world).reconcile(OPT) == Result(requeue_after=timedelta(seconds=1))
    assert world.writes == []


# ---------------------------------------------------------------------- events
def recorded(world: World, req: Request = OPT) -> list[str]:
    """The Events one reconcile of req records, as FakeRecorder strings; exceptions are the
    queue's business and are swallowed here."""
    recorder = events.FakeRecorder()
    r = controller.ModelServiceReconciler(
        reader=world, writer=world, live=world, now=lambda: T0, recorder=recorder
    )
    try:
        r.reconcile(req)
    except client_.ApiError:
        pass
    return recorder.events


def test_events_for_the_children_a_new_modelservice_gets() -> None:
    ms = model_service()
    ms["metadata"]["finalizers"] = []
    assert recorded(World(ms), LAB_OPT) == [
        'Normal CreatedDeployment Created Deployment "opt"',
        'Normal CreatedService Created Service "opt"',
    ]


def test_events_none_when_nothing_changes() -> None:
    assert recorded(World(*live_world())) == []


def test_events_for_repairs() -> None:
    ms, dep, _ = live_world()
    dep["spec"]["replicas"] = 7
    assert recorded(World(ms, dep)) == [
        'Normal UpdatedDeployment Updated Deployment "opt"',
        'Normal CreatedService Created Service "opt"',
    ]


def test_events_child_conflict_is_a_warning_every_time_it_is_found() -> None:
    """With the condition's message; the recorder, not the reconciler, folds the repeats into
    one Event."""
    ms, dep, _ = live_world()
    dep["metadata"]["ownerReferences"] = []
    del dep["metadata"]["labels"][controller.LABEL_MODELSERVICE]
    world = World(ms, dep)
    for _ in range(2):
        assert recorded(world) == [
            'Warning ChildConflict Deployment "opt" exists and is not controlled by this'
            " ModelService"
        ]


@pytest.mark.parametrize(
    ("edit", "warning"),
    [
        ("finalizer", 'Warning FailedUpdate Failed to update ModelService "opt": refused'),
        # A refused child write is reported in the status; that write is refused too here.
        (
            "create",
            'Warning FailedCreate Failed to create Service "opt": refused\n'
            'Warning FailedUpdate Failed to update status of ModelService "opt": refused',
        ),
        (
            "update",
            'Warning FailedUpdate Failed to update Deployment "opt": refused\n'
            'Warning FailedUpdate Failed to update status of ModelService "opt": refused',
        ),
        ("status", 'Warning FailedUpdate Failed to update status of ModelService "opt": refused'),
    ],
)
def test_events_a_failed_write_is_a_warning_with_the_error(edit: str, warning: str) -> None:
    ms, dep, svc = live_world()
    world = {
        "finalizer": lambda: World(dict(ms, metadata=dict(ms["metadata"], finalizers=[]))),
        "create": lambda: World(ms, dep),
        "update": lambda: World(ms, dict(dep, spec=dict(dep["spec"], replicas=7)), svc),
        "status": lambda: World(dict(ms, status={}), dep, svc),
    }[edit]()
    world.fail_with = client_.ApiError(403, "Forbidden", "refused")
    assert recorded(world) == warning.split("\n")


def test_events_for_cleanup() -> None:
    ms, dep, svc = live_world()
    assert recorded(World(deleting(ms), dep, svc)) == [
        'Normal DeletedDeployment Deleted Deployment "opt"',
        'Normal DeletedService Deleted Service "opt"',
    ]
    assert recorded(World(deleting(live_world()[0]))) == [
        'Normal RemovedFinalizer Removed finalizer "modeldock.io/cleanup"'
    ]


def test_events_a_child_already_gone_is_no_failure_but_a_refused_delete_is() -> None:
    ms, dep, svc = live_world()
    gone = World(deleting(ms), dep, svc)
    gone.fail_with = client_.ApiError(404, "NotFound", "not found")
    assert recorded(gone) == []
    refused = World(deleting(informer.copy_obj(ms)), dep, svc)
    refused.fail_with = client_.ApiError(500, "InternalError", "etcd is down")
    assert recorded(refused) == [
        'Warning FailedDelete Failed to delete Deployment "opt": etcd is down'
    ]


@pytest.mark.parametrize("reason", ["Conflict", "AlreadyExists"])
def test_events_a_409_is_no_warning_the_next_reconcile_recomputes(reason: str) -> None:
    ms, dep, _ = live_world()
    dep["spec"]["replicas"] = 7
    world = World(ms, dep)
    world.fail_with = client_.ApiError(409, reason, "the object has been modified")
    assert recorded(world) == []


def test_events_without_a_recorder_nothing_is_recorded_and_nothing_breaks() -> None:
    ms = model_service()
    ms["metadata"]["finalizers"] = []
    world = World(ms)
    r = controller.ModelServiceReconciler(reader=world, writer=world, live=world, now=lambda: T0)
    assert r.reconcile(LAB_OPT) == Result()
    assert isinstance(r.recorder, events.NullRecorder)


# ---------------------------------------------------------------------- rollout and refusals
ROLLOUT_STATES = [
    # (Deployment generation, its status, rollout, message)
    (3, {"observedGeneration": 2, "replicas": 4, "updatedReplicas": 4, "availableReplicas": 4},
     controller.ROLLOUT_PROGRESSING,
     'Deployment "opt" is waiting for the deployment controller to observe its latest spec'),
    (3, {"observedGeneration": 3, "replicas": 4, "updatedReplicas": 2, "availableReplicas": 4},
     controller.ROLLOUT_PROGRESSING, 'Deployment "opt" has 2/4 updated replicas'),
    (3, {"observedGeneration": 3, "replicas": 5, "updatedReplicas": 4, "availableReplicas": 4},
     controller.ROLLOUT_PROGRESSING, 'Deployment "opt" has 1 old replicas pending termination'),
    (3, {"observedGeneration": 3, "replicas": 4, "updatedReplicas": 4, "availableReplicas": 3},
     controller.ROLLOUT_PROGRESSING, 'Deployment "opt" has 3/4 updated replicas available'),
    (3, {"observedGeneration": 3, "replicas": 4, "updatedReplicas": 4, "availableReplicas": 4},
     controller.ROLLOUT_COMPLETE, 'Deployment "opt" has 4/4 available replicas'),
    (3, {"observedGeneration": 3, "replicas": 4, "updatedReplicas": 2, "availableReplicas": 4,
         "conditions": [{"type": "Progressing", "status": "False",
                         "reason": "ProgressDeadlineExceeded",
                         "message": 'ReplicaSet "opt-7f" has timed out progressing.'}]},
     controller.ROLLOUT_STALLED,
     'Deployment "opt" exceeded its progress deadline: ReplicaSet "opt-7f" has timed out'
     " progressing."),
    # A deadline reported for an older generation says nothing about this one.
    (4, {"observedGeneration": 3, "replicas": 4, "updatedReplicas": 2, "availableReplicas": 4,
         "conditions": [{"type": "Progressing", "status": "False",
                         "reason": "ProgressDeadlineExceeded", "message": "old"}]},
     controller.ROLLOUT_PROGRESSING,
     'Deployment "opt" is waiting for the deployment controller to observe its latest spec'),
]  # fmt: skip


@pytest.mark.parametrize(("generation", "dep_status", "rollout", "message"), ROLLOUT_STATES)
def test_judge_rollout_follows_kubectl_rollout_status(
    generation: int, dep_status: Obj, rollout: str, message: str
) -> None:
    dep = {"metadata": {"generation": generation}, "spec": {"replicas": 4}, "status": dep_status}
    assert controller.judge_rollout("opt", dep) == (rollout, message)


@pytest.mark.parametrize(("generation", "dep_status", "rollout", "message"), ROLLOUT_STATES)
def test_status_ready_only_once_the_rollout_is_complete(
    generation: int, dep_status: Obj, rollout: str, message: str
) -> None:
    ms = model_service(replicas=4)
    dep = {"metadata": {"generation": generation}, "spec": {"replicas": 4}, "status": dep_status}
    status = controller.compute_status(ms, controller.read_spec(ms), dep, "", T0)
    expected = {
        controller.ROLLOUT_PROGRESSING: [
            ("Ready", "False", "ReplicasUnavailable", message),
            ("Progressing", "True", "RolloutInProgress", message),
        ],
        controller.ROLLOUT_STALLED: [
            ("Ready", "False", "ProgressDeadlineExceeded", message),
            ("Progressing", "False", "ProgressDeadlineExceeded", message),
        ],
        controller.ROLLOUT_COMPLETE: [
            ("Ready", "True", "ReplicasAvailable", message),
            ("Progressing", "False", "RolloutComplete", message),
        ],
    }[rollout]
    assert conditions_of(status) == expected


def test_bound_message_cuts_visibly_to_the_crd_limit() -> None:
    assert controller.bound_message("short") == "short"
    exact = "é" * controller.MESSAGE_MAX_LENGTH
    assert controller.bound_message(exact) == exact
    cut = controller.bound_message("é" * (controller.MESSAGE_MAX_LENGTH + 1))
    assert len(cut) == controller.MESSAGE_MAX_LENGTH
    assert cut.endswith(controller.TRUNCATED_MARKER)


class RefusingWorld(World):
    """A World whose API server refuses the writes named in ``refuse`` ((verb, kind) -> error)."""

    def __init__(self, *objs: Obj) -> None:
        super().__init__(*objs)
        self.refuse: dict[tuple[str, str], client_.ApiError] = {}

    def _write(self, verb: str, resource: client_.Resource, obj: Obj) -> Obj:
        err = self.refuse.get((verb, resource.kind))
        if err is not None:
            self.attempts.append((verb, resource.kind, informer.copy_obj(obj)))
            raise err
        out = super()._write(verb, resource, obj)
        if verb == "update_status":
            self.put(out)
        return out


def test_reconcile_refused_create_is_reported_in_the_status_once() -> None:
    ms = model_service()
    world = RefusingWorld(ms)
    invalid = client_.ApiError(422, "Invalid", 'Deployment.apps "opt" is invalid: ' + "x" * 40000)
    world.refuse[("create", "Deployment")] = invalid
    with pytest.raises(client_.ApiError) as raised:
        reconciler(world).reconcile(LAB_OPT)
    assert raised.value.status == 422 and str(raised.value) == str(invalid)
    assert world.verbs() == [("update_status", "ModelService")]
    status = world.writes[0][2]["status"]
    assert status["observedGeneration"] == 3 and status["availableReplicas"] == 0
    ready, progressing = status["conditions"]
    assert (ready["status"], ready["reason"]) == ("False", "FailedCreate")
    assert (progressing["status"], progressing["reason"]) == ("False", "FailedCreate")
    assert ready["message"].startswith('Failed to create Deployment "opt": Deployment.apps')
    assert len(ready["message"]) == controller.MESSAGE_MAX_LENGTH
    assert ready["message"].endswith(controller.TRUNCATED_MARKER)

    # The retry meets the same refusal: the status already says so, no second write.
    with pytest.raises(client_.ApiError):
        reconciler(world).reconcile(LAB_OPT)
    assert world.verbs() == [("update_status", "ModelService")]

    # The write succeeds: the refusal is cleared in the same reconcile.
    world.refuse.clear()
    assert reconciler(world).reconcile(LAB_OPT) == Result()
    reasons = [c["reason"] for c in world.writes[-1][2]["status"]["conditions"]]
    assert reasons == ["ReplicasUnavailable", "RolloutInProgress"]


def test_reconcile_refused_deployment_update_keeps_the_counts_it_reads() -> None:
    ms, dep, svc = live_world()
    dep["spec"]["replicas"] = 7
    dep["status"] = {"observedGeneration": 4, "replicas": 7, "availableReplicas": 7}
    world = RefusingWorld(ms, dep, svc)
    world.refuse[("update", "Deployment")] = client_.ApiError(403, "Forbidden", "denied")
    with pytest.raises(client_.ApiError):
        reconciler(world).reconcile(OPT)
    status = world.writes[-1][2]["status"]
    assert status["availableReplicas"] == 7
    assert [(c["reason"], c["message"]) for c in status["conditions"]] == [
        ("FailedUpdate", 'Failed to update Deployment "opt": denied')
    ] * 2


def test_reconcile_conflict_is_no_refusal() -> None:
    ms, dep, svc = live_world()
    dep["spec"]["replicas"] = 7
    world = RefusingWorld(ms, dep, svc)
    world.refuse[("update", "Deployment")] = client_.ApiError(409, "Conflict", "stale")
    with pytest.raises(client_.ApiError) as raised:
        reconciler(world).reconcile(OPT)
    assert not isinstance(raised.value, controller.RefusedWrite)
    assert world.writes == []


# The two causes of the refused create of harness/generate/cases/refusal-message-order.yaml, as
# the API server words them, and the Event message both operators make of them in whichever
# order the answer lists them (the Go twin has the same strings).
CAUSE_GPU = (
    "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]",
    'Invalid value: "500m": must be an integer',
)
CAUSE_STORAGE = (
    "spec.template.spec.containers[0].resources.limits[ephemeral-storage]",
    'Invalid value: "-1": must be greater than or equal to 0',
)
SORTED_CAUSES = (
    'Failed to create Deployment "web": Deployment.apps "web" is invalid: ['
    + ": ".join(CAUSE_STORAGE)
    + ", "
    + ": ".join(CAUSE_GPU)
    + "]"
)


def two_causes(gpu_first: bool) -> client_.ApiError:
    """The 422 Invalid the API server answers for those two causes, listed in the order given
    (as apimachinery's NewInvalid words it)."""
    causes = (CAUSE_GPU, CAUSE_STORAGE) if gpu_first else (CAUSE_STORAGE, CAUSE_GPU)
    listed = ", ".join(f"{field}: {text}" for field, text in causes)
    return client_.ApiError(422, "Invalid", f'Deployment.apps "web" is invalid: [{listed}]', causes)


@pytest.mark.parametrize("gpu_first", [True, False])
def test_error_message_sorts_the_causes_of_a_refusal(gpu_first: bool) -> None:
    _, message = controller.failure_event("create", 'Deployment "web"', two_causes(gpu_first))
    assert message == SORTED_CAUSES


def test_error_message_keeps_an_answer_with_one_cause_or_its_own_wording() -> None:
    one = client_.ApiError(
        422,
        "Invalid",
        'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater '
        "than or equal to 0",
        (("spec.replicas", "Invalid value: -1: must be greater than or equal to 0"),),
    )
    own = client_.ApiError(403, "Forbidden", "denied: b, a", (("b", "x"), ("a", "y")))
    for err in (one, own, ConnectionRefusedError("connection refused")):
        assert controller.error_message(err) == str(err)


def test_error_from_body_keeps_the_causes_in_their_order() -> None:
    body = json.dumps(
        {
            "kind": "Status",
            "message": "m",
            "reason": "Invalid",
            "details": {
                "causes": [{"field": f, "message": m} for f, m in (CAUSE_GPU, CAUSE_STORAGE)]
            },
        }
    ).encode()
    assert client_._error_from_body(422, "", body).causes == (CAUSE_GPU, CAUSE_STORAGE)


def test_error_message_is_sorted_before_it_is_cut() -> None:
    """The cut to the CRD's bound comes after the sort: a refusal too long for a condition,
    with two causes listed in either order, is the same message, cut at the same character."""

    def refusal(a_first: bool) -> client_.ApiError:
        a = ("a", 'Invalid value: "x": ' + "a" * 20000)
        b = ("b", 'Invalid value: "x": ' + "b" * 20000)
        causes = (a, b) if a_first else (b, a)
        listed = ", ".join(f"{field}: {text}" for field, text in causes)
        return client_.ApiError(
            422, "Invalid", f'Deployment.apps "web" is invalid: [{listed}]', causes
        )

    cut = {
        controller.bound_message(
            controller.failure_event("create", 'Deployment "web"', refusal(o))[1]
        )
        for o in (True, False)
    }
    assert len(cut) == 1
    (message,) = cut
    assert len(message) == controller.MESSAGE_MAX_LENGTH
    assert message.startswith(
        'Failed to create Deployment "web": Deployment.apps "web" is invalid: [a: Invalid value: "x": aaa'
    )


def test_a_vanished_owners_child_is_kept_when_the_modelservice_in_hand_no_longer_holds_the_name() -> (
    None
):
    """vanished-owner[successor-unseen]: the cache still holds a ModelService the API server
    has deleted and re-created under the name, and the children are the new one's. They look
    like a dead owner's to the stale pass; the live read (confirm_successor) refuses before
    any delete or create."""
    ms, dep, svc = live_world()
    stale = informer.copy_obj(ms)
    stale["metadata"]["uid"] = "the-deleted-one"
    cache = World(stale, dep, svc)
    with pytest.raises(controller.ReplacementRefused, match='not replacing Deployment "opt"'):
        reconciler(cache, live=World(ms, dep, svc)).reconcile(OPT)
    assert [(verb, kind) for verb, kind, _ in cache.attempts if verb in ("delete", "create")] == []


def test_a_vanished_owners_child_changed_since_read_is_read_again_not_replaced() -> None:
    """vanished-owner[orphaned-unseen]: the delete of a dead owner's child carries the
    resourceVersion read; a 409 (orphaned since, perhaps) ends the pass with the conflict: no
    create, no status write, no Event (recorded() empty), and no refusal in the status."""
    ms, dep, svc = live_world()
    svc["metadata"]["ownerReferences"][0]["uid"] = "vanished-uid"
    world = RefusingWorld(ms, dep, svc)
    world.refuse[("delete", "Service")] = client_.ApiError(409, "Conflict", "precondition")
    with pytest.raises(client_.ApiError) as raised:
        reconciler(world).reconcile(OPT)
    assert client_.is_conflict(raised.value)
    assert not isinstance(raised.value, controller.RefusedWrite)
    assert world.writes == []
    assert recorded(world) == []
