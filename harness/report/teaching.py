"""The comparison report's teaching text for a reader who never wrote a controller: a short
introduction (what a ModelService is, what a reconcile loop is, what level-triggered means)
and a glossary of the words the report uses. Plain data, read by both writers; the same terms
as docs/design.md's glossary, said for a reader of the report rather than of the code."""

from __future__ import annotations

from harness.i18n import tr
from harness.report.model import Report

#: what each outcome of a (check, implementation) pair means, in the order they are counted
OUTCOME_NAMES: dict[str, str] = {
    "passed": "passed",
    "failed": "failed",
    "error": "not judged (a premise or the harness failed)",
    "skipped": "skipped (the tier lacks what they need, or the check does not apply)",
    "xfailed": "failed as the implementation declares (XFAIL)",
    "missing": "missing (the run did not finish)",
}


def outcome_line(report: Report) -> str:
    """Every (check, implementation) pair counted by outcome, only the outcomes that occur:
    ``76 passed, 8 skipped (the tier lacks what they need, ...), 2 failed as the
    implementation declares (XFAIL)``, in the report's language (``harness.i18n``)."""
    counts: dict[str, int] = {}
    for c in report.checks:
        for i in report.implementations:
            o = c.result(i).outcome
            counts[o] = counts.get(o, 0) + 1
    return ", ".join(
        f"{counts[o]} {tr(report.lang, f'outcome:{o}', name)}"
        for o, name in OUTCOME_NAMES.items()
        if counts.get(o)
    )


#: What the report says where the link to the lesson would be when ``make lesson`` has not
#: written it (``Report.lesson_href`` empty): one line, how to make it (a ``harness.i18n`` label).
LESSON_NOT_MADE = (
    "No lesson in this folder yet: make lesson writes it, and the next report links to it"
)

#: The introduction, one paragraph per entry.
INTRODUCTION: tuple[str, ...] = (
    "A ModelService is a custom resource: a user writes one object (an image, a replica count, "
    "a port) and an operator, a program that watches the API server, creates and keeps a "
    "Deployment and a Service that serve it.",
    "The operator works in a reconcile loop: whenever anything about a ModelService or its "
    "children changes, it is told only which ModelService to look at (namespace/name), reads "
    "what exists now, compares it with what the ModelService asks for, and writes only the "
    "difference. Then it records what it saw in the ModelService's status.",
    "Level-triggered means the operator acts on the state it reads, not on the notification "
    "that woke it: a missed, repeated or late notification changes nothing, because the next "
    "reconcile reads the world again. Each check below tests one consequence of that on a real "
    "API server, for two implementations of the same operator (Go and Python), and draws every "
    "request each one made.",
)

#: (term, meaning) in the order a reader meets them.
GLOSSARY: tuple[tuple[str, str], ...] = (
    ("check", "one claim about the operator, with a stable id such as noop-stable."),
    ("case", "one scenario of a check, written id[case], e.g. watch-recovers[connection-cut]."),
    (
        "run",
        "one check or case against one implementation; the summary counts runs, so it has "
        "(checks and cases) x (implementations) of them.",
    ),
    (
        "tier",
        "the kind of cluster the run used. envtest: only etcd and the API server, no "
        "controllers, so nothing creates Pods; sim: the same plus the controller-manager, the "
        "scheduler and kwok's fake nodes; existing: a cluster you point it at; kind: a "
        "cluster in containers.",
    ),
    (
        "premise",
        "something the experiment itself must establish before the operator can be judged (the "
        "API server refused a stale write, a fault really happened). When it does not hold the "
        "check reports ERROR, not FAIL: the operator was not judged.",
    ),
    (
        "oracle",
        "the part of a check that judges the operator, from what the harness sees on the API "
        "server, never from what the operator says about itself.",
    ),
    (
        "crash point",
        "a named place in the reconcile (after-deployment, ...) where the operator, when told "
        "to, exits at once with exit code 86, so that a check can restart it there.",
    ),
    (
        "409 Conflict",
        "the API server's answer to a write based on an old copy of an object (its "
        "resourceVersion is stale). A correct operator reads again and recomputes; it never "
        "resends the old object.",
    ),
    (
        "resourceVersion",
        "the version the API server gives each stored object; it changes on every write, so "
        "an unchanged resourceVersion proves nothing was written.",
    ),
    (
        "ownerReference",
        "a field on a child naming the object that owns it (by name and UID); the garbage "
        "collector deletes children whose owner is gone.",
    ),
    (
        "finalizer",
        "a name in an object's metadata that holds its deletion until the operator has "
        "cleaned up and removed it.",
    ),
    (
        "observedGeneration",
        "the spec generation the status describes: status is current only when it equals "
        "metadata.generation.",
    ),
    (
        "API proxy",
        "a small proxy each operator process talks through; it logs every request (the "
        "timelines) and can inject faults (a held answer, a 429, a cut connection).",
    ),
    (
        "audit log",
        "the API server's own record of every request, compared request for request with the "
        "proxy's log (the accounting property: compared, audit_only, proxy_only should be "
        "N, [], []).",
    ),
    (
        "mutant",
        "a copy of an operator that is wrong on purpose in one way; the kill matrix shows "
        "which check catches it. A check that no mutant fails would prove nothing.",
    ),
    (
        "XFAIL",
        "a check an implementation declares it fails, with the reason (kopf's, for example); "
        "it passing instead would be reported.",
    ),
)
