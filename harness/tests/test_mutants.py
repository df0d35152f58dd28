"""Every mutant imports, explains itself, and differs from the real operator in the way it
declares, checked on plain data with a fake cache and a fake API client (no API server).

The replacements are installed with pytest's monkeypatch, never with ``Patch.apply``, so
the real operator is back as it was after each test.
"""

from __future__ import annotations

import importlib
import os
import re
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness import mutants
from harness.paths import REPO_ROOT
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import clock, events, informer, manager
from python_operator.runtime import controller as controller_
from python_operator.runtime.reconcile import Request, Result

Obj = dict[str, Any]
MUTANTS = list(mutants.declared())
#: The mutants of the Python operator (modules in operators/) and of the Go reference
#: (go/<module>.go, built with an overlay by harness/mutants/gobuild.py).
PY_MUTANTS = [m for m in MUTANTS if mutants.language(m) == "python"]
GO_MUTANTS = [m for m in MUTANTS if mutants.language(m) == "go"]
#: The real reconciler class, as the real main builds it (no mutant installed).
ORIGINAL_RECONCILER = controller.ModelServiceReconciler
T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
#: The ModelService model_service() builds.
WEB = Request(namespace="lab", name="web")


def load(mutant_id: str) -> ModuleType:
    return importlib.import_module(f"harness.mutants.operators.{mutants.module_name(mutant_id)}")


def install(monkeypatch: pytest.MonkeyPatch, mutant_id: str) -> ModuleType:
    module = load(mutant_id)
    for patch in module.PATCHES:
        monkeypatch.setattr(patch.target, patch.name, patch.value)
    return module


# --------------------------------------------------------------------------- declarations
def test_the_issue_mutants_are_all_declared() -> None:
    assert {
        "always-update",
        "fresh-timestamp",
        "status-every-time",
        "retry-stale",
        "no-owns",
        "replay-event",
        "delete-by-name",
        "finalizer-first",
        "adopt-foreign",
        "no-relist",
        "zombie-leader",
    } <= set(MUTANTS)


def test_the_events_mutants_are_declared() -> None:
    assert {
        "no-events",
        "event-flood",
        "event-every-reconcile",
        "forgets-refused-event",
        "forgets-refused-event-go",
        "event-uuid-name",
        "event-uuid-name-go",
        "no-spam-filter",
        "no-spam-filter-go",
        "forgets-gone-event",
        "forgets-gone-event-go",
        "patches-new-event",
        "patches-new-event-go",
        "spam-key-by-name",
        "spam-key-by-name-go",
        "creates-on-refused-patch",
        "creates-on-refused-patch-go",
        "owner-handler-raises",
        "owner-handler-panics-go",
    } <= set(MUTANTS)


def test_every_module_is_declared_and_every_declaration_has_a_module() -> None:
    modules = {p.stem for p in mutants.module_path("x").parent.glob("*.py")} - {"__init__"}
    assert modules == {mutants.module_name(m) for m in PY_MUTANTS}
    go_files = {p.stem for p in mutants.go_source_path("x").parent.glob("*.go")}
    assert go_files == {mutants.module_name(m) for m in GO_MUTANTS}


def test_there_are_go_mutants() -> None:
    assert "raw-quantities-go" in GO_MUTANTS


@pytest.mark.parametrize("mutant_id", GO_MUTANTS)
def test_go_declaration_builds_the_overlay_and_runs_its_binary(mutant_id: str) -> None:
    table = tomllib.loads(mutants.MUTANTS_FILE.read_text())[mutant_id]
    assert table["workdir"] == "{repo}/go_reference"
    assert table["build"] == ["{python}", "-m", "harness.mutants.gobuild", mutant_id]
    assert table["command"] == [f"{{build}}/mutants/{mutant_id}/modeldock-go"]
    assert table["title"] and "\n" not in table["title"]


@pytest.mark.parametrize("mutant_id", GO_MUTANTS)
def test_go_card_has_a_title_and_three_labelled_paragraphs(mutant_id: str) -> None:
    doc = mutants.docstring(mutant_id)
    assert doc.startswith(f"{mutant_id}: ")
    labels = [label for label, _ in mutants.SECTIONS]
    found = [p.split(":")[0] + ":" for p in doc.split("\n\n")[1:]]
    assert found == labels, f"paragraphs after the title must be exactly {labels}"
    for key, text in mutants.sections(doc).items():
        assert len(text) > 80, f"{mutant_id}: the {key} paragraph says too little"


SEAM_ASSIGNMENT = re.compile(r"^\s+(\w+)\s*=", re.MULTILINE)
SEAM_DECLARATION = re.compile(r"^\s+(\w+)\s*=\s*[\w(]", re.MULTILINE)


@pytest.mark.parametrize("mutant_id", GO_MUTANTS)
def test_go_mutant_assigns_only_declared_seams_in_init(mutant_id: str) -> None:
    """A Go mutant changes the reference only through seams.go's variables, in init(): a
    renamed seam fails the build, and this says which file to look at."""
    source = mutants.go_source_path(mutant_id).read_text()
    assert source.count("func init()") == 1
    body = source[source.index("func init()") :]
    seams_go = (REPO_ROOT / "go_reference" / "seams.go").read_text()
    declared = set(SEAM_DECLARATION.findall(seams_go[seams_go.index("var (") :]))
    assigned = set(SEAM_ASSIGNMENT.findall(body)) - {"_"}
    assert assigned, "a Go mutant replaces at least one seam"
    assert assigned <= declared, f"not seams of go_reference/seams.go: {assigned - declared}"


def test_go_mutants_compile() -> None:
    """Every Go mutant compiles with its one file added to the reference: all in one ``go list
    -export`` (gobuild.compile_errors), none linked; the build that links is the next test's."""
    from harness.mutants import gobuild

    assert gobuild.compile_errors(GO_MUTANTS) == {}


def test_compile_errors_names_the_mutant_that_does_not_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant that assigns a seam the reference does not have is reported under its id, with
    the compiler's message; the others in the same run are not."""
    from harness.mutants import gobuild

    broken = tmp_path / "broken_seam_go.go"
    broken.write_text("package main\n\nfunc init() {\n\tnoSuchSeam = 1\n}\n")
    real = mutants.go_source_path
    monkeypatch.setattr(
        mutants, "go_source_path", lambda m: broken if m == "broken-seam-go" else real(m)
    )
    errors = gobuild.compile_errors([GO_MUTANTS[0], "broken-seam-go"])
    assert list(errors) == ["broken-seam-go"]
    assert "undefined: noSuchSeam" in errors["broken-seam-go"]


def test_a_go_mutant_builds_its_binary() -> None:
    """``python -m harness.mutants.gobuild <id>`` (the mutant's ``build``) links the binary its
    ``command`` runs (go build caches: seconds when nothing changed)."""
    from harness.mutants import gobuild

    assert gobuild.main([GO_MUTANTS[0]]) == 0
    assert gobuild.binary(GO_MUTANTS[0]).is_file()


def test_gobuild_refuses_a_python_mutant(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.mutants import gobuild

    assert gobuild.main(["always-update"]) == 2
    assert "not a Go mutant" in capsys.readouterr().err


@pytest.mark.parametrize("mutant_id", PY_MUTANTS)
def test_declaration_runs_the_module_as_an_implementation(mutant_id: str) -> None:
    table = tomllib.loads(mutants.MUTANTS_FILE.read_text())[mutant_id]
    assert table["command"] == [
        "{python}",
        "-m",
        f"harness.mutants.operators.{mutants.module_name(mutant_id)}",
    ]
    assert table["title"] and "\n" not in table["title"]


@pytest.mark.parametrize("mutant_id", PY_MUTANTS)
def test_docstring_has_a_title_and_three_labelled_paragraphs(mutant_id: str) -> None:
    module = load(mutant_id)
    doc = module.__doc__ or ""
    assert doc.strip() == mutants.docstring(mutant_id).strip()
    assert doc.startswith(f"{mutant_id}: ")
    labels = [label for label, _ in mutants.SECTIONS]
    found = [p.split(":")[0] + ":" for p in doc.split("\n\n")[1:]]
    assert found == labels, f"paragraphs after the title must be exactly {labels}"
    for key, text in mutants.sections(doc).items():
        assert len(text) > 80, f"{mutant_id}: the {key} paragraph says too little"


@pytest.mark.parametrize("mutant_id", PY_MUTANTS)
def test_each_patch_replaces_an_existing_seam_with_something_else(mutant_id: str) -> None:
    module = load(mutant_id)
    assert module.PATCHES, "a mutant replaces at least one thing"
    for patch in module.PATCHES:
        original = getattr(patch.target, patch.name)
        assert patch.value is not original
        if isinstance(original, type):
            assert issubclass(patch.value, original), "a class is replaced by a subclass"
        elif isinstance(original, (int, float, str)):
            # a constant of the real operator (RELEASE_CONFLICT_TRIES): another of its type
            assert type(patch.value) is type(original) and patch.value != original
        else:
            assert callable(patch.value)


def test_patch_refuses_a_seam_that_is_gone() -> None:
    with pytest.raises(AttributeError, match="does not exist in python_operator"):
        mutants.Patch(controller, "no_such_function", len).apply()


# --------------------------------------------------------------------------- fakes
class FakeCache:
    """The informer cache: objects by (plural, name), handed out as deep copies."""

    def __init__(self, *objs: tuple[client_.Resource, Obj]) -> None:
        self.objs = {(r.plural, o["metadata"]["name"]): o for r, o in objs}

    def get(self, resource: client_.Resource, namespace: str, name: str) -> Obj | None:
        obj = self.objs.get((resource.plural, name))
        return None if obj is None else informer.copy_obj(obj)


class FakeClient:
    """The API client: records every write as (verb, kind, object or name, uid); answers
    with the object and a new resourceVersion, or raises what ``fail`` queues per verb."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any, str | None]] = []
        self.fail: dict[str, list[Exception]] = {}
        self.rv = 100

    def _write(self, verb: str, resource: client_.Resource, obj: Obj) -> Obj:
        self.calls.append((verb, resource.kind, informer.copy_obj(obj), None))
        if self.fail.get(verb):
            raise self.fail[verb].pop(0)
        self.rv += 1
        out = informer.copy_obj(obj)
        out["metadata"]["resourceVersion"] = str(self.rv)
        out["metadata"].setdefault("uid", f"uid-{self.rv}")
        return out

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
        self.calls.append(("delete", resource.kind, name, uid))

    def verbs(self) -> list[str]:
        return [f"{verb} {kind}" for verb, kind, _, _ in self.calls]


def model_service(**spec: Any) -> Obj:
    return {
        "apiVersion": "modeldock.io/v1alpha1",
        "kind": "ModelService",
        "metadata": {
            "name": "web",
            "namespace": "lab",
            "uid": "ms-uid",
            "generation": 1,
            "resourceVersion": "10",
            "finalizers": [controller.FINALIZER_NAME],
        },
        "spec": {"model": "m", "image": "srv:1", "replicas": 1, "port": 8000, **spec},
    }


def converged(**spec: Any) -> tuple[Obj, Obj, Obj]:
    """A ModelService, its Deployment and Service, and its status, as the real operator
    leaves them: a reconcile of this world writes nothing."""
    ms = model_service(**spec)
    parsed = controller.read_spec(ms)
    dep = controller.desired_deployment(ms, parsed)
    svc = controller.desired_service(ms, parsed)
    for i, child in enumerate((dep, svc)):
        child["metadata"].update(uid=f"child-{i}", resourceVersion=str(20 + i))
    ms["status"] = controller.compute_status(ms, parsed, dep, "", T0)
    return ms, dep, svc


def cache_of(ms: Obj, dep: Obj | None, svc: Obj | None) -> FakeCache:
    objs = [(controller.MODELSERVICES, ms)]
    objs += [(controller.DEPLOYMENTS, dep)] if dep else []
    objs += [(controller.SERVICES, svc)] if svc else []
    return FakeCache(*objs)


def reconcile(cache: FakeCache, client: FakeClient, req: Request = WEB) -> Result:
    r = controller.ModelServiceReconciler(reader=cache, writer=client, live=cache, now=lambda: T0)
    return r.reconcile(req)


def test_the_real_operator_writes_nothing_in_the_converged_world() -> None:
    client = FakeClient()
    assert reconcile(cache_of(*converged()), client) == Result()
    assert client.calls == []


# --------------------------------------------------------------------------- behaviours
def test_always_update_writes_both_children_though_nothing_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "always-update")
    client = FakeClient()
    ms, dep, svc = converged()
    reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs() == ["update Deployment", "update Service"]
    sent = client.calls[0][2]
    assert sent["metadata"]["resourceVersion"] == dep["metadata"]["resourceVersion"]


def test_fresh_timestamp_moves_lastTransitionTime_without_a_status_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "fresh-timestamp")
    ms, dep, _ = converged()
    later = T0 + timedelta(minutes=5)
    status = controller.compute_status(ms, controller.read_spec(ms), dep, "", later)
    assert [c["status"] for c in status["conditions"]] == ["False", "True"]
    assert {c["lastTransitionTime"] for c in status["conditions"]} == {"2026-01-02T03:09:05Z"}


def test_status_every_time_writes_an_unchanged_status(monkeypatch: pytest.MonkeyPatch) -> None:
    ms, dep, svc = converged()
    install(monkeypatch, "status-every-time")
    client = FakeClient()
    reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs() == ["update_status ModelService"]
    assert client.calls[0][2]["status"] == ms["status"]


def test_retry_stale_sends_the_refused_object_again_until_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = install(monkeypatch, "retry-stale")
    monkeypatch.setattr(module, "RETRY_INTERVAL", 0)
    client = FakeClient()
    conflict = client_.ApiError(409, "Conflict", "the object has been modified")
    client.fail["update_status"] = [conflict, conflict]
    ms, dep, svc = converged()
    ms["metadata"]["generation"] = 2  # the status must change: observedGeneration 2
    reconcile(cache_of(ms, dep, svc), client)
    sent = [obj for verb, _, obj, _ in client.calls if verb == "update_status"]
    assert len(sent) == 3
    assert {obj["metadata"]["resourceVersion"] for obj in sent} == {"10"}


def test_the_real_operator_returns_a_conflict_to_the_queue() -> None:
    client = FakeClient()
    client.fail["update_status"] = [client_.ApiError(409, "Conflict", "modified")]
    ms, dep, svc = converged()
    ms["metadata"]["generation"] = 2
    with pytest.raises(client_.ApiError):
        reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs() == ["update_status ModelService"]


def test_gives_up_on_server_errors_drops_a_5xx_where_the_real_operator_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ms, dep, svc = converged()
    ms["metadata"]["generation"] = 2  # the status must change, so it is written
    client = FakeClient()
    client.fail["update_status"] = [client_.ApiError(500, "InternalError", "etcd leader lost")]
    with pytest.raises(client_.ApiError):
        reconcile(cache_of(ms, dep, svc), client)
    install(monkeypatch, "gives-up-on-server-errors")
    client.fail["update_status"] = [client_.ApiError(503, "ServiceUnavailable", "later")]
    assert reconcile(cache_of(ms, dep, svc), client) == Result()
    client.fail["update_status"] = [client_.ApiError(409, "Conflict", "modified")]
    with pytest.raises(client_.ApiError):  # only 5xx is dropped
        reconcile(cache_of(ms, dep, svc), client)


def test_gives_up_after_refusal_drops_a_refused_child_write_where_the_real_operator_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ms, dep, svc = converged()
    ms["spec"]["image"] = "srv:2"  # the Deployment must be updated
    ms["metadata"]["generation"] = 2
    forbidden = client_.ApiError(403, "Forbidden", "denied by policy")
    client = FakeClient()
    client.fail["update"] = [forbidden]
    with pytest.raises(controller.RefusedWrite):
        reconcile(cache_of(ms, dep, svc), client)
    install(monkeypatch, "gives-up-after-refusal")
    client.fail["update"] = [forbidden]
    assert reconcile(cache_of(ms, dep, svc), client) == Result()
    client.fail["update"] = [client_.ApiError(409, "Conflict", "modified")]
    with pytest.raises(client_.ApiError):  # a 409 is no refusal: still retried
        reconcile(cache_of(ms, dep, svc), client)


def test_drops_status_errors_returns_success_where_the_real_operator_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ms, dep, svc = converged()
    ms["metadata"]["generation"] = 2  # the status must change, so it is written
    client = FakeClient()
    client.fail["update_status"] = [client_.ApiError(403, "Forbidden", "denied by policy")]
    with pytest.raises(client_.ApiError):
        reconcile(cache_of(ms, dep, svc), client)
    install(monkeypatch, "drops-status-errors")
    client.fail["update_status"] = [client_.ApiError(403, "Forbidden", "denied by policy")]
    assert reconcile(cache_of(ms, dep, svc), client) == Result()


def test_ignores_retry_after_reads_no_wait_where_the_real_client_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = {"Retry-After": "2"}
    assert client_.retry_after_seconds(429, asked) == 2
    assert client_.retry_after_seconds(503, asked) == 2
    install(monkeypatch, "ignores-retry-after")
    assert client_.retry_after_seconds(429, asked) is None
    assert client_.retry_after_seconds(503, asked) is None


class FakeManager:
    def __init__(self) -> None:
        self.controllers: list[dict[str, Any]] = []
        self.informers: list[client_.Resource] = []

    def add_controller(self, **options: Any) -> None:
        self.controllers.append(options)

    def informer_for(self, resource: client_.Resource) -> None:
        self.informers.append(resource)


def test_no_owns_registers_the_controller_without_owns_but_keeps_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from python_operator import __main__ as operator_main

    real = FakeManager()
    operator_main.setup_with_manager(real, None, 1)  # type: ignore[arg-type]
    install(monkeypatch, "no-owns")
    mutant = FakeManager()
    operator_main.setup_with_manager(mutant, None, 1)  # type: ignore[arg-type]
    assert real.controllers[0]["owns"] == (controller.DEPLOYMENTS, controller.SERVICES)
    assert mutant.controllers[0]["owns"] == ()
    assert mutant.informers == [controller.DEPLOYMENTS, controller.SERVICES]


def test_replay_event_replays_create_after_a_restart_and_ignores_child_edits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = install(monkeypatch, "replay-event")
    monkeypatch.setattr(module, "INTENTS", {})
    monkeypatch.setattr(module, "LAST_SEEN", {})
    ctrl = module.ReplayEventController(name="t", reconciler=None)
    for_handler = ctrl.for_handler()
    child_handler = ctrl.owner_handler(group="modeldock.io", kind="ModelService")

    # The operator restarts; meanwhile replicas went 1 -> 2. The list says ADDED.
    ms, dep, svc = converged()
    ms["spec"]["replicas"] = 2
    ms["metadata"]["generation"] = 2
    for_handler.on_add(ms)
    client = FakeClient()
    client.fail["create"] = [client_.ApiError(409, "AlreadyExists", "exists")] * 2
    r = module.ReplayEventReconciler(
        reader=cache_of(ms, dep, svc), writer=client, live=cache_of(ms, dep, svc), now=lambda: T0
    )
    assert r.reconcile(WEB) == Result()
    # "create" replayed; the Deployment keeps 1 replica: nothing recomputed it.
    assert client.verbs() == ["create Deployment", "create Service", "update_status ModelService"]

    # A hand edit of a child: ignored; nothing is queued or remembered.
    edited = informer.copy_obj(dep)
    edited["spec"]["replicas"] = 5
    child_handler.on_update(dep, edited)
    assert ctrl.queue.len() == 1  # only the key from on_add above
    assert module.INTENTS == {}

    # A child deleted: created again from the ModelService as last heard of.
    child_handler.on_delete(svc)
    assert module.INTENTS["lab/web"][0] == module.CHILD_DELETED
    # ... but not while the ModelService is being deleted.
    module.INTENTS.clear()
    for_handler.on_update(ms, deleting(informer.copy_obj(ms)))
    assert module.INTENTS["lab/web"][0] == module.DELETING
    child_handler.on_delete(svc)
    assert module.INTENTS["lab/web"][0] == module.DELETING


def test_the_real_operator_converges_the_restarted_world() -> None:
    ms, dep, svc = converged()
    ms["spec"]["replicas"] = 2
    ms["metadata"]["generation"] = 2
    client = FakeClient()
    reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs() == ["update Deployment", "update_status ModelService"]
    assert client.calls[0][2]["spec"]["replicas"] == 2


def deleting(ms: Obj) -> Obj:
    ms["metadata"]["deletionTimestamp"] = "2026-01-02T03:04:05Z"
    return ms


def test_delete_by_name_deletes_a_child_it_does_not_own_without_a_uid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "delete-by-name")
    ms, dep, svc = converged()
    svc["metadata"]["ownerReferences"][0]["uid"] = "someone-else"
    client = FakeClient()
    reconcile(cache_of(deleting(ms), dep, svc), client)
    assert [(v, k, uid) for v, k, _, uid in client.calls] == [
        ("delete", "Deployment", None),
        ("delete", "Service", None),
    ]


def test_the_real_operator_deletes_only_its_own_child_with_its_uid() -> None:
    ms, dep, svc = converged()
    svc["metadata"]["ownerReferences"][0]["uid"] = "someone-else"
    client = FakeClient()
    reconcile(cache_of(deleting(ms), dep, svc), client)
    assert [(v, k, uid) for v, k, _, uid in client.calls] == [("delete", "Deployment", "child-0")]


def test_finalizer_first_removes_the_finalizer_before_deleting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "finalizer-first")
    ms, dep, svc = converged()
    client = FakeClient()
    reconcile(cache_of(deleting(ms), dep, svc), client)
    assert client.verbs() == ["update ModelService", "delete Deployment", "delete Service"]
    assert client.calls[0][2]["metadata"]["finalizers"] == []


def test_children_first_creates_the_children_before_the_finalizer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ms = model_service()
    ms["metadata"]["finalizers"] = []
    real = FakeClient()
    reconcile(cache_of(ms, None, None), real)
    assert real.verbs()[:3] == ["update ModelService", "create Deployment", "create Service"]

    install(monkeypatch, "children-first")
    client = FakeClient()
    reconcile(cache_of(ms, None, None), client)
    assert client.verbs()[:3] == ["create Deployment", "create Service", "update ModelService"]


def test_adopt_foreign_claims_a_child_another_owner_controls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    foreign_ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "other",
        "uid": "cm-uid",
        "controller": True,
    }
    ms, dep, svc = converged()
    dep["metadata"]["ownerReferences"] = [foreign_ref]
    real = FakeClient()
    reconcile(cache_of(ms, dep, svc), real)
    assert "update Deployment" not in real.verbs()

    install(monkeypatch, "adopt-foreign")
    client = FakeClient()
    reconcile(cache_of(ms, dep, svc), client)
    assert client.verbs()[0] == "update Deployment"
    refs = client.calls[0][2]["metadata"]["ownerReferences"]
    assert [r["uid"] for r in refs if r.get("controller")] == ["ms-uid"]


class ExpiredWatch:
    def list(self) -> tuple[list[Obj], str]:
        return [], "5"

    def watch(self, resource_version: str, timeout_seconds: int, read_timeout: float) -> Any:
        raise client_.ApiError(410, "Gone", "too old resource version")


def test_no_relist_treats_410_as_an_ordinary_error_and_keeps_the_resourceVersion() -> None:
    module = load("no-relist")
    real = informer.Informer(ExpiredWatch(), name="t")
    real.resource_version = "5"
    with pytest.raises(informer._Expired):
        real._watch()
    mutant = module.NoRelistInformer(ExpiredWatch(), name="t")
    mutant.resource_version = "5"
    with pytest.raises(RuntimeError, match="410"):
        mutant._watch()
    assert mutant.resource_version == "5"


class Exited(Exception):
    pass


def test_zombie_leader_carries_on_where_the_real_manager_exits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = load("zombie-leader")

    def exit_(code: int) -> None:
        raise Exited(code)

    monkeypatch.setattr(os, "_exit", exit_)
    real = manager.Manager(client=None, namespace="lab")  # type: ignore[arg-type]
    with pytest.raises(Exited):
        real._on_stopped_leading()
    zombie = module.ZombieManager(client=None, namespace="lab")
    ctrl = controller_.Controller(name="t", reconciler=None)  # type: ignore[arg-type]
    zombie._controllers.append(ctrl)
    zombie._on_stopped_leading()
    assert not ctrl._stopping.is_set(), "the zombie's workers keep running"


def test_reads_namespace_reads_a_cluster_scoped_object_and_ignores_the_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    module = load("reads-namespace")
    asked: list[str] = []

    class RefusingCoreApi:
        def read_namespace(self, name: str, **_: Any) -> Any:
            asked.append(name)
            raise RuntimeError("403 Forbidden")

    client = FakeClient()
    ms, dep, svc = converged()
    ms["metadata"]["generation"] = 2
    r = module.ReadsNamespaceReconciler(
        reader=cache_of(ms, dep, svc), writer=client, live=cache_of(ms, dep, svc), now=lambda: T0
    )
    r._core = RefusingCoreApi()
    r.reconcile(WEB)
    assert asked == ["lab"]
    assert client.verbs() == ["update_status ModelService"], "and then reconciles as usual"


def test_ready_on_write_claims_ready_without_available_replicas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install(monkeypatch, "ready-on-write")
    ms, dep, _ = converged(replicas=3)
    status = controller.compute_status(ms, controller.read_spec(ms), dep, "", T0)
    assert status["availableReplicas"] == 3
    assert [(c["type"], c["status"]) for c in status["conditions"]] == [
        ("Ready", "True"),
        ("Progressing", "False"),
    ]


def test_optional_as_required_fails_on_the_smallest_valid_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ms = model_service()
    assert controller.read_spec(ms).args == ()
    install(monkeypatch, "optional-as-required")
    with pytest.raises(KeyError, match="args"):
        controller.read_spec(ms)
    full = model_service(args=["--x"], resources={"limits": {"cpu": "1"}})
    assert controller.read_spec(full).args == ("--x",)


def test_rounds_to_millis_writes_millis_where_the_real_operator_keeps_the_exponent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ms = model_service(resources={"requests": {"cpu": "1e-4", "memory": "5e8"}})
    assert controller.read_spec(ms).resources == {"requests": {"cpu": "1e-3", "memory": "500e6"}}
    install(monkeypatch, "rounds-to-millis")
    assert controller.read_spec(ms).resources == {"requests": {"cpu": "1m", "memory": "500e6"}}


def test_module_names_follow_mutant_ids() -> None:
    for mutant_id in MUTANTS:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", mutant_id)
        assert mutants.source_path(mutant_id).exists()


# --------------------------------------------------------------------------- Events
def reconcile_recording(cache: FakeCache, client: FakeClient) -> list[str]:
    recorder = events.FakeRecorder()
    r = controller.ModelServiceReconciler(
        reader=cache, writer=client, live=cache, now=lambda: T0, recorder=recorder
    )
    r.reconcile(WEB)
    return recorder.events


def test_no_events_drops_the_recorder(monkeypatch: pytest.MonkeyPatch) -> None:
    ms, _, _ = converged()
    assert reconcile_recording(cache_of(ms, None, None), FakeClient()) == [
        'Normal CreatedDeployment Created Deployment "web"',
        'Normal CreatedService Created Service "web"',
    ]
    install(monkeypatch, "no-events")
    client = FakeClient()
    assert reconcile_recording(cache_of(ms, None, None), client) == []
    assert client.verbs() == ["create Deployment", "create Service"], "and reconciles as usual"


class EventStore:
    """An API server's events: creates and patches, by name."""

    def __init__(self) -> None:
        self.stored: dict[str, Obj] = {}
        self.verbs: list[str] = []

    def create(self, event: Obj) -> Obj:
        self.verbs.append("create")
        self.stored[event["metadata"]["name"]] = dict(event)
        return dict(event)

    def patch(self, event: Obj, patch: Obj) -> Obj:
        self.verbs.append("patch")
        stored = self.stored[event["metadata"]["name"]] | patch
        self.stored[event["metadata"]["name"]] = stored
        return dict(stored)


def record_three_conflicts() -> EventStore:
    store = EventStore()
    fake = clock.FakeClock(1767322800.0)
    b = events.Broadcaster(store, clock=fake, sleep_duration=0)
    ms, _, _ = converged()
    for _ in range(3):
        b.record_to_sink(
            events.make_event(
                events.object_reference(ms),
                events.WARNING,
                "ChildConflict",
                "in the way",
                "c",
                "",
                fake.now(),
            )
        )
        fake.step(5)
    return store


def test_event_flood_creates_every_repeat_where_the_recorder_counts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = record_three_conflicts()
    assert real.verbs == ["create", "patch", "patch"]
    assert [e["count"] for e in real.stored.values()] == [3]
    install(monkeypatch, "event-flood")
    flood = record_three_conflicts()
    assert flood.verbs == ["create", "create", "create"]
    assert [e["count"] for e in flood.stored.values()] == [1, 1, 1]


class RefusingStore(EventStore):
    """An EventStore whose first create is refused (403, an admission policy) and whose patch
    of a name it never stored is answered 404, as the API server's."""

    def __init__(self) -> None:
        super().__init__()
        self.refuse = 1

    def create(self, event: Obj) -> Obj:
        if self.refuse:
            self.refuse -= 1
            self.verbs.append("create refused")
            raise client_.ApiError(403, "Forbidden", "denied by a policy")
        return super().create(event)

    def patch(self, event: Obj, patch: Obj) -> Obj:
        if event["metadata"]["name"] not in self.stored:
            self.verbs.append("patch 404")
            raise client_.ApiError(404, "NotFound", "not found")
        return super().patch(event, patch)


def record_refused_then_admitted() -> RefusingStore:
    """One CreatedDeployment refused, then the same Event again: the store after both."""
    store = RefusingStore()
    fake = clock.FakeClock(1767322800.0)
    b = events.Broadcaster(store, clock=fake, sleep_duration=0)
    ms, _, _ = converged()
    for _ in range(2):
        b.record_to_sink(
            events.make_event(
                events.object_reference(ms),
                events.NORMAL,
                "CreatedDeployment",
                'Created Deployment "web"',
                "c",
                "",
                fake.now(),
            )
        )
        fake.step(5)
    return store


def test_forgets_refused_event_restarts_the_count_where_the_recorder_keeps_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = record_refused_then_admitted()
    assert real.verbs == ["create refused", "patch 404", "create"]
    assert [e["count"] for e in real.stored.values()] == [2]
    install(monkeypatch, "forgets-refused-event")
    forgetful = record_refused_then_admitted()
    assert forgetful.verbs == ["create refused", "create"]
    assert [e["count"] for e in forgetful.stored.values()] == [1]


def test_event_every_reconcile_records_when_nothing_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world = converged()
    assert reconcile_recording(cache_of(*world), FakeClient()) == []
    install(monkeypatch, "event-every-reconcile")
    client = FakeClient()
    assert reconcile_recording(cache_of(*world), client) == [
        "Normal Reconciled ModelService reconciled"
    ]
    assert client.calls == [], "no other write"


@pytest.mark.parametrize("mutant_id", PY_MUTANTS)
def test_a_replacement_reconciler_takes_what_main_passes(mutant_id: str) -> None:
    """A mutant's reconciler class is built by the real ``main`` with the real operator's
    keyword arguments (reader, writer, live, recorder, ...): a subclass whose ``__init__``
    lost one dies at start-up, a broken mutant rather than a caught one (retry-stale did, when
    the recorder was added)."""
    import inspect

    module = load(mutant_id)
    classes = [
        p.value
        for p in module.PATCHES
        if p.target is controller and p.name == "ModelServiceReconciler"
    ]
    if not classes:
        pytest.skip("the mutant does not replace the reconciler")
    real = inspect.signature(ORIGINAL_RECONCILER.__init__).parameters
    options: dict[str, FakeClient | FakeCache | None] = {
        name: FakeClient() if name == "writer" else FakeCache()
        for name, p in real.items()
        if name != "self" and p.default is p.empty
    }
    options["recorder"] = None
    reconciler = classes[0](**options)
    assert isinstance(reconciler, ORIGINAL_RECONCILER)


def test_unsorted_causes_reverses_every_other_refusal_where_the_real_operator_sorts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gpu = ("limits[nvidia.com/gpu]", 'Invalid value: "500m": must be an integer')
    storage = ("limits[ephemeral-storage]", 'Invalid value: "-1": must be >= 0')
    refusal = client_.ApiError(
        422,
        "Invalid",
        f'Deployment.apps "web" is invalid: [{": ".join(gpu)}, {": ".join(storage)}]',
        (gpu, storage),
    )
    in_order = f'Deployment.apps "web" is invalid: [{": ".join(storage)}, {": ".join(gpu)}]'
    assert {controller.error_message(refusal) for _ in range(4)} == {in_order}
    install(monkeypatch, "unsorted-causes")
    texts = [controller.error_message(refusal) for _ in range(4)]
    assert len(set(texts)) == 2 and texts[0] != texts[1], texts


def test_the_compile_check_runs_in_the_cache_s_real_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """go matches the overlay's paths against getcwd's real path: a symlinked MODELDOCK_CACHE
    is resolved, and every overlaid path (go.mod, go.sum, each mutant's package) lies in the
    one fixed folder, whatever the clone's path."""
    from harness.mutants import gobuild

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("MODELDOCK_CACHE", str(tmp_path / "link"))
    root = gobuild.compile_check_dir()
    assert root == real / "go-compile-check" and root.is_dir()
    doc = gobuild.compile_overlay([GO_MUTANTS[0]], root)
    assert {str(root / "go.mod"), str(root / "go.sum")} <= set(doc["Replace"])
    assert all(Path(target).is_relative_to(root) for target in doc["Replace"])
    assert not any(root.iterdir())  # nothing on disk: the overlay holds it all
