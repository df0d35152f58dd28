"""How fast the operator reacts to a change of one of its children, judged on its API proxy.

A controller that watches its children (``Owns``) hears of a hand edit within one watch
delivery and acts in the reconcile that follows: its first request about the edited child (a
write restoring it, or a live read before one) reaches its API proxy within moments. A
controller that does not watch them and polls instead (a requeue or a re-list every P
seconds) still repairs the child, within P seconds, and so passes every bound that only asks
for convergence (CONVERGE_TIMEOUT, 60 s). ``CHILD_REACT_BOUND`` is the bound that tells the two
apart, and ``Edits`` measures against it: from the harness's own edit (its write answered) to
the operator's first request naming that child, as its API proxy logged it (the proxy's
``start``, when the request reached it). The harness and the proxy share this machine's clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.support import premise
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.operators import OperatorProcess

#: How long after the harness's edit of a child the operator's first request about that child
#: may reach its API proxy, seconds. A watching operator needs one watch delivery and one
#: reconcile: well under a second on an idle machine, a few seconds at a load of 20 on 2
#: cores; 10 s is that with generous slack. A poller of period P passes an edit made just
#: before its poll and fails one made just after: child-repaired makes three edits, each once
#: the previous repair has settled (a few seconds after that poll), so a poller whose period
#: is over about 13 s (20 s: mutants polls-children, polls-children-go) is late on at least
#: one of them whatever its phase.
CHILD_REACT_BOUND = 10.0

#: Verbs that act on one named object: a list or a watch is about a collection, not the child.
ACTING_VERBS = ("get", "create", "update", "patch", "delete")


@dataclass(frozen=True)
class Edit:
    """One edit of a child by the harness: what was edited (``resource``, ``name`` in
    ``namespace``), when the harness sent the write and when its answer came back (epoch
    seconds, this machine's clock)."""

    what: str
    resource: str
    namespace: str
    name: str
    sent: float
    answered: float


@dataclass(frozen=True)
class Reaction:
    """The operator's first request about an edited child (None: none seen), and how long
    after the edit's answer it reached the proxy, seconds (0.0 when it came before the
    answer: the watch event can overtake the harness's own response)."""

    edit: Edit
    request: ProxyRequest | None
    after_s: float | None

    def describe(self) -> dict[str, Any]:
        """The evidence line: the edit, the request and the delay."""
        req = self.request
        return {
            "edit": self.edit.what,
            "first_request": (
                None
                if req is None
                else f"{req.verb} {req.resource}{'/' + req.subresource if req.subresource else ''}"
                f" {req.name} -> {req.code}"
            ),
            "after_s": self.after_s,
        }


class Edits:
    """The harness's child edits of one check, and the operator's reaction to each.

    ``edit(what, resource, namespace, name, write)`` runs ``write()`` (the harness's write,
    taking no argument) and notes when it was sent and answered; ``reactions(op)`` reads
    ``op``'s API proxy log and returns one ``Reaction`` per edit, in order."""

    def __init__(self) -> None:
        self.edits: list[Edit] = []

    def edit(
        self, what: str, resource: str, namespace: str, name: str, write: Callable[[], Any]
    ) -> Any:
        """Make the edit and note it; returns what ``write`` returned."""
        sent = time.time()
        result = write()
        self.edits.append(Edit(what, resource, namespace, name, sent, time.time()))
        return result

    def reactions(self, op: OperatorProcess) -> list[Reaction]:
        """For each edit, the first request of ``op`` that acts on the edited child
        (ACTING_VERBS, same resource, namespace and name; a create names its object in its
        body, which the proxy reads) sent after the edit was: PremiseFailed if ``op`` runs
        behind no API proxy."""
        log = op.request_log
        premise(log is not None, f"{op.impl.id} operator runs behind no API proxy: no request log")
        assert log is not None
        records = [r for r in RequestLog(log).records() if r.start and r.verb in ACTING_VERBS]
        out = []
        for e in self.edits:
            first = next(
                (
                    r
                    for r in records
                    if (r.resource, r.namespace, r.name) == (e.resource, e.namespace, e.name)
                    and seconds(r.start) >= e.sent
                ),
                None,
            )
            after = None if first is None else round(max(0.0, seconds(first.start) - e.answered), 2)
            out.append(Reaction(e, first, after))
        return out


def late(reactions: list[Reaction], bound: float = CHILD_REACT_BOUND) -> list[dict[str, Any]]:
    """The reactions that came later than ``bound`` seconds after their edit, or never."""
    return [r.describe() for r in reactions if r.after_s is None or r.after_s > bound]
