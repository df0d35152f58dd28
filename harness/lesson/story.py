"""The lesson's story: the six parts of the teaching article ModelDock began as, in its order,
each told in a few paragraphs and backed by figures of this run's evidence.

Plain data, in English; the Chinese is in ``harness.i18n.zh_cn_lesson``, keyed by
``lesson:<part>:<field>`` (``Part.keys``) and the English text's hash. A ``Figure`` names the
JUnit testcase (a check id or ``id[case]``) whose recorded requests are drawn, the mutant whose
run of the same testcase is drawn beside the real implementations, and what to look at.
``Part.needs`` names a check the part's live evidence needs that the suite may not have yet
(part 6: ``external-effect-once``); the lesson says so when no run of it is there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One diagram of a part: the requests each implementation made in testcase ``case``
    (``noop-stable``, ``stale-update-conflict[operator-409]``), with ``mutant`` (a mutant id of
    harness/mutants/mutants.toml, or "") drawn beside them, ``look`` (what the reader
    should look at, one or two sentences) and ``shows`` (the evidence keys the check records
    whose values decide it, printed in full under each lane: ``deployment_resourceVersion``)."""

    case: str
    mutant: str
    look: str
    shows: tuple[str, ...] = ()


@dataclass(frozen=True)
class Part:
    """One part of the article: ``id`` (``part-1``..), ``title``, ``paragraphs`` (the prose),
    ``figures``, ``proves`` (one sentence a reader who never opens the code should be able to
    say afterwards) and ``needs`` (a check id the part's evidence needs that may not exist)."""

    id: str
    title: str
    paragraphs: tuple[str, ...]
    figures: tuple[Figure, ...]
    proves: str
    needs: str = ""

    def texts(self) -> dict[str, str]:
        """Every English text of the part by its catalogue key (``lesson:<id>:title``,
        ``...:p<n>``, ``...:look<n>``, ``...:proves``)."""
        out = {f"lesson:{self.id}:title": self.title, f"lesson:{self.id}:proves": self.proves}
        out |= {f"lesson:{self.id}:p{n}": p for n, p in enumerate(self.paragraphs, 1)}
        out |= {f"lesson:{self.id}:look{n}": f.look for n, f in enumerate(self.figures, 1)}
        return out


#: The lesson's own words around the parts, by catalogue key.
FRAME: dict[str, str] = {
    "lesson:title": "Why a level-triggered controller gets it right after it missed an update",
    "lesson:lede": (
        "This is a walk through one idea, in six parts. Every diagram below was drawn from the "
        "requests two real operators (one in Go, one in Python) made to a real API server in "
        "the run that wrote this page, and beside them the requests of a mutant: the same "
        "operator with one realistic mistake. You do not need to read any code: each part says "
        "what to look at, and what it proves."
    ),
    "lesson:how-to-read": (
        "How to read a diagram: time runs to the right, one lane per operator. A numbered "
        "circle above a lane's line is a write (create, update, patch, delete), a small dot "
        "below it is a read (get, list, watch). A red mark is a request the API server did "
        "not grant: a refusal, or a 404 for something already gone, which the operator "
        "expects and is no refusal (the comparison report gives each its reason). "
        "Dashed vertical lines are what the harness itself did: it killed or restarted the "
        "operator, or edited an object by hand. Hover over a mark to see the request. "
        "Every operator talks to the API server through the harness's API proxy, a small "
        "program in between that sees every request; where a check needs a timing that would "
        "otherwise be luck, it holds a request or its answer back, or answers it itself. A red 409 on a status write in a "
        "lane that passed is normal: the reconcile read a cache that had not yet caught up "
        "(most often with the operator's own previous write), the API server refused the older "
        "resourceVersion, and the operator read again (a 409 on a create means the object "
        "already exists, made by an earlier reconcile whose answer the cache had not yet "
        "delivered). A crash point is a place where the operator, started with "
        "MODELDOCK_CRASH_AT set, exits by itself with exit code 86: the harness did nothing "
        "there, so no dashed line marks it; its requests just stop until the restart. The "
        "time from a restart to the lane's next request is the new process starting up (its "
        "first requests are fresh lists); on a loaded machine that can take many seconds, "
        "and no check judges it by the clock. Times are seconds from "
        "each lane's first request, and lanes may have different time scales: the mutant "
        "always gets an axis of its own (one that never converges runs until the check's "
        "bound), and so does a real operator whose requests spread over far more time than "
        "the other's. Read the seconds on each axis."
    ),
    "lesson:md-legend": (
        "How to read the diagrams of this page: each lane shows only its writes (create, "
        "update, patch, delete), in order, one arrow per request from the operator to the API "
        "server, labelled with its time in seconds from the lane's first request; a crossed "
        "arrow is a write the API server did not grant. Reads are not drawn, and what the "
        "harness did is listed above the diagrams (a negative time is before the lane's "
        "first request). Where a caption speaks of dots, numbered circles or dashed lines, "
        "it means the drawing of the HTML page (lesson.html), which shows reads and the "
        "harness's actions too."
    ),
    "lesson:no-evidence": (
        "This run has no evidence for this diagram (its check was not run or left no "
        "requests); run make lesson to draw it."
    ),
    "lesson:needs-check": (
        "The live evidence of this part needs the check {check}, which this run does not have: "
        "this part is the argument only, without a diagram."
    ),
    "lesson:back": "The full comparison report, check by check",
    "lesson:mutant": "the wrong way",
    "lesson:right": "the right way",
    "lesson:in-report": "this check in the comparison report",
    "lesson:proves": "What this part proves",
    "lesson:outcome": "In this run",
    "lesson:acts": "what the harness did",
}

PARTS: tuple[Part, ...] = (
    Part(
        id="part-1",
        title="A notification carries an address, not an instruction",
        paragraphs=(
            "When anything about a ModelService changes, or about a Deployment or Service it "
            "owns, the operator is not told what changed. The watch delivers an event, and "
            "the controller's wiring (For: the ModelService kind it serves; Owns: the "
            "Deployments and Services it creates) reduces it to one thing: the namespace/name "
            "of the ModelService to look at. A change to a Deployment is mapped to its owner "
            "through the Deployment's ownerReference. The reconcile then reads what exists "
            "now and writes the difference.",
            "So consider the worst timing. The operator has written the Deployment and is "
            "killed before it writes the Service. While it is down, the user changes replicas "
            "from 1 to 2. An operator that replayed what it meant to do when it died "
            '("create a Deployment with 1 replica, then a Service") would be wrong twice: '
            "it would create a second Deployment or overwrite replicas with the old value. "
            "An operator that only knows the address restarts, lists, sees one Deployment "
            "with 1 replica and no Service, and does exactly two things: set replicas to 2 "
            "and create the Service.",
        ),
        figures=(
            Figure(
                case="restart-reconverges",
                mutant="replay-event",
                look=(
                    "The operator stops itself right after its create of deployments (the "
                    "crash point: it exits by itself with exit code 86, so no marker; its "
                    "requests stop there). The dashed "
                    "marker harness: patch modelservices is the user's change of replicas to "
                    "2 while it is down, and restart is where it starts again. After it the "
                    "correct operators make one update of deployments and one create of "
                    "services. The mutant replays what it was doing: it creates the "
                    "Deployment again (a red 409: it exists already) and never sets "
                    "replicas to 2, so the check times out."
                ),
                shows=("deployment_uid_before", "deployment_uid_after", "counts"),
            ),
        ),
        proves=(
            "A controller that reads the world on every reconcile repairs a crash and a missed "
            "update with the same code that handles a normal change."
        ),
    ),
    Part(
        id="part-2",
        title="Two caches, and why reconciles do not equal edits",
        paragraphs=(
            "The operator does not ask the API server for every read. Its informer keeps a "
            "local cache, filled by a watch, and the API server itself answers watches from "
            "its own watch cache. Both are a little behind. The work queue holds keys, not "
            "events: a key changed again while it waits in the queue is reconciled once; a "
            "key changed while it is being reconciled is queued again and runs once more.",
            "The operator's own writes come back to it as events too: writing a Deployment "
            "or the status produces a watch event, which queues the same key again. So the "
            "number of reconciles never equals the number of user edits, and it does not "
            "have to. What matters is that a reconcile which finds nothing to change writes "
            "nothing; otherwise each write causes the next event and the controller never "
            "goes quiet.",
        ),
        figures=(
            Figure(
                case="noop-stable",
                mutant="always-update",
                look=(
                    "After the restart the harness adds two unrelated annotations. Only the "
                    "mutant's lane marks them: a lane is drawn up to its operator's last "
                    "request, and the correct operators' last requests are the fresh lists "
                    "and watches after the restart. From then on they sent the API server "
                    "nothing: their reconciles ran on the informer's cache and found nothing "
                    "to write (successful_writes: 0 under the diagram). The mutant's lane has "
                    "numbered circles: it sends the full Deployment every time, and its "
                    "writes move the Deployment's resourceVersion: compare before and after "
                    "under the diagram."
                ),
                shows=(
                    "successful_writes",
                    "deployment_resourceVersion",
                    "service_resourceVersion",
                ),
            ),
        ),
        proves=(
            "Reconciles are cheap and many; a correct one that finds nothing to do writes "
            "nothing, which is what lets the operator run them freely."
        ),
    ),
    Part(
        id="part-3",
        title="The two worst moments",
        paragraphs=(
            "The first worst moment is being killed between two writes. A controller must "
            "not start over from the beginning, and must not trust anything it remembered: "
            "it continues from what exists. The finalizer is written first, so after a crash "
            "right after it the operator finds it already there and creates the children, "
            "each exactly once.",
            "The second is the stale update. Every write names the resourceVersion it was "
            "based on; if the object changed since, the API server answers 409 Conflict. The "
            "only right answer is to back off, read again and compute the write anew. "
            "Resending the refused object, once or in a loop, would either fail forever or, "
            "with the version removed, overwrite somebody else's change.",
        ),
        figures=(
            Figure(
                case="restart-reconverges[after-finalizer]",
                mutant="children-first",
                look=(
                    "The correct operators write the finalizer (an update of modelservices) "
                    "before any create of a child; after their exit at the crash point and the "
                    "restart there is no second finalizer write. The mutant creates both "
                    "children first and adds the finalizer after them, so when it reaches the "
                    "crash point (right after its finalizer write) the finalizer is there, but "
                    "so are both children (the evidence at_crash below lists them). Between "
                    "the creates and the finalizer write the children existed while nothing "
                    "held a deletion of the ModelService for their cleanup: the check fails "
                    "because children already exist at that crash point."
                ),
                shows=("at_crash",),
            ),
            Figure(
                case="stale-update-conflict[operator-409]",
                mutant="retry-stale",
                look=(
                    "Find the red 409 on the update of modelservices: the API proxy held that "
                    "write (the operator's first, its finalizer update) for a few seconds "
                    "while the harness changed the object (the mark harness: patch "
                    "modelservices web), then forwarded it with its old resourceVersion. A "
                    "mark is drawn when the request was sent, not when it was answered, so "
                    "the held 409 can sit just before the harness's patch. The correct "
                    "operators read again and their next write succeeds; the mutant sends the "
                    "same refused object again: a second red 409, on the same old "
                    "resourceVersion (operator_writes below gives the rv each write carried)."
                ),
                shows=("changed_at_resourceVersion", "operator_writes"),
            ),
        ),
        proves=(
            "A crash and a conflict are both answered by reading again: continue from the "
            "world, never from memory, and never resend an object the API server refused."
        ),
    ),
    Part(
        id="part-4",
        title="Deletion has intermediate states",
        paragraphs=(
            "Deleting a ModelService is not one moment. With the operator's finalizer on it, "
            "the delete only sets deletionTimestamp; the object stays visible until the "
            "operator has deleted its children and removed the finalizer, in that order. "
            "Removing the finalizer first would let the object vanish with its work undone.",
            "A child of the same name is not necessarily ours. Between the read and the "
            "delete, someone may have replaced the Service with one of their own; a delete "
            "by name would destroy it. The operator deletes only children whose controller "
            "ownerReference carries its ModelService's UID, and sends that UID as a "
            "precondition. And the API server has a race of its own: a DELETE that read the "
            "object just before the finalizer was added can still remove it, so the "
            "operator may hold a finalizer-carrying copy of an object that is already gone, "
            "and must clean up the children it just created once a write tells it so (404). "
            "This race is a real bug of the API server (kubernetes#77988, open again in the "
            "1.34 API server this harness runs); the check below stages its outcome "
            "deterministically instead of waiting for it to happen by luck.",
        ),
        figures=(
            Figure(
                case="finalizer-ordered-delete",
                mutant="finalizer-first",
                look=(
                    "The check deletes three ModelServices. It deletes first while the "
                    "operator runs. Then it stops the operator (SIGTERM) and starts it again "
                    "with a crash point: it deletes second, and the operator exits by itself "
                    "right after its first child delete (exit code 86, so no marker), and is "
                    "restarted. It deletes third while the operator is down (SIGTERM, the "
                    "delete, then restart). For each, the correct operators' deletes of deployments and "
                    "services come before the update of modelservices that removes the "
                    "finalizer. The mutant's update of modelservices comes first, and the "
                    "check fails at the first ModelService."
                ),
                shows=("cleanup_order",),
            ),
            Figure(
                case="replaced-child-kept",
                mutant="delete-by-name",
                look=(
                    "The correct operators delete only the deployment; there is no delete of "
                    "services, because the Service now belongs to someone else. The mutant "
                    "deletes both by name."
                ),
                shows=("operator_deletes",),
            ),
            Figure(
                case="vanished-owner[finalizer-race]",
                mutant="ignores-vanished-owner",
                look=(
                    "The race is real, but its timing is luck, so the check stages the world "
                    "it leaves through the API proxy: the proxy forwards the operator's "
                    "finalizer update at once and keeps its answer back, the harness removes "
                    "the finalizer and deletes the ModelService (gone at once), and then the "
                    "proxy delivers the held answer, 200 with the finalizer on (held_answer "
                    "in the evidence). The operator creates both children; its status update "
                    "is then answered 404 (drawn red, though it is no refusal: the object is "
                    "gone). The correct operators then delete both children; the mutant keeps "
                    "them. Its title's other half, calling them a conflict, is the check's "
                    "other testcase (dead-owner-child): there a successor of the same name "
                    "reports ChildConflict about them, which this drawing does not show. The "
                    "later create of modelservices web is the harness creating a successor "
                    "of the same name (a new UID), which the correct operators converge like "
                    "any new ModelService; a 409 among those writes is the cache lag "
                    "described at the top of the page."
                ),
                shows=("held_answer", "children_left_behind"),
            ),
        ),
        proves=(
            "Cleanup is level-triggered as well: the order is finalizer last, ownership is "
            "decided by UID, and an object can vanish while the operator still holds it."
        ),
    ),
    Part(
        id="part-5",
        title="Looking successful is not being right",
        paragraphs=(
            "Three things look like success without proving it. This part draws the second; "
            "the first is judged in part 2 and the third in part 3. "
            '"There is still one Deployment" looks like proof that a reconcile changed '
            "nothing, but an operator that rewrites the Deployment on every pass also leaves "
            "exactly one. The proof is the resourceVersion: unchanged means unwritten. That "
            "is part 2's check, noop-stable, read as a verdict: it records each child's "
            "resourceVersion before and after the quiet window and compares them.",
            "A status of Ready looks like success, but on this control plane there is no "
            "kubelet, so no Pod ever runs: the honest status is Progressing. An operator that "
            "reports Ready as soon as it wrote the Deployment tells users a lie. And a 409 "
            "looks like a failure, but in part 3 the stale write's Conflict is the API server "
            "doing its job: the premise of the experiment, not the operator's fault.",
        ),
        figures=(
            Figure(
                case="progressing-without-kubelet",
                mutant="ready-on-write",
                look=(
                    "Every lane writes the status (update modelservices/status); the "
                    "difference is in what was written, shown under the diagram: the correct "
                    "operators' conditions say Ready False and Progressing True, and the "
                    "mutant's check fails because it said Ready with no Pod running."
                ),
                shows=("conditions_first", "conditions_after"),
            ),
        ),
        proves=(
            "Judge an operator by what the API server recorded (resourceVersions, "
            "conditions that match the world), not by how its results look."
        ),
    ),
    Part(
        id="part-6",
        title="At-least-once delivery and effects outside the cluster",
        paragraphs=(
            "Everything so far could be recomputed: replicas, a Service, a finalizer. Running "
            "a reconcile twice is harmless because its result is a state, and writing the "
            "same state twice changes nothing. That is the controller's promise: every change "
            "is reconciled at least once, and some twice, because after a crash the operator "
            "cannot know whether its last step took effect, so it does it again.",
            "An effect outside the cluster is different. Registering a model with a catalog, "
            "or debiting a ledger, cannot simply run again: the second run is a second "
            "effect. Running again needs a durable request identity, for example the "
            "ModelService's UID and generation, sent with the request, so that the other "
            "side recognises a repeat and answers it with the first result instead of acting "
            "twice.",
        ),
        figures=(
            Figure(
                case="external-effect-once",
                mutant="fresh-request-key",
                look=(
                    "The drawing is the plain case: the catalog records the registration and "
                    "holds its answer back, the harness kills the operator (SIGKILL) before "
                    "that answer arrives, and restarts it. The other cases (a crash before the "
                    "catalog call, a crash at the status write that records its answer, and a "
                    "409 Conflict on that status write, then a crash) are the check's other "
                    "testcases, listed in the comparison report. In every one the catalog must hold exactly one effect "
                    "per generation; an operator without the request identity registers twice."
                ),
            ),
        ),
        proves=(
            "Level-triggered reconciling makes repeated work safe only for state; an external "
            "effect needs an identity that makes its repetition recognisable."
        ),
        needs="external-effect-once",
    ),
)


def texts() -> dict[str, str]:
    """Every English text of the lesson by catalogue key: ``FRAME`` and each part's."""
    out = dict(FRAME)
    for part in PARTS:
        out |= part.texts()
    return out


def cases() -> list[str]:
    """The testcases the lesson draws, in order, without repeats."""
    return list(dict.fromkeys(f.case for p in PARTS for f in p.figures))


def mutants() -> dict[str, str]:
    """mutant id -> the testcase the lesson draws it in, for the figures that have one."""
    return {f.mutant: f.case for p in PARTS for f in p.figures if f.mutant}
