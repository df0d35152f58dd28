"""The world a generated sequence acts on, the steps it is made of, and the oracles that judge
each implementation's operator without an expected value.

A *lane* is one implementation's share of the world: a namespace of its own on the shared
control plane, an API proxy, and the operator process behind it (``Lane``). Every step is
applied to every lane in turn, as the admin (or as another actor: a sidecar injector, a
person with kubectl, the garbage collector), so the lanes see the same sequence and the API
server's answers to the user's writes are the same in each.

A step is a plain dict (``{"op": "patch-spec", "patch": {...}}``), so a sequence is data: the
state machine (``machine.py``) draws it, a case file stores it, ``replay`` runs it again. The
steps (``OPS``):

- ``create``: the ModelService ``NAME`` with a drawn spec, labels and annotations;
- ``patch-spec``: a JSON merge patch of the spec the CRD admits (a field ``null`` removes it);
- ``invalid-spec``: a patch the API server must refuse (422); a premise, and the world must
  not change;
- ``metadata``: labels and annotations merged in (``null`` removes one);
- ``delete``: with a propagation policy (``Background``, ``Foreground``, ``Orphan``), then the
  garbage collector's part played by the harness on this tier once the operator removed its
  finalizer (``Orphan``: the children's ownerReferences to it stripped; ``Foreground``: its
  remaining dependents deleted), so the name is free for the next ``create``;
- ``foreign``: another writer sets a field of a child the operator does not own (a template
  annotation, a sidecar container, an env var of ``server``, the Service's
  ``sessionAffinity``, a label), or the Deployment's status (the deployment controller's
  part, which this tier lacks);
- ``owned``: another writer changes a field the operator owns (the Deployment's replicas, the
  ``server`` image, the Service's port);
- ``delete-child``: a child deleted by hand;
- ``restart``: the operator SIGKILLed and started again;
- ``quiet``: wait until every lane's operator has converged and then written nothing for
  ``quiet`` seconds.

Oracles (each a message naming the implementation; docs/design.md, "Generated workloads"):

- *invariants* after every step (``safety``): at most one child of a kind per ModelService
  UID; a live ModelService that controls a child holds the finalizer; a child controlled by a
  deleting ModelService was not created after its deletion; and, once quiet (``liveness``),
  every child controlled by a ModelService is controlled by the live one, a live ModelService
  not in ChildConflict has one child of each kind, a deleting one is no longer held by the
  operator's finalizer;
- *quiet*: after convergence no write of the operator for ``quiet`` seconds, as its API proxy
  logged them, within ``quiet_timeout``;
- *budget*: the successful writes of a window between two quiet points are at most the sum of
  ``BUDGET`` over its steps;
- *differential*: at each quiet point the lanes' normalised worlds are equal;
- *level-triggered*: at the end, each lane's normalised world equals the one the same operator
  reaches in a fresh namespace from a ModelService created with the final spec and metadata,
  the same foreign fields written onto its children.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubernetes.client.exceptions import ApiException

from harness.audit import WRITE_VERBS
from harness.envtest.controlplane import ControlPlane
from harness.explore.state import FINALIZER, RESOURCES, diff, snapshot
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.kube import Kube
from harness.modelservice import SELECTOR_LABEL, modelservice, status_converged
from harness.operators import Implementation, OperatorProcess
from harness.plugin.lab import create_namespace

#: The ModelService every sequence is about.
NAME = "gen"

#: What a step's window may cost in successful operator writes (finalizer, children, status):
#: one per child that must change, one status, a Deployment replaced counting two.
BUDGET: dict[str, int] = {
    "create": 4,  # finalizer, Deployment, Service, status
    "patch-spec": 3,  # Deployment, Service, status
    "invalid-spec": 0,
    "metadata": 0,
    "delete": 3,  # two child deletes, the finalizer
    "foreign": 1,  # a Deployment status written by its controller: one status
    "owned": 2,  # the child set back, the status
    "delete-child": 2,  # the child re-created, the status
    "restart": 0,
    "quiet": 0,
}
#: Steps that are made of one write of the user's and change nothing else (all but quiet).
OPS = tuple(k for k in BUDGET if k != "quiet")

#: Fields of the children other writers own, by the ``foreign`` step's ``field``.
FOREIGN_FIELDS = ("template-annotation", "sidecar", "env", "label", "session-affinity", "status")
#: Fields the operator owns that another writer changes, by the ``owned`` step's ``field``.
OWNED_FIELDS = ("replicas", "image", "service-port")


class OracleFailure(AssertionError):
    """An oracle failed for implementation ``impl``: ``oracle`` (invariant, quiet, budget,
    differential, level-triggered, refused) and the message."""

    def __init__(self, impl: str, oracle: str, message: str) -> None:
        super().__init__(f"[{impl}] {oracle}: {message}")
        self.impl, self.oracle, self.message = impl, oracle, message


class PremiseBroken(RuntimeError):
    """The world did not do what the step needs to judge anything (the API server admitted
    an invalid edit): not the operator's failure."""


@dataclass
class Lane:
    """One implementation in its own namespace, behind its own API proxy."""

    impl: Implementation
    admin: Kube
    ns: str
    proxy: ApiProxy
    workdir: Path
    op: OperatorProcess | None = None
    starts: int = 0
    #: id of the last request-log record when the current window began
    window_from: int = 0
    #: the steps of the current window
    window_ops: list[str] = field(default_factory=list)

    @property
    def log(self) -> RequestLog:
        return RequestLog(self.proxy.request_log)

    def start_operator(self) -> None:
        """Start a new operator process through the lane's proxy; wait until ready."""
        self.op = OperatorProcess(
            impl=self.impl,
            kubeconfig=self.proxy.kubeconfig,
            namespace=self.ns,
            log_path=self.workdir / f"operator-{self.starts}.log",
            request_log=self.proxy.request_log,
        )
        self.starts += 1
        self.op.start(timeout=60)

    def stop(self) -> None:
        if self.op is not None:
            self.op.terminate(timeout=10)
        self.proxy.stop()

    def writes(self, after: int = 0) -> list[ProxyRequest]:
        """The operator's successful writes to ModelServices, Deployments and Services with a
        request id above ``after``, as its proxy logged them."""
        return [
            r
            for r in self.log.records()
            if r.id > after
            and r.verb in WRITE_VERBS
            and r.resource in RESOURCES
            and 200 <= r.code < 300
            and not r.injected
        ]

    def last_id(self) -> int:
        records = self.log.records()
        return records[-1].id if records else 0


def describe(r: ProxyRequest) -> str:
    """``verb resource[/sub] name code`` of one request."""
    target = f"{r.resource}/{r.subresource}" if r.subresource else r.resource
    return f"{r.verb} {target} {r.name} {r.code}"


@dataclass
class Settings:
    """What every lane shares: ``quiet`` s of no write after convergence; ``quiet_timeout`` s
    for convergence and quiet together."""

    control_plane: ControlPlane
    workdir: Path
    quiet: float = 2.0
    quiet_timeout: float = 60.0


def new_lane(settings: Settings, impl: Implementation, label: str) -> Lane:
    """A namespace with the operator role bound to ``impl``'s user, an API proxy, and the
    operator started behind it."""
    admin = Kube(settings.control_plane.admin_kubeconfig)
    ns = create_namespace(admin, label, impl.user)
    workdir = settings.workdir / ns
    workdir.mkdir(parents=True, exist_ok=True)
    proxy = ApiProxy.for_user(settings.control_plane, impl.user, workdir=workdir)
    proxy.progress = lambda line: None
    proxy.start()
    lane = Lane(impl, admin, ns, proxy, workdir)
    lane.start_operator()
    return lane


def close_lane(lane: Lane) -> None:
    """Stop the lane's operator and proxy, delete its namespace (no namespace controller on
    envtest: the objects stay, finalizers and all, but nothing acts on them any more)."""
    lane.stop()
    try:
        lane.admin.delete("namespaces", None, lane.ns)
    except ApiException:
        pass
    lane.admin.close()


# ------------------------------------------------------------------ the steps


def _msvc(lane: Lane) -> dict[str, Any] | None:
    return lane.admin.get("modelservices", lane.ns, NAME)


def apply_step(lane: Lane, step: dict[str, Any], settings: Settings) -> None:
    """Apply ``step`` (see the module docstring) to ``lane``. Raises ``PremiseBroken`` when
    the API server admitted an invalid edit, ``OracleFailure`` when a step that waits (quiet,
    delete) finds the operator failing."""
    op = step["op"]
    a = lane.admin
    if op == "create":
        body = modelservice(NAME, **step["spec"])
        body["spec"] = step["spec"]
        body["metadata"]["labels"] = step.get("labels") or {}
        body["metadata"]["annotations"] = step.get("annotations") or {}
        a.create("modelservices", lane.ns, body)
    elif op == "patch-spec":
        a.patch("modelservices", lane.ns, NAME, {"spec": step["patch"]})
    elif op == "invalid-spec":
        before = _msvc(lane)
        try:
            a.patch("modelservices", lane.ns, NAME, {"spec": step["patch"]})
        except ApiException as exc:
            if exc.status != 422:
                raise
        else:
            raise PremiseBroken(f"the API server admitted the invalid edit {step['patch']}")
        after = _msvc(lane)
        if before and after and before["metadata"]["resourceVersion"] != after["metadata"][
            "resourceVersion"
        ] and before.get("spec") != after.get("spec"):
            raise PremiseBroken("a refused edit changed the spec")
    elif op == "metadata":
        a.patch(
            "modelservices",
            lane.ns,
            NAME,
            {"metadata": {"labels": step.get("labels") or {}, "annotations": step.get("annotations") or {}}},
        )
    elif op == "delete":
        _delete(lane, step["policy"], settings)
    elif op == "foreign":
        _foreign(lane, step["field"], step.get("value", ""))
    elif op == "owned":
        _owned(lane, step["field"], step["value"])
    elif op == "delete-child":
        a.delete(step["kind"], lane.ns, NAME)
    elif op == "restart":
        if lane.op is not None:
            lane.op.kill()
        lane.start_operator()
    elif op == "quiet":
        pass  # the world waits for every lane (World.quiet)
    else:
        raise ValueError(f"unknown step {op!r}")


def _delete(lane: Lane, policy: str, settings: Settings) -> None:
    """Delete with ``policy``; wait for the operator to remove its finalizer (an oracle: the
    quiet timeout fails it), then play the garbage collector, so that the name is free."""
    a = lane.admin
    m = _msvc(lane)
    if m is None:
        return
    uid = m["metadata"]["uid"]
    a.delete("modelservices", lane.ns, NAME, propagation_policy=policy)
    deadline = time.monotonic() + settings.quiet_timeout
    while True:
        m = _msvc(lane)
        if m is None or m["metadata"]["uid"] != uid:
            return
        if FINALIZER not in (m["metadata"].get("finalizers") or []):
            break
        if time.monotonic() > deadline:
            raise OracleFailure(
                lane.impl.id,
                "quiet",
                f"the operator kept its finalizer {settings.quiet_timeout:.0f}s after a "
                f"{policy} delete; finalizers {m['metadata'].get('finalizers')}",
            )
        time.sleep(0.2)
    # The garbage collector's part (this tier has none): dependents, then its finalizer.
    for res in ("deployments", "services"):
        for child in a.list(res, lane.ns):
            refs = child["metadata"].get("ownerReferences") or []
            if not any(r.get("uid") == uid for r in refs):
                continue
            if policy == "Orphan":
                child["metadata"]["ownerReferences"] = [r for r in refs if r.get("uid") != uid]
                _retry(lambda c=child, r=res: _update_fresh(a, r, c, ("metadata", "ownerReferences")))
            else:
                a.delete(res, lane.ns, child["metadata"]["name"], uid=child["metadata"]["uid"])
    gc = {"orphan", "foregroundDeletion"}

    def strip() -> None:
        live = _msvc(lane)
        if live is None or live["metadata"]["uid"] != uid:
            return
        fins = live["metadata"].get("finalizers") or []
        if any(f in gc for f in fins):
            live["metadata"]["finalizers"] = [f for f in fins if f not in gc]
            a.update("modelservices", live)

    _retry(strip)
    deadline = time.monotonic() + settings.quiet_timeout
    while (m := _msvc(lane)) is not None and m["metadata"]["uid"] == uid:
        if time.monotonic() > deadline:
            raise PremiseBroken(f"the ModelService stayed after a {policy} delete: {m['metadata']}")
        time.sleep(0.2)


def _retry(fn: Callable[[], None], tries: int = 10) -> None:
    """Run ``fn``, again after a 409 (another writer came between its read and its write)."""
    for i in range(tries):
        try:
            fn()
            return
        except ApiException as exc:
            if exc.status != 409 or i == tries - 1:
                raise
            time.sleep(0.1)


def _update_fresh(a: Kube, res: str, edited: dict[str, Any], path: tuple[str, str]) -> None:
    """Set ``edited``'s value at ``path`` on a fresh read of the object, and update it."""
    live = a.get(res, edited["metadata"]["namespace"], edited["metadata"]["name"])
    if live is None:
        return
    live[path[0]][path[1]] = edited[path[0]][path[1]]
    a.update(res, live)


def _edit_child(lane: Lane, res: str, edit: Callable[[dict[str, Any]], None], sub: str | None = None) -> None:
    """Read the child, ``edit`` it in place, update it (again after a 409); nothing if absent."""
    a = lane.admin

    def once() -> None:
        live = a.get(res, lane.ns, NAME)
        if live is None:
            return
        edit(live)
        a.update(res, live, subresource=sub)

    _retry(once)


def _server(dep: dict[str, Any]) -> dict[str, Any] | None:
    for c in dep["spec"]["template"]["spec"].get("containers") or []:
        if c.get("name") == "server":
            return c  # type: ignore[no-any-return]
    return None


def _foreign(lane: Lane, what: str, value: str) -> None:
    """Another writer sets a field of a child the operator does not own (``FOREIGN_FIELDS``)."""
    if what == "template-annotation":

        def edit(d: dict[str, Any]) -> None:
            t = d["spec"]["template"]["metadata"]
            t["annotations"] = (t.get("annotations") or {}) | {"kubectl.kubernetes.io/restartedAt": value}

        _edit_child(lane, "deployments", edit)
    elif what == "sidecar":

        def edit(d: dict[str, Any]) -> None:
            cs = [c for c in d["spec"]["template"]["spec"]["containers"] if c["name"] != "sidecar"]
            d["spec"]["template"]["spec"]["containers"] = [*cs, {"name": "sidecar", "image": f"proxy:{value}"}]

        _edit_child(lane, "deployments", edit)
    elif what == "env":

        def edit(d: dict[str, Any]) -> None:
            c = _server(d)
            if c is not None:
                c["env"] = [{"name": "MESH", "value": value}]

        _edit_child(lane, "deployments", edit)
    elif what == "label":
        for res in ("deployments", "services"):

            def edit(o: dict[str, Any]) -> None:
                o["metadata"]["labels"] = (o["metadata"].get("labels") or {}) | {"team": value}

            _edit_child(lane, res, edit)
    elif what == "session-affinity":

        def edit(s: dict[str, Any]) -> None:
            s["spec"]["sessionAffinity"] = "ClientIP" if value else "None"

        _edit_child(lane, "services", edit)
    elif what == "status":
        n = int(value or 0)

        def edit(d: dict[str, Any]) -> None:
            d["status"] = {
                "observedGeneration": d["metadata"].get("generation", 1),
                "replicas": n,
                "updatedReplicas": n,
                "readyReplicas": n,
                "availableReplicas": n,
            }

        _edit_child(lane, "deployments", edit, sub="status")
    else:
        raise ValueError(f"unknown foreign field {what!r}")


def _owned(lane: Lane, what: str, value: Any) -> None:
    """Another writer changes a field the operator owns (``OWNED_FIELDS``)."""
    if what == "replicas":

        def edit(d: dict[str, Any]) -> None:
            d["spec"]["replicas"] = int(value)

        _edit_child(lane, "deployments", edit)
    elif what == "image":

        def edit(d: dict[str, Any]) -> None:
            c = _server(d)
            if c is not None:
                c["image"] = str(value)

        _edit_child(lane, "deployments", edit)
    elif what == "service-port":

        def edit(s: dict[str, Any]) -> None:
            for p in s["spec"].get("ports") or []:
                p["port"] = int(value)

        _edit_child(lane, "services", edit)
    else:
        raise ValueError(f"unknown owned field {what!r}")


# ------------------------------------------------------------------ the oracles


def _controller_uid(obj: dict[str, Any]) -> str | None:
    for r in obj["metadata"].get("ownerReferences") or []:
        if r.get("controller") and r.get("kind") == "ModelService":
            return str(r.get("uid"))
    return None


def safety(lane: Lane) -> list[str]:
    """The invariants that hold at every moment (module docstring), read from the API server."""
    a = lane.admin
    problems = []
    # The children first, the ModelService after: a child seen controlled by it was created
    # after its finalizer was written, so the later read of the ModelService must show it.
    children = {res: a.list(res, lane.ns) for res in ("deployments", "services")}
    m = _msvc(lane)
    for res, items in children.items():
        by_uid: dict[str, list[str]] = {}
        for c in items:
            uid = _controller_uid(c)
            if uid:
                by_uid.setdefault(uid, []).append(c["metadata"]["name"])
        problems += [
            f"ModelService uid {u} controls {len(n)} {res}: {n}" for u, n in by_uid.items() if len(n) > 1
        ]
    if m is not None:
        uid = m["metadata"]["uid"]
        mine = [c for items in children.values() for c in items if _controller_uid(c) == uid]
        deleting = m["metadata"].get("deletionTimestamp")
        if mine and not deleting and FINALIZER not in (m["metadata"].get("finalizers") or []):
            problems.append(f"the live ModelService controls {len(mine)} children without {FINALIZER}")
        if deleting:
            problems += [
                f"{c['kind']} {c['metadata']['name']} created at {c['metadata']['creationTimestamp']}, "
                f"after its ModelService's deletion at {deleting}"
                for c in mine
                if c["metadata"]["creationTimestamp"] > deleting
            ]
    return problems


def liveness(lane: Lane) -> list[str]:
    """The invariants that hold once the operator is quiet (module docstring)."""
    a = lane.admin
    m = _msvc(lane)
    problems = []
    live_uid = m["metadata"]["uid"] if m else None
    for res in ("deployments", "services"):
        for c in a.list(res, lane.ns):
            uid = _controller_uid(c)
            if uid and uid != live_uid:
                problems.append(f"{res}/{c['metadata']['name']} is controlled by a ModelService that no longer exists")
    if m is not None and not m["metadata"].get("deletionTimestamp"):
        reason = ((_condition(m, "Ready") or {}).get("reason")) or ""
        if reason != "ChildConflict" and not _refused(m):
            for res in ("deployments", "services"):
                if not any(_controller_uid(c) == live_uid for c in a.list(res, lane.ns)):
                    problems.append(f"the ModelService has no {res[:-1]} (child lost)")
        if FINALIZER not in (m["metadata"].get("finalizers") or []):
            problems.append(f"the live ModelService lacks {FINALIZER}")
    return problems


def _condition(m: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    for c in (m.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c  # type: ignore[no-any-return]
    return None


def _refused(m: dict[str, Any]) -> bool:
    """The status reports a refused child write (CONTRACT.md, "A refused child write")."""
    return any("Refused" in str(c.get("reason", "")) or "Failed" in str(c.get("reason", ""))
               for c in (m.get("status") or {}).get("conditions") or [])


def converged(lane: Lane) -> bool:
    """The lane's world is at rest as the contract defines it: no ModelService and no child
    of a vanished one, or a ModelService whose status caught up (``status_converged``, or a
    ChildConflict reported at its generation) with each child present unless a refused write
    is reported."""
    m = _msvc(lane)
    if m is None:
        return True
    meta, status = m["metadata"], m.get("status") or {}
    if meta.get("deletionTimestamp"):
        return FINALIZER not in (meta.get("finalizers") or [])
    if status.get("observedGeneration") != meta.get("generation"):
        return False
    ready = _condition(m, "Ready") or {}
    if ready.get("reason") == "ChildConflict" or _refused(m):
        return True
    if not status_converged(m):
        return False
    return all(lane.admin.get(res, lane.ns, NAME) is not None for res in ("deployments", "services"))


def wait_quiet(lane: Lane, settings: Settings) -> None:
    """The quiet oracle: wait until ``converged`` holds and the operator has made no
    successful write for ``settings.quiet`` s after that. ``OracleFailure`` naming the last
    writes if it has not within ``settings.quiet_timeout``."""
    deadline = time.monotonic() + settings.quiet_timeout
    since: float | None = None
    while True:
        now = time.time()
        if converged(lane):
            since = since or now
            writes = lane.writes(lane.window_from)
            last = max([since, *(seconds(w.time) for w in writes)])
            if now - last >= settings.quiet:
                return
        else:
            since = None
        if time.monotonic() > deadline:
            recent = [describe(w) for w in lane.writes(lane.window_from)][-8:]
            state = "converged but writing" if since else "not converged"
            raise OracleFailure(
                lane.impl.id,
                "quiet",
                f"{state} {settings.quiet_timeout:.0f}s after the window began; its last "
                f"writes: {recent}; ModelService status: {json.dumps((_msvc(lane) or {}).get('status'))[:600]}",
            )
        time.sleep(0.2)


def budget_check(lane: Lane) -> str | None:
    """The budget oracle for the window that just became quiet, or None when within."""
    writes = lane.writes(lane.window_from)
    bound = sum(BUDGET[o] for o in lane.window_ops)
    if len(writes) > bound:
        return (
            f"{len(writes)} writes for steps {lane.window_ops} (bound {bound}): "
            f"{[describe(w) for w in writes]}"
        )
    return None


#: Normalised away before comparing worlds: what differs between two runs of the same
#: operator by design. ``imagePullPolicy``: the API server defaults it from the image's tag
#: when a container is created (Always for ``:latest`` or no tag) and the operator keeps a
#: server default (CONTRACT.md, "Desired Deployment"), so a Deployment created for image
#: ``srv`` and updated to ``srv:1`` keeps Always where a fresh one gets IfNotPresent: a path
#: dependence the contract chose, reported by this oracle's first version and kept out of it.
def normalised(lane: Lane) -> dict[str, Any]:
    """The lane's world as ``explore.state.snapshot`` normalises it, less generations,
    observedGenerations and imagePullPolicy (above)."""
    state = snapshot(lane.admin, lane.ns)
    for m in state["modelservices"].values():
        m["metadata"].pop("generation", None)
        st = m.get("status") or {}
        st.pop("observedGeneration", None)
        for c in st.get("conditions") or []:
            c.pop("observedGeneration", None)
        if "conditions" in st:
            st["conditions"] = {c.get("type"): c for c in st["conditions"]}
    for d in state["deployments"].values():
        for c in (d["spec"].get("template") or {}).get("spec", {}).get("containers") or []:
            c.pop("imagePullPolicy", None)
    return state


def foreign_state(lane: Lane) -> dict[str, Any]:
    """What other writers own on the lane's children, to be written onto a fresh world's:
    non-operator labels and annotations, template annotations, containers but ``server``,
    ``server``'s env, the Service's sessionAffinity, the Deployment's status."""
    a = lane.admin
    out: dict[str, Any] = {}
    dep = a.get("deployments", lane.ns, NAME)
    svc = a.get("services", lane.ns, NAME)
    if dep is not None and _controller_uid(dep):
        server = _server(dep) or {}
        out["deployment"] = {
            "labels": dep["metadata"].get("labels") or {},
            "annotations": {k: v for k, v in (dep["metadata"].get("annotations") or {}).items()
                            if k != "deployment.kubernetes.io/revision"},
            "template_annotations": dep["spec"]["template"]["metadata"].get("annotations") or {},
            "others": [c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] != "server"],
            "env": server.get("env"),
            "status": dep.get("status"),
        }
    if svc is not None and _controller_uid(svc):
        out["service"] = {
            "labels": svc["metadata"].get("labels") or {},
            "sessionAffinity": svc["spec"].get("sessionAffinity"),
        }
    return out


def write_foreign(lane: Lane, foreign: dict[str, Any]) -> None:
    """Write ``foreign_state``'s fields onto the lane's children (as their other writers)."""
    if "deployment" in foreign:
        f = foreign["deployment"]

        def edit(d: dict[str, Any]) -> None:
            d["metadata"]["labels"] = (d["metadata"].get("labels") or {}) | f["labels"]
            if f["annotations"]:
                d["metadata"]["annotations"] = (d["metadata"].get("annotations") or {}) | f["annotations"]
            if f["template_annotations"]:
                d["spec"]["template"]["metadata"]["annotations"] = f["template_annotations"]
            cs = [c for c in d["spec"]["template"]["spec"]["containers"] if c["name"] == "server"]
            if cs and f["env"] is not None:
                cs[0]["env"] = f["env"]
            d["spec"]["template"]["spec"]["containers"] = cs + copy.deepcopy(f["others"])

        _edit_child(lane, "deployments", edit)
        if f["status"]:

            def edit_status(d: dict[str, Any]) -> None:
                d["status"] = f["status"] | {"observedGeneration": d["metadata"].get("generation", 1)}

            _edit_child(lane, "deployments", edit_status, sub="status")
    if "service" in foreign:
        f2 = foreign["service"]

        def edit_svc(s: dict[str, Any]) -> None:
            s["metadata"]["labels"] = (s["metadata"].get("labels") or {}) | f2["labels"]
            if f2["sessionAffinity"]:
                s["spec"]["sessionAffinity"] = f2["sessionAffinity"]

        _edit_child(lane, "services", edit_svc)


def world_diff(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Where two normalised worlds differ, one line per leaf (``explore.state.diff``)."""
    return diff(a, b)


__all__ = [
    "BUDGET",
    "NAME",
    "OPS",
    "SELECTOR_LABEL",
    "Lane",
    "OracleFailure",
    "PremiseBroken",
    "Settings",
    "apply_step",
    "budget_check",
    "close_lane",
    "converged",
    "foreign_state",
    "liveness",
    "new_lane",
    "normalised",
    "safety",
    "wait_quiet",
    "world_diff",
    "write_foreign",
]
