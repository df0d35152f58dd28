"""The oracles of generated workloads: each judges one implementation's lane without an
expected value (docs/design.md, "Generated workloads"; ``harness.generate.world`` lists them).

Every read here is of the API server or of the lane's API proxy log, never of the operator's
own metrics, with one exception: ``new_panics`` reads the operator's log for the line its
runtime writes when it recovers a panic (controller-runtime's, and the Python runtime's twin),
which leaves no trace in the API. An operator that never writes that line can only make the
oracle blind, never fail it: it cannot pass or fail on the operator's own word about its
world.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterable
from typing import Any

from kubernetes.utils import parse_quantity

from harness.explore.state import FINALIZER, diff, snapshot
from harness.faults.apiproxy.records import ProxyRequest, seconds
from harness.generate.lane import Lane, OracleFailure, Settings, describe
from harness.generate.relation import (
    condition_of,
    controller_uid,
    reports_refusal,
    rollout,
    says_nothing,
    status_problems,
)
from harness.generate.retries import extended, owes_retry, retry_bound, retry_pending
from harness.generate.world import (
    BUDGET,
    FIRED_OPS,
    NAME,
    edit_child,
    msvc,
    server_container,
)
from harness.modelservice import status_converged
from harness.panics import panic_lines


def safety(lane: Lane) -> list[str]:
    """The invariants that hold at every moment (module docstring), read from the API server."""
    a = lane.admin
    problems = []
    # The children first, the ModelService after: a child seen controlled by it was created
    # after its finalizer was written, so the later read of the ModelService must show it.
    children = {res: a.list(res, lane.ns) for res in ("deployments", "services")}
    m = msvc(lane)
    for res, items in children.items():
        by_uid: dict[str, list[str]] = {}
        for c in items:
            uid = controller_uid(c)
            if uid:
                by_uid.setdefault(uid, []).append(c["metadata"]["name"])
        problems += [
            f"ModelService uid {u} controls {len(n)} {res}: {n}"
            for u, n in by_uid.items()
            if len(n) > 1
        ]
    if m is not None:
        uid = m["metadata"]["uid"]
        mine = [c for items in children.values() for c in items if controller_uid(c) == uid]
        deleting = m["metadata"].get("deletionTimestamp")
        if mine and not deleting and FINALIZER not in (m["metadata"].get("finalizers") or []):
            problems.append(
                f"the live ModelService controls {len(mine)} children without {FINALIZER}"
            )
        if deleting:
            problems += [
                f"{c['kind']} {c['metadata']['name']} created at {c['metadata']['creationTimestamp']}, "
                f"after its ModelService's deletion at {deleting}"
                for c in mine
                if c["metadata"]["creationTimestamp"] > deleting
            ]
    return problems


def new_panics(lane: Lane) -> list[str]:
    """The panics the lane's operator processes logged since the last call, as
    ``operator-<n>.log:<line>: <summary>`` (``harness.panics.panic_lines``: a recovered one's
    ``Observed a panic`` line, Go's ``panic:`` of one nobody recovered). A reconcile never
    panics, whatever the sequence (CONTRACT.md, "A reconcile never panics"): the oracle needs
    no expected value. Each log is read from where the last call stopped, whole lines only
    (``lane.panic_read``), so a nightly's lane reads each byte once."""
    found: list[str] = []
    for n in range(lane.starts):
        path = lane.workdir / f"operator-{n}.log"
        offset, lines = lane.panic_read.get(path.name, (0, 0))
        try:
            with path.open("rb") as f:
                f.seek(offset)
                chunk = f.read()
        except FileNotFoundError:
            continue
        whole = chunk[: chunk.rfind(b"\n") + 1]
        if not whole:
            continue
        text = whole.decode(errors="replace")
        found += [
            f"{path.name}:{lines + number}: {summary}" for number, summary in panic_lines(text)
        ]
        # numbered as panic_lines numbers them (str.splitlines: a lone \r ends a line too)
        lane.panic_read[path.name] = (offset + len(whole), lines + len(text.splitlines()))
    return found


def liveness(lane: Lane) -> list[str]:
    """The invariants that hold once the operator is quiet (module docstring)."""
    a = lane.admin
    m = msvc(lane)
    problems = []
    live_uid = m["metadata"]["uid"] if m else None
    for res in ("deployments", "services"):
        for c in a.list(res, lane.ns):
            uid = controller_uid(c)
            if uid and uid != live_uid:
                problems.append(
                    f"{res}/{c['metadata']['name']} is controlled by a ModelService that no longer exists"
                )
    if m is not None and not m["metadata"].get("deletionTimestamp"):
        reason = ((condition_of(m, "Ready") or {}).get("reason")) or ""
        if reason != "ChildConflict" and not reports_refusal(m):
            for res in ("deployments", "services"):
                if not any(controller_uid(c) == live_uid for c in a.list(res, lane.ns)):
                    problems.append(f"the ModelService has no {res[:-1]} (child lost)")
        if FINALIZER not in (m["metadata"].get("finalizers") or []):
            problems.append(f"the live ModelService lacks {FINALIZER}")
    return problems


def status_follows(lane: Lane) -> list[str]:
    """The status oracle, once quiet: a live ModelService that controls its Deployment, with
    no ChildConflict or refused write reported, says what the Deployment as stored calls for
    (``rollout``) and copies its replica counts (CONTRACT.md, "Status"). A relation between
    two objects read at the same moment, true of every converged state: no expected value.
    ``relation.status_problems`` of the lane's ModelService and Deployment."""
    m = msvc(lane)
    if m is None or says_nothing(m):
        return []
    return status_problems(m, lane.admin.get("deployments", lane.ns, NAME))


def level_triggered_verdict(
    refusing: bool,
    here: dict[str, Any],
    fresh: dict[str, Any],
    here_world: dict[str, Any],
    fresh_world: dict[str, Any],
) -> str | None:
    """The level-triggered oracle's verdict on one lane, or None when it holds. ``here`` and
    ``fresh`` are the ModelServices (API objects) at the end of the sequence and in the fresh
    lane, created with its final spec and metadata under the same admission; ``here_world``
    and ``fresh_world`` the two worlds as ``normalised`` reads them; ``refusing``: the lane's
    admission policy is still bound (``Lane.refusing``), and so is the fresh lane's.

    A refused write (one rule, docs/design.md "Generated workloads"): when the sequence ends
    with the operator's child writes refused, by its admission policy still bound or by the
    API server's own validation of the final spec's child (the status reports it:
    ``reports_refusal``; cases/refused-update-path.yaml), the children are those of the path:
    a Deployment written before the refusal stays and serves (CONTRACT.md, "A refused child
    write"), while the fresh ModelService, which must create, is refused and has none. So
    the worlds are not compared; the report is: a refused write the sequence's ModelService
    reports must be reported by the fresh one too. That needs no expected value: the fresh
    lane is the same operator's answer to the same spec under the same admission; what the
    report says is the differential oracle's to compare between implementations. Under
    the policy the converse does not hold (the lane may owe no write, the fresh one must
    create), so a sequence that reports nothing there has nothing to compare.

    Otherwise the worlds must be equal, the Deployment's quantities by value
    (``quantities_as_values``). Returns the failure's message."""
    if refusing or reports_refusal(here):
        if reports_refusal(here) and not reports_refusal(fresh):
            return (
                "the sequence's ModelService reports a refused child write; a fresh one "
                "with the same spec reports none: "
                + str((fresh.get("status") or {}).get("conditions"))
            )
        return None
    d = world_diff(quantities_as_values(fresh_world), quantities_as_values(here_world))
    if d:
        return (
            "the world after the sequence differs from a fresh ModelService's with the "
            "same spec (fresh -> sequence): " + "; ".join(d[:8])
        )
    return None


def converged(lane: Lane) -> bool:
    """The lane's world is at rest as the contract defines it: no ModelService and no child
    of a vanished one, or a ModelService whose status caught up (``status_converged``, or a
    ChildConflict reported at its generation) with each child present unless a refused write
    is reported, and no retry owed (``owes_retry``)."""
    m = msvc(lane)
    if m is None:
        return True
    meta, status = m["metadata"], m.get("status") or {}
    if meta.get("deletionTimestamp"):
        return FINALIZER not in (meta.get("finalizers") or [])
    if status.get("observedGeneration") != meta.get("generation") or owes_retry(lane, m):
        return False
    if says_nothing(m):
        return True
    if not status_converged(m):
        return False
    children = [lane.admin.get(res, lane.ns, NAME) for res in ("deployments", "services")]
    if any(c is None for c in children):
        return False
    dep = children[0]
    if lane.sim and dep is not None:
        # sim: the deployment controller is still at work until it has observed the
        # Deployment and the status says what it calls for (Pods come and go meanwhile).
        st = dep.get("status") or {}
        if st.get("observedGeneration") != dep["metadata"].get("generation"):
            return False
        return not status_follows(lane)
    return True


#: Seconds a Deployment whose rollout is neither complete nor stalled must stand still on sim
#: before its lane counts as quiet (a first sim run saw one stand at 0 of 140 updated replicas
#: for over 2 s while the deployment controller started the other lane's Pods).
SIM_SETTLE = 10.0


def wait_converged(lane: Lane, settings: Settings) -> None:
    """Wait until ``converged`` holds (no quiet window); ``OracleFailure`` (quiet) after
    ``settings.quiet_timeout``."""
    deadline = time.monotonic() + settings.quiet_timeout
    while not converged(lane):
        lane.handle_crash()
        if time.monotonic() > deadline:
            raise OracleFailure(
                lane.impl.id,
                "quiet",
                f"not converged {settings.quiet_timeout:.0f}s after a create; ModelService "
                f"status: {json.dumps((msvc(lane) or {}).get('status'))[:600]}",
            )
        settings.sleep(0.2)


def rolled_out(dep: dict[str, Any] | None) -> bool:
    """The Deployment's rollout is over, complete or stalled (``rollout`` says
    Progressing False), or there is no Deployment."""
    return dep is None or rollout(dep).progressing[0] == "False"


def settled(lane: Lane) -> bool:
    """Whether the lane's world can be compared with another's: on envtest always; on sim
    only once its Deployment's rollout is over (``rolled_out``): Pods start at the pace of a
    deployment controller the lanes share, so two worlds mid-rollout differ by timing."""
    return not lane.sim or rolled_out(lane.admin.get("deployments", lane.ns, NAME))


def wait_quiet(lane: Lane, settings: Settings) -> None:
    """The quiet oracle: wait until ``converged`` holds and the operator has made no
    successful write for ``settings.quiet`` s (plus the lane's ``event_delay``) after that; a
    crash that triggers meanwhile is handled (``Lane.handle_crash``) and the wait starts
    again. On sim the Deployment must also have stayed unchanged that long (the deployment
    controller and kwok move it on their own while Pods start: a world still moving is not
    judged). ``OracleFailure`` naming the last writes if it has not within
    ``settings.quiet_timeout``, or, once the operator was seen owing a retry
    (``owes_retry``), within ``settings.quiet_timeout`` after the contract's backoff puts it
    (``retries.retry_due``). That later bound stays once the retry has come: the retry clears the
    refusal from the status, and the quiet window after it must still be given its time (a
    bound that ended with the refusal's report failed both operators right after their retry
    came on time, "converged but writing", in a 96-sequence nightly sample).

    On envtest nobody but the operator writes in the lane while it waits, and every write of
    the operator's is in its proxy log: once ``converged`` held, it is asked again (of the
    API server) only when the log shows a write it did not count, so a waiting lane reads a
    local file, not the API server the other lanes and slots share.

    A lane whose operator owes a retry that will meet a ``fault`` or ``crash`` armed and not
    yet fired (``retries.retry_pending``) is not quiet before that retry's due time and a
    window after it (when that fits before the deadline): the retry changes the world."""
    start = time.monotonic()
    deadline = start + settings.quiet_timeout
    since: float | None = None
    # sim: the Deployment's last resourceVersion seen, and when it was first seen
    moved: tuple[str, float] = ("", 0.0)
    # Events the proxy holds arrive that much later: a quiet window must outlast them.
    quiet = settings.quiet + lane.event_delay
    # the window's writes when converged last held (read before it): -1, not known to hold
    counted = -1
    # an owed retry that will meet an armed fault (``retry_pending``): epoch seconds it is due
    pending = 0.0
    # when the owed retry's bound was last looked at (monotonic)
    looked = 0.0
    while True:
        if lane.handle_crash():
            since, counted = None, -1
        now = time.time()
        writes = lane.writes(lane.window_from)
        still = not lane.sim and since is not None and len(writes) == counted
        if still or converged(lane):
            counted = len(writes)
            since = since or now
            last = max([since, *(seconds(w.time) for w in writes)])
            if lane.sim:
                dep = lane.admin.get("deployments", lane.ns, NAME)
                rv = str(dep["metadata"].get("resourceVersion", "")) if dep else ""
                if rv != moved[0]:
                    moved = (rv, now)
                # A rollout still under way may stand still a while (the deployment
                # controller busy with another lane's Pods): it must stand still longer.
                done = rolled_out(dep)
                last = max(last, moved[1] + (0.0 if done else SIM_SETTLE - quiet))
            last = max(last, pending)
            if now - last >= quiet:
                # A retry still to come that meets an armed fault or crash will change the
                # world: the window outlasts it when it fits before the deadline.
                pending = retry_pending(lane, late=quiet)
                # a margin of a few polls, so that the wait never ends at the deadline
                fits = pending + quiet - now < deadline - time.monotonic() - 1.0
                if not pending or not fits:
                    return
        else:
            since, counted = None, -1
        if time.monotonic() >= min(looked + 1.0, deadline):  # a GET a second, then every poll
            looked = time.monotonic()
            deadline = extended(deadline, start, retry_bound(lane, settings), settings)
        if time.monotonic() > deadline:
            recent = [describe(w) for w in lane.writes(lane.window_from)][-8:]
            state = "converged but writing" if since else "not converged"
            raise OracleFailure(
                lane.impl.id,
                "quiet",
                f"{state} {settings.quiet_timeout:.0f}s after the window began; its last "
                f"writes: {recent}; ModelService status: {json.dumps((msvc(lane) or {}).get('status'))[:600]}",
            )
        settings.sleep(0.2)


#: The children whose refused write the operator reports in the status before it retries
#: (CONTRACT.md, "A refused child write"), and the verbs of such a write.
REFUSAL_REPORTED = ("deployments", "services")
REFUSAL_VERBS = ("create", "update", "patch")


def fired_allowance(records: Iterable[ProxyRequest]) -> int:
    """What the faults and crashes that fired in a window allow, in successful operator
    writes, from its API proxy's records of the window (``ProxyRequest``s, any order):

    - ``BUDGET["crash"]`` per write a scripted crash happened at (``crash`` set): the new
      process may write the status the killed one had computed again;
    - ``BUDGET["fault"]`` per error the proxy answered in place of a child's create, update
      or patch (``injected``, resource deployments or services) with a code other than 409:
      the operator writes the status naming the refusal before it retries, and the retry's
      success writes it again (CONTRACT.md, "A refused child write");
    - one more for such an error whose retry the API server refused in its turn (a spec
      whose child is refused anyway): the status names the injected error, then the real
      refusal again;
    - nothing for an injected 409 (no refusal: the next pass recomputes from the cache), for
      an error in place of a ModelService write (the finalizer, the status) or of a delete (the
      retry is the write that was owed anyway), nor for a request dropped while a crash froze
      the connection (reason ``Frozen``).

    Counted where they fire, not where the ``fault`` or ``crash`` step armed them: the nth
    write may come windows later (seen: a 429 armed with nth 3 fired at the adoption of a
    re-created ModelService's orphaned Deployment, two quiet points later)."""
    allowed = 0
    ordered = sorted(records, key=lambda r: r.id)
    for i, r in enumerate(ordered):
        if r.crash:
            allowed += BUDGET["crash"]
        elif _reported(r) and r.injected and r.reason != "Frozen":
            allowed += BUDGET["fault"]
            retry = next((n for n in ordered[i + 1 :] if _same_write(n, r)), None)
            if retry is not None and _reported(retry) and not retry.injected:
                allowed += 1  # the API server refused the retry too: its report comes back
    return allowed


def _reported(r: ProxyRequest) -> bool:
    """A failed child write the operator reports in its status (not a 409)."""
    return (
        r.code >= 400
        and r.code != 409
        and r.resource in REFUSAL_REPORTED
        and r.verb in REFUSAL_VERBS
    )


def _same_write(n: ProxyRequest, r: ProxyRequest) -> bool:
    return (n.resource, n.name) == (r.resource, r.name) and n.verb in REFUSAL_VERBS


def budget_bound(ops: Iterable[str], records: Iterable[ProxyRequest]) -> int:
    """The budget of a window: the sum of ``BUDGET`` over its steps ``ops`` (op names), but
    for ``fault`` and ``crash`` (``FIRED_OPS``), which allow what they cost where they fire
    (``fired_allowance`` over the window's proxy ``records``). Successful writes."""
    return sum(BUDGET[o] for o in ops if o not in FIRED_OPS) + fired_allowance(records)


def budget_check(lane: Lane) -> str | None:
    """The budget oracle for the window that just became quiet, or None when within."""
    writes = lane.writes(lane.window_from)
    bound = budget_bound(
        lane.window_ops, (r for r in lane.log.records(lane.window_from) if r.id > lane.window_from)
    )
    if lane.sim:  # the deployment controller's status writes, each followed by one status
        bound += lane.deployment_events()
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
        conditions = st.get("conditions") or {}
        # explore.state.snapshot keys the conditions by type already (as test_parity does)
        if not isinstance(conditions, dict):
            conditions = {c.get("type"): c for c in conditions}
        for c in conditions.values():
            c.pop("observedGeneration", None)
        if "conditions" in st:
            st["conditions"] = conditions
    for d in state["deployments"].values():
        for c in (d["spec"].get("template") or {}).get("spec", {}).get("containers") or []:
            c.pop("imagePullPolicy", None)
    return state


def quantities_as_values(world: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``world`` (``normalised``) whose Deployments' container resource quantities
    are their values (``kubernetes.utils.parse_quantity``, as normalised decimal text), not
    their texts; other values as they are, and one that does not parse as its text. For the
    level-triggered oracle only: an operator compares quantities by value and writes nothing
    when only the spelling changed (CONTRACT.md, "Desired Deployment", Quantities), so after a
    respelling (5e8 to 500000000) the Deployment keeps the older text (500e6) where a fresh
    one has the new one's (500M): a path dependence the contract chose. The differential
    oracle keeps the texts: two implementations must write the same bytes."""
    out = copy.deepcopy(world)
    for d in out.get("deployments", {}).values():
        for c in (d.get("spec") or {}).get("template", {}).get("spec", {}).get("containers") or []:
            for values in (c.get("resources") or {}).values():
                if not isinstance(values, dict):
                    continue
                for name, text in values.items():
                    try:
                        values[name] = str(parse_quantity(text).normalize())  # type: ignore[no-untyped-call]
                    except ValueError:
                        pass
    return out


def foreign_state(lane: Lane) -> dict[str, Any]:
    """What other writers own on the lane's children, to be written onto a fresh world's:
    non-operator labels and annotations, template annotations, containers but ``server``,
    ``server``'s env, the Service's sessionAffinity, the Deployment's status."""
    a = lane.admin
    out: dict[str, Any] = {}
    dep = a.get("deployments", lane.ns, NAME)
    svc = a.get("services", lane.ns, NAME)
    if dep is not None and controller_uid(dep):
        server = server_container(dep) or {}
        out["deployment"] = {
            "labels": dep["metadata"].get("labels") or {},
            "annotations": {
                k: v
                for k, v in (dep["metadata"].get("annotations") or {}).items()
                if k != "deployment.kubernetes.io/revision"
            },
            "template_annotations": dep["spec"]["template"]["metadata"].get("annotations") or {},
            "others": [
                c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] != "server"
            ],
            "env": server.get("env"),
            "status": dep.get("status"),
            # how far the status's observedGeneration is behind the Deployment's generation
            # (an operator's write after the status was written bumps the generation): what
            # the status conditions read, so what a fresh world must be given
            "lag": dep["metadata"].get("generation", 1)
            - (dep.get("status") or {}).get("observedGeneration", 0),
        }
    if svc is not None and controller_uid(svc):
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
                d["metadata"]["annotations"] = (d["metadata"].get("annotations") or {}) | f[
                    "annotations"
                ]
            if f["template_annotations"]:
                d["spec"]["template"]["metadata"]["annotations"] = f["template_annotations"]
            cs = [c for c in d["spec"]["template"]["spec"]["containers"] if c["name"] == "server"]
            if cs and f["env"] is not None:
                cs[0]["env"] = f["env"]
            d["spec"]["template"]["spec"]["containers"] = cs + copy.deepcopy(f["others"])

        edit_child(lane, "deployments", edit)
        if f["status"] and not lane.sim:  # sim: the deployment controller writes it

            def edit_status(d: dict[str, Any]) -> None:
                observed = max(d["metadata"].get("generation", 1) - f["lag"], 0)
                d["status"] = f["status"] | {"observedGeneration": observed}

            edit_child(lane, "deployments", edit_status, sub="status")
    if "service" in foreign:
        f2 = foreign["service"]

        def edit_svc(s: dict[str, Any]) -> None:
            s["metadata"]["labels"] = (s["metadata"].get("labels") or {}) | f2["labels"]
            if f2["sessionAffinity"]:
                s["spec"]["sessionAffinity"] = f2["sessionAffinity"]

        edit_child(lane, "services", edit_svc)


def _keyed(v: Any) -> Any:
    """Lists as maps (by ``name`` when every item has one, else by index), recursively, so
    that a difference inside a container or a port is named down to its leaf."""
    if isinstance(v, dict):
        return {k: _keyed(x) for k, x in v.items()}
    if isinstance(v, list):
        named = all(isinstance(x, dict) and "name" in x for x in v)
        return {(x["name"] if named else f"[{i}]"): _keyed(x) for i, x in enumerate(v)}
    return v


def world_diff(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Where two normalised worlds differ, one line per leaf (``explore.state.diff`` on
    ``_keyed`` copies)."""
    return diff(_keyed(a), _keyed(b))


#: The ModelService status's counts copied from its Deployment's status.
COUNTS = ("replicas", "readyReplicas", "availableReplicas", "updatedReplicas")


def _reports_refusal_normalised(m: dict[str, Any]) -> bool:
    """``reports_refusal`` on a ModelService as ``normalised`` reads it (conditions keyed by
    type)."""
    conditions = (m.get("status") or {}).get("conditions") or {}
    listed = list(conditions.values()) if isinstance(conditions, dict) else conditions
    return reports_refusal({"status": {"conditions": listed}})


def without_residue(a: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Copies of two lanes' worlds (``normalised``) for the differential oracle, less what
    only the timing of the path decides, the same way in both. Equal steps do not make equal
    children once a step has taken the operator's means of repair away at a moment that
    differs between lanes (docs/design.md, "Generated workloads", seed 4242):

    - every ModelService of both worlds reports a refused child write (``reports_refusal``):
      a refused Deployment write ends the pass before the Service (CONTRACT.md, "A refused
      child write"), so which children a lane kept depends on what it had repaired when the
      refusal began; the children are dropped and the ModelServices' reports compared, less
      the replica counts the status copies from the Deployment (``COUNTS``): a Deployment the
      operator could not adopt (refused) sends its owner no events, so its counts reach the
      status only at the operator's next retry, when the backoff puts it (1000-sequence
      nightly of stop 45, case python-eb3e67b23a: a rollout played on such an orphan, go's
      status at 2 replicas and python's at 3, then the other way round), and less the verb
      of the refused write (``FailedCreate`` and ``FailedUpdate`` read ``FailedWrite``): it
      says whether the Deployment existed, which is the children left out (case
      refused-create-or-update-after-crash.yaml: a spec edit the Deployment's validation
      refuses came right after the create, after python's first Deployment create and
      before go's);
    - neither world has a ModelService: the children left are orphans (an ``Orphan`` delete)
      whose spec is what the operator had written when the delete came; only their metadata
      (presence, labels, annotations, ownerReferences) is compared.

    Otherwise the worlds are returned as they are (copies)."""
    a, b = copy.deepcopy(a), copy.deepcopy(b)
    mine = [*a["modelservices"].values(), *b["modelservices"].values()]
    refused = bool(a["modelservices"]) and bool(b["modelservices"])
    if refused and all(_reports_refusal_normalised(m) for m in mine):
        for w in (a, b):
            w["deployments"], w["services"] = {}, {}
        for m in mine:
            for key in COUNTS:
                (m.get("status") or {}).pop(key, None)
            conditions = (m.get("status") or {}).get("conditions") or {}
            for c in conditions.values() if isinstance(conditions, dict) else conditions:
                for verb in ("Create", "Update"):  # the verb follows from the child left out
                    c["reason"] = str(c.get("reason", "")).replace(f"Failed{verb}", "FailedWrite")
                    c["message"] = str(c.get("message", "")).replace(
                        f"Failed to {verb.lower()} ", "Failed to write "
                    )
    elif not mine:
        for w in (a, b):
            for res in ("deployments", "services"):
                w[res] = {n: {"metadata": c.get("metadata", {})} for n, c in w[res].items()}
    return a, b
