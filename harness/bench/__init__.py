"""``make bench``: benchmarks of the implementations (docs/design.md, section
"Measurements"), not timed tests.

``python -m harness.bench`` builds the implementations, starts one control plane, runs every
implementation in turn on it with the same inputs and the same worker count
(``MAX_CONCURRENT_RECONCILES``), and writes ``reports/bench.json``::

    {"machine": {...}, "settings": {...},
     "implementations": {"go": FIGURES, "python": FIGURES},
     "ratios": {"python/go": FIGURES},
     "latency_samples_s": {"go": [...], "python": [...]},
     "details": {"go": {per-run numbers, "failed_writes": {kind: {count, cause}},
                        "workers_runs": [...]}, ...},
     "errors": [...],
     "floor": {"client": "go: ...", "throughput_s": {"<N>": s},
               "workers": {"<W>": {"throughput_s", "cpu_s", "writes_per_object",
                                   "failed_writes_per_object"}},
               "capacity": {"writes_per_s", "by_concurrency": {"<C>": SPREAD}, "runs"},
               "runs": [...]},
     "spread": {who: {"latency_p50_s": SPREAD, ..., "throughput_s": {"<N>": SPREAD},
                      "workers": {"<W>": SPREAD}},
                "<impl>/floor": {"throughput_s": {"<N>": SPREAD}, "workers": {"<W>": SPREAD}}},
     "time_split": {"throughput": {who: {"<N>": SPLIT}}, "workers": {who: {"<W>": SPLIT}}},
     "cpu": {"ms_per_object": ..., "server_ms_per_object": ..., "ratios": ...},
     "profiles": [{"impl", "n", "round", "samples", "by_owner", "top_own", ...}]}

``cpu`` is ``harness.bench.paired.cpu_figures``; ``profiles`` (only with ``--py-spy IMPL``)
``harness.bench.profile.summary``. The document so far is also written after every run to
``<out>.partial.json`` (with ``"partial": "after <run>"``).

SPREAD is ``{"median", "min", "max", "runs"}`` of one figure's runs (``figures.spread_of``):
every figure that is a median of runs has one, so a single noisy run does not decide a ratio.

With scaling runs, each implementation's FIGURES also has ``"workers": {"<W>": F}`` (F: the
keys of ``figures.WORKER_KEYS``) and ``ratios`` has ``"<impl>/floor"`` (``throughput_s`` by N,
``workers`` by W) and, in ``python/go``, ``workers``. SPLIT is ``figures.time_split``.

FIGURES has the keys of ``FIGURE_KEYS``; ``throughput_s`` is an object keyed by N (as a
string). Every figure is absolute on the machine described in "machine". The phases, each in
a fresh namespace with a fresh operator process running as its own user (``modeldock:<id>``):

- **latency** (``--repeats`` times): create ``--latency-objects`` ModelServices one at a
  time, each after the previous one converged and a 0.25 s gap; per object, the time from
  sending the create to the first watch event showing it converged. p50 and p95 per run; the
  figure is the median over runs.

- **throughput** (``--throughput-repeats`` times per N, median): create N ModelServices at
  once (8 client threads), time from the first create sent until the last one converged.
  Runs of one N alternate floor, go, python, floor, ...; the scaling runs likewise.
- **writes, reconciles, requests**: from the audit log (by user and namespace) and the
  operator's ``/metrics``, over the latency and throughput phases, in the window from the
  operator being ready to it having settled (work queue empty, reconcile count still for 1 s).
- **quiet** (after N = ``--rss-size`` settled): writes by the operator's user during
  ``--quiet-seconds`` in which nothing changes.
- **peak RSS**: ``VmHWM`` of the operator process (its own pid: the Go binary, the Python
  interpreter) at the end of the N = ``--rss-size`` phase (a fresh process per phase).
- **restart** (after N = ``--restart-size`` settled): SIGKILL; while it is down, change
  spec.replicas of every tenth ModelService; start it again. restart_to_converged_s is the
  time from the new process being started until both (a) every changed ModelService shows
  converged status at its new generation and (b) the operator has reconciled at least N + 1
  times (the N and the warm-up object) with an empty work queue: every object looked at again.

Every run (latency, and throughput for each N) gets a fresh namespace and a fresh operator
process, measures only after one unmeasured warm-up ModelService, and afterwards stops the
operator and empties the namespace, so that each run starts on the same API server (envtest
frees nothing by itself). Every ModelService is ``harness.modelservice.modelservice(name)``:
model ``m``, image ``srv:1``, the CRD's defaults (replicas 1, port 8000) for the rest. Runs alternate between the implementations (go, python, go, ...).
The control plane is warmed up once (the first ModelService create of a new kube-apiserver
takes ~2 s) and has a /16 Service range (the harness default /24 runs out of ClusterIPs).

"Converged" is ``harness.modelservice.status_converged`` (the status half of
``conformance.support.is_converged``): status observedGeneration equals metadata.generation and
both conditions Ready and Progressing are present, Ready's reason not ChildConflict. Observed
through one watch per namespace (admin), so the resolution is the watch event's arrival at this process, milliseconds; metrics are
polled every 0.1 s.

- **floor** (at each N with ``--workers`` goroutines, and at N = ``--scaling-size`` with each
  scaling worker count): ``harness.bench.floor``, the four writes per ModelService and nothing
  else, from the Go client ``harness/bench/floorclient``, timed like throughput. Each round
  runs the floor, then each implementation, one after the other, and a closing floor run
  follows the last round; ``<impl>/floor`` is the median over rounds of the implementation's
  seconds over the faster of the floor runs around its round (``harness.bench.paired``). Every ``<impl>/floor`` ratio below 1 is an error of the run
  (``results.floor_violations``), and so is a load run whose audit window counts no write.
- **capacity** (``--capacity-concurrency``, default 64, at N = ``--capacity-size``): the same
  client with that many goroutines creating and writing: the writes per second the API server
  answers on this machine.
- **writes split**: ``object_writes_per_object`` (the ModelService and its children; the
  floor is 4) and ``event_writes_per_object`` (core/v1 Events: creates and patches) beside
  ``writes_per_object``, their sum.
- **scaling** (``--scaling-workers`` 1,4,16 at ``--scaling-size`` 1000): a fresh operator with
  that many workers, 20 probe ModelServices converged first, N created at once while one probe
  at a time gets spec.replicas changed (latency under load); operator CPU over the loaded
  window, VmHWM, failed writes over N + probe changes; the window closes once the Events
  stopped changing, as in the throughput runs.
- **CPU per object** (``cpu``): the operator's CPU from the first create until settled and
  the Events written, the floor client's, kube-apiserver + etcd's, in ms per object, with
  ratios (``harness.bench.paired``): steadier than wall time on a shared machine.
- **time split** (throughput, floor and scaling runs): CPU seconds of the operator,
  kube-apiserver, etcd, this process and the machine from the first create to the last
  converged, and what limited the run.

Modules: ``settings`` (what a run does, where it writes), ``figures`` (FIGURE_KEYS and the
arithmetic, the time split's rule), ``accounting`` (the audit log, read with
``harness.audit``), ``measure`` (the convergence watch, CPU, RSS, the machine), ``floor`` (what the floor
writes), ``gofloor`` (the Go floor client's process), ``phases`` (``Runner``: the runs that drive the operators), ``scaling`` (the
floor and worker-scaling runs), ``results`` (run records to bench.json and the tables),
``tables`` (what is printed), ``paired`` (ratios to the floor by round, CPU per object),
``profile`` (py-spy on an operator), ``cli`` (the command).
"""

from harness.bench.cli import main

__all__ = ["main"]
