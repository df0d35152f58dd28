# ModelDock: `make conformance` is the main job, `make test` what CI runs.
# Every target installs what it needs: a virtualenv from pyproject.toml, Go modules through the
# Go module proxy, and the Kubernetes binaries (built once from tools/, cached in
# ~/.cache/modeldock, or taken from KUBEBUILDER_ASSETS).

SHELL := /bin/bash
# Python may cache bytecode here, whatever the environment says: a make test starts some 300
# Python processes (pytest sessions and their xdist workers, operators, mutants), and with
# PYTHONDONTWRITEBYTECODE=1 each compiled the project's modules again, and pytest rewrote
# the checks' asserts again: 2.1 CPU-seconds to start a conformance session instead of 1.3.
unexport PYTHONDONTWRITEBYTECODE
PYTHON_BOOTSTRAP ?= python3
VENV      ?= .venv
PY        := $(VENV)/bin/python
STAMP     := $(VENV)/.installed
IMPLS     ?= go python
PYTEST_ARGS ?=
# make conformance CHECK=noop-stable KEEP=1 VERBOSE=1: one check, keep on failure, pytest's output
CHECK     ?=
KEEP      ?=
VERBOSE   ?=
# FULL=1: also the slow cases (watch-recovers[connection-stall-defaults]: the clients' own deadlines)
FULL      ?=
# Every <package>/implementation.toml in the repository declares one more implementation (same
# shape as harness/implementations.toml); IMPLS picks which of them run.
IMPL_FILES := $(wildcard */implementation.toml)
# The tier (docs/design.md, "Tiers"): envtest (etcd + kube-apiserver), sim (+ controller-manager,
# scheduler, kwok fake nodes), existing (the cluster of KUBECONFIG, CONTEXT=<kubeconfig context>),
# kind (needs a container engine).
CLUSTER   ?= envtest
CONTEXT   ?=
# KUBECONFIG_FILE=path: the harness's --kubeconfig (KUBECONFIG in the environment works as well).
KUBECONFIG_FILE ?=
# The Kubernetes minor version of the control plane (docs/tiers.md, "Kubernetes versions"): 1.34 (the
# default), 1.35, 1.36 or 1.37; ENVTEST_K8S_VERSION is kubebuilder's name for the same thing.
# Each version's binaries sit side by side in ~/.cache/modeldock/envtest/k8s/<version>-linux-amd64.
ENVTEST_K8S_VERSION ?=
K8S_VERSION ?= $(ENVTEST_K8S_VERSION)
export K8S_VERSION
# The versions make conformance-matrix runs, one after another.
MATRIX_VERSIONS ?= 1.34 1.35 1.36 1.37
# Where make conformance writes its reports (REPORTS=reports/sim keeps a tier's run apart).
REPORTS   ?= reports
# The language of the report's and the lesson's teaching text (en, zh-CN).
REPORT_LANG ?= en

.PHONY: help conformance test unit go-test apiproxy-test go-vet lint bench report lesson tools binaries up down clean

# make help: every target with a "## " comment on its line, in file order, with that comment
# (the convention of kubebuilder's Makefiles); "##@ Title" lines start a group.
help: ## this list
	@awk 'BEGIN { FS = ":.*## " } /^##@ / { printf "\n%s\n", substr($$0, 5); next } /^[a-zA-Z0-9_%-]+( [a-zA-Z0-9_%-]+)*:.*## / { printf "  make %-26s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

# The virtualenv: pip installs only uv (UV_VERSION, from PyPI), which installs the project and
# its dependencies, compiled to bytecode as pip does: 25 s in all from warm caches, against
# 46 s with pip alone.
UV_VERSION := 0.13.8
# The versions come from uv.lock (`uv lock` writes it from pyproject.toml; `make lint` checks it
# is current): exported with their hashes, installed as they are, then the project itself.
$(STAMP): pyproject.toml uv.lock
	@echo "[make] creating $(VENV) and installing the Python dependencies from uv.lock (uv $(UV_VERSION))"
	$(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(PY) -m uv export --quiet --frozen --extra dev --no-emit-project --format requirements-txt -o $(VENV)/requirements.lock.txt
	$(PY) -m uv pip install --quiet --compile-bytecode --python $(PY) -r $(VENV)/requirements.lock.txt
	$(PY) -m uv pip install --quiet --compile-bytecode --python $(PY) --no-deps -e .
	@touch $(STAMP)

venv: $(STAMP) ## the virtualenv .venv with the Python dependencies (every target makes it when missing)

# make conformance-matrix: the envtest suite for every version of MATRIX_VERSIONS, each into
# reports/matrix/<version>, then one report across versions (reports/matrix/matrix.md). A
# version's failing run does not stop the others; the target fails at the end if any failed.
.PHONY: conformance-matrix
conformance-matrix: $(STAMP) ## the suite for every Kubernetes version (MATRIX_VERSIONS), one report across them: reports/matrix/
	@rc=0; for v in $(MATRIX_VERSIONS); do \
	  echo "[make] Kubernetes $$v"; \
	  K8S_VERSION=$$v $(PY) -m harness conformance --cluster envtest --reports reports/matrix/$$v $(foreach i,$(IMPLS),--impl $(i)) $(foreach c,$(CHECK),--check '$(c)') || rc=1; \
	done; \
	$(PY) -m harness.report.matrix reports/matrix $(MATRIX_VERSIONS) || rc=1; exit $$rc

# setup-envtest's shape: `make envtest-assets` prints only the folder of the selected version's
# binaries (building them if missing), so a kubebuilder Makefile's
# KUBEBUILDER_ASSETS="$$(... use $(ENVTEST_K8S_VERSION) -p path)" line can call it instead.
.PHONY: envtest-assets
envtest-assets: $(STAMP) ## print the folder of the Kubernetes binaries (for KUBEBUILDER_ASSETS), ENVTEST_K8S_VERSION=1.37 for another version
	@$(PY) -m harness binaries --print-assets

tools binaries: $(STAMP) ## build and cache the Kubernetes binaries (etcd, kube-apiserver, kubectl) from tools/
	$(PY) -m harness binaries

conformance: $(STAMP) ## start a control plane, run the suite for IMPLS (default go python), write reports/ (CLUSTER=sim|existing|kind, CHECK=id, KEEP=1, VERBOSE=1, FULL=1)
	$(PY) -m harness conformance --cluster $(CLUSTER) --reports $(REPORTS) $(if $(CONTEXT),--context '$(CONTEXT)') $(if $(KUBECONFIG_FILE),--kubeconfig '$(KUBECONFIG_FILE)') $(foreach i,$(IMPLS),--impl $(i)) $(foreach f,$(IMPL_FILES),--impl-file $(f)) $(foreach c,$(CHECK),--check '$(c)') $(if $(KEEP),--keep-on-failure) $(if $(VERBOSE),--verbose) $(if $(FULL),--full) $(if $(PYTEST_ARGS),-- $(PYTEST_ARGS))

# The CI subsets of the kill matrix and the RBAC ablation run operators that are meant to fail:
# one that never converges is failed after CI_CONVERGE_TIMEOUT seconds instead of the suite's 60
# (conformance/support.py, CONVERGE_TIMEOUT). The full runs keep 60.
CI_CONVERGE_TIMEOUT ?= 20
CI_BOUND := MODELDOCK_CONVERGE_TIMEOUT=$(CI_CONVERGE_TIMEOUT)

# The sim tier's checks, those only a cluster's controllers can judge, for go and python on a sim
# control plane (reports in reports/sim/); make test runs them in conformance-existing-ci, on a
# sim plane too. Then the mutants only sim exposes (make test runs them).
SIM_CI_CHECKS := test_ready_with_kwok or test_garbage_collected or test_namespace_deleted or test_deletion_policy or test_status_follows_stalled_rollout
.PHONY: conformance-sim-ci mutants-sim-ci
conformance-sim-ci: $(STAMP) ## the sim tier's checks on a sim plane of their own
	$(PY) -m harness conformance --cluster sim --reports reports/sim $(foreach i,$(IMPLS),--impl $(i)) -- -k "$(SIM_CI_CHECKS)"

# The existing tier's CI run: a sim control plane started with `up` in its own folder, then,
# for go and python as on any existing cluster given only that plane's admin kubeconfig (no
# audit log, no CA), the checks for which such a cluster changes how the harness or the
# operator works (EXISTING_CI_CHECKS): the operator's identity (a ServiceAccount token, rights
# bound per namespace), the writes read from the API proxies instead of the audit log
# (noop-stable), restarts, the Lease with each instance behind its own proxy, and the checks
# only a cluster's controllers can judge. The other checks run on envtest.
# Reports in reports/existing/; the plane is stopped after the run, whatever its outcome.
# `make conformance-existing-ci EXISTING_CI_CHECKS=` runs the whole suite there.
EXISTING_CI_STATE := build/existing-ci
EXISTING_CI_CHECKS ?= test_create_converges or test_noop_stable or test_restart_reconverges or test_leader_failover or test_deletion_policy or test_ready_with_kwok or test_garbage_collected or test_namespace_deleted or test_status_follows_stalled_rollout
.PHONY: conformance-existing-ci
conformance-existing-ci: $(STAMP) ## the existing tier as CI runs it: a sim plane given only its kubeconfig
	$(PY) -m harness up --cluster sim --state-dir $(EXISTING_CI_STATE)
	KUBECONFIG=$(abspath $(EXISTING_CI_STATE))/admin.kubeconfig $(PY) -m harness conformance --cluster existing --reports reports/existing $(foreach i,$(IMPLS),--impl $(i)) $(if $(EXISTING_CI_CHECKS),-- -k '$(EXISTING_CI_CHECKS)'); \
	  code=$$?; $(PY) -m harness down --state-dir $(EXISTING_CI_STATE); exit $$code

mutants-sim-ci: $(STAMP) ## the mutants only the sim tier exposes
	$(CI_BOUND) $(PY) -m harness mutants --ci --cluster sim --reports reports/sim --jobs 3 --workers 2 --mutant generation-predicate --mutant tombstone-event --mutant remembers-created

# The request accounting of the last conformance run: the API proxies' logs and the audit log
# agreed, request for request, on every check (reads reports/junit-*.xml).
.PHONY: accounting-check
accounting-check: $(STAMP) ## the proxies' and the audit log's request accounting agreed on every check of the last run
	$(PY) -m harness accounting-check

# --dist loadscope: each test module's tests on one pytest-xdist worker, so a module's control
# plane (the module-scoped `cp` fixture) starts once, not once per worker that got one of its
# tests (on 2 cores: 122-130 s against 171 s with the default distribution).
unit: binaries ## the unit tests (pytest, 4 workers; the 15 slowest listed, to keep make test short)
	$(PY) -m pytest -q -n 4 --dist loadscope --durations=15 harness/tests python_operator/tests kopf_operator/tests

go-test: binaries apiproxy-test ## go test of the Go reference (envtest) and of the API proxy
	assets="$$($(PY) -m harness binaries --print-assets)" && cd go_reference && KUBEBUILDER_ASSETS="$$assets" go test -count=1 ./...

# The API proxy's own unit tests (path parser, hold/release ordering): no binaries needed.
apiproxy-test: ## go test of the API proxy (harness/faults/apiproxy)
	cd harness/faults/apiproxy && go test -count=1 ./...

GO_DIRS := go_reference harness/faults/apiproxy harness/bench/floorclient

go-vet:
	for d in $(GO_DIRS); do (cd $$d && go vet ./... && test -z "$$(gofmt -l .)") || exit 1; done
	test -z "$$(gofmt -l harness/mutants/go)" || { gofmt -l harness/mutants/go; exit 1; }

# actionlint checks .github/workflows (it cannot run here): built once with `go install` into
# the binary cache, like the Kubernetes binaries.
ACTIONLINT_VERSION := v1.7.12
MODELDOCK_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/modeldock
ACTIONLINT := $(MODELDOCK_CACHE)/tools/actionlint-$(ACTIONLINT_VERSION)/actionlint
PY_DIRS := harness python_operator conformance kopf_operator
# mypy's cache lives beside the binaries, one per checkout (keyed by its path): a cache shared
# by several checkouts of different code (worktrees linted side by side) once answered
# "OperatorProcess has no attribute healthy" for a method the checked tree has, and a fresh
# cache passed. A checkout rechecks only what changed since its last lint (under 1 s when
# nothing did, about 21 s with no cache).
MYPY_CACHE := $(MODELDOCK_CACHE)/mypy/$(shell printf '%s' '$(CURDIR)' | sha256sum | cut -c1-12)

$(ACTIONLINT):
	@echo "[make] building actionlint $(ACTIONLINT_VERSION) (go install)"
	GOBIN=$(dir $(ACTIONLINT)) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# The layers contract (harness/tests/test_layers.py: leaves import no harness package, the lower
# packages neither the plugin nor a command line, no import-time cycle through a package) runs
# here as well as in make unit: an import that runs up a layer is a lint error.
lint: $(STAMP) go-vet $(ACTIONLINT) ## ruff + mypy --strict on the Python, go vet + gofmt on the Go, actionlint, the layers contract
	$(PY) -m ruff check $(PY_DIRS)
	$(PY) -m ruff format --check $(PY_DIRS)
	$(PY) -m mypy --strict --cache-dir $(MYPY_CACHE) $(PY_DIRS)
	$(ACTIONLINT) .github/workflows/*.yml
	$(PY) -m uv lock --check --quiet
	$(PY) -m pytest -q -p no:cacheprovider harness/tests/test_layers.py

generate-mutants: binaries ## generated workloads against the mutants the suite misses: reports/generated-mutants.json (JUDGE_ARGS=)
	$(PY) -m harness generate-judge --reports $(REPORTS) $(JUDGE_ARGS)

# make test: lint, then its steps two at a time, each with control planes of its own. The runs
# mostly wait (on an operator, an API server, a bound a mutant never meets), so two at a time
# fill the 2 cores that one at a time leaves half idle; three at a time only stretch every
# step (tried: the cores were never idle, and the whole took longer). make takes the steps in
# TEST_STEPS's order, the next as soon as one ends: longest first (seconds in a fresh clone's
# make test at 692a258 (796 s in all): mutants-ci 344, unit 300, conformance 202,
# mutation-score-sample 195, explore-ci 111, conformance-existing-ci 110, generate-ci 94,
# rbac-ablation-ci 89, mutants-sim-ci 47, go-test 22; docs/ci.md), so the two lanes end
# together (fixed lanes of steps left one running alone for up to 70 s). accounting-check reads
# what conformance wrote, so it waits for it. Every step's lines start with its name and it
# ends with "[make test] <step> done in <n>s"; a failed step does not stop the others (-k), and
# make test fails once all have finished. Each step runs its own make one step at a time
# (STEP_MAKEFLAGS: no jobserver; -n and command-line variables passed on).
# conformance-sim-ci is not a step: its checks run for go and python in the existing run, which
# is on a sim plane, and mutants-sim-ci runs the suite with --cluster sim.
TEST_STEPS := mutants-ci unit mutation-score-sample conformance accounting-check explore-ci generate-ci rbac-ablation-ci conformance-existing-ci mutants-sim-ci go-test
.PHONY: test-steps $(addprefix test-step-,$(TEST_STEPS))
test: lint sim-binaries ## what CI runs: lint, then two at a time: unit tests, go test, the conformance runs, the mutant, RBAC-ablation and exploration subsets, the tool-mutant and generated-workload samples
	@$(MAKE) --no-print-directory -k -j2 test-steps

# Every Kubernetes binary make test needs (the sim tier's too), built once before the steps
# start, so that two steps never build the same one side by side on a cold machine.
.PHONY: sim-binaries
sim-binaries: $(STAMP)
	$(PY) -m harness binaries --sim

test-steps: $(addprefix test-step-,$(TEST_STEPS))
test-step-accounting-check: test-step-conformance

# A step's make: this make's flags (-n, -k, command-line variables) without its jobserver, so
# that a step runs its own prerequisites one after another.
STEP_MAKEFLAGS = $(filter-out -j% --jobserver-auth=% --jobserver-fds=%,$(MAKEFLAGS))

$(addprefix test-step-,$(TEST_STEPS)): test-step-%:
	@set -o pipefail; started=$$(date +%s); \
	{ MAKEFLAGS='$(STEP_MAKEFLAGS)' $(MAKE) --no-print-directory $* && \
	  echo "[make test] $* done in $$(( $$(date +%s) - started ))s"; } 2>&1 | sed -u 's/^/[$*] /'

report: $(STAMP) ## rebuild reports/comparison.{md,html} from reports/ (REPORT_LANG=zh-CN: comparison.zh-CN.*)
	$(PY) -m harness report --lang $(REPORT_LANG) $(foreach f,$(IMPL_FILES),--impl-file $(f))

# The article's lesson: both implementations and the mutants that show the wrong way, on one
# control plane (183 s at load 9, 213 s at load 40, on 2 shared cores), then
# reports/lesson.{md,html} (REPORT_LANG=zh-CN: lesson.zh-CN.* too), each part drawn from this
# run's JUnit files in reports/lesson/.
lesson: $(STAMP) ## the article's story, each part drawn from a small run: reports/lesson.{md,html} (REPORT_LANG=zh-CN)
	$(PY) -m harness lesson --lang $(REPORT_LANG)

up: $(STAMP) ## a control plane in the background (prints export KUBECONFIG=...)
	$(PY) -m harness up --cluster $(CLUSTER)

down: $(STAMP) ## stop the control plane of make up
	$(PY) -m harness down

bench: $(STAMP) ## both implementations on one control plane: reports/bench.json (BENCH_ARGS=--quick: smoke run)
	$(PY) -m harness bench $(foreach f,$(IMPL_FILES),--impl-file $(f)) $(BENCH_ARGS)

clean: ## remove build/, reports/, the virtualenv and this checkout's mypy cache (the binary cache stays)
	rm -rf build reports $(VENV) .pytest_cache .mypy_cache .ruff_cache $(MYPY_CACHE)

# The kill matrix: the suite against every mutant operator (harness/mutants/) on one control
# plane; writes reports/mutants.json and adds the matrix to reports/comparison.{md,html}.
# Exits non-zero if a mutant survives every check or a check kills no mutant. mutants-ci is
# the subset `make test` runs: each mutant against one or a few of the checks that catch it by
# design, every distinct caught_by entry against some mutant (harness/mutants/plan.py; a Go
# mutant's build counts, so an entry a Python twin declares too runs against the twin), four
# mutants at a time, longest first, each with no more pytest-xdist workers than test
# functions, and none where side by side would save under 15 s (plan.XDIST_MIN_GAIN).
MUTANT_WORKERS ?= 4
MUTANT_CI_JOBS ?= 4
MUTANT_ARGS ?=
.PHONY: mutants mutants-ci
mutants: binaries ## the suite against every mutant operator: reports/mutants.json, the kill matrix
	$(PY) -m harness mutants --workers $(MUTANT_WORKERS) $(MUTANT_ARGS)

# The exploration-only mutants (`explore` in mutants.toml) against the whole suite: each must
# survive every check, or it is not a fault only exploration finds (reports/exploration-only/).
.PHONY: mutants-exploration-only
mutants-exploration-only: binaries ## the suite against the mutants only exploration finds: each must survive
	$(PY) -m harness mutants --exploration-only --workers $(MUTANT_WORKERS) $(MUTANT_ARGS)

mutants-ci: binaries ## the kill matrix subset make test runs: every caught_by entry once, against as few mutants as cover them
	$(CI_BOUND) $(PY) -m harness mutants --ci --jobs $(MUTANT_CI_JOBS) --workers 4 $(MUTANT_ARGS)

# The caught_by pairs mutants-ci leaves out (an entry several mutants declare runs there
# against one of them): each mutant against those only, into reports/pairs/. mutants-ci,
# mutants-sim-ci and this hold every declared pair; not part of make test (its time stays), a
# job of its own in .github/workflows/conformance.yml. 332 s here (2 cores, load about 10).
.PHONY: mutants-pairs
mutants-pairs: binaries ## the caught_by pairs make test's mutants-ci leaves out: every pair runs in some job
	$(CI_BOUND) $(PY) -m harness mutants --rest --reports reports/pairs --jobs $(MUTANT_CI_JOBS) --workers 4 $(MUTANT_ARGS)

# The mutation score (harness/mutscore/, docs/design.md "Tool mutants"): mutants that
# cosmic-ray (Python, from uv.lock) and gremlins (Go, go install into the tools cache) derive
# from the operators' own code, each run as an operator and judged by the checks that execute
# its line; reports/mutation-score.json and a table in the comparison. Fails on a survivor
# harness/mutants/survivors.toml does not classify. MUTSCORE_ARGS=--sample 40: a seeded sample
# per language instead of every mutant (the full run is hours: nightly, not make test).
# mutation-score-sample is the make test step: the fixed, reviewed list of
# harness/mutscore/sample.toml (about 10 per language, one survivors.toml class member each),
# judged by the three short checks that killed most of the baseline, each mutant's verified
# killer first; coverage comes from ~/.cache/modeldock/mutscore when the operators and the
# three checks' files are unchanged (docs/mutation-score.md, "The sample make test runs").
# An id no tool generates any more stops it (exit 2) with the command that replaces it.
GREMLINS_VERSION := v0.6.0
GREMLINS := $(MODELDOCK_CACHE)/tools/gremlins-$(GREMLINS_VERSION)/gremlins
MUTSCORE_ARGS ?=
# The kills a --mutant run verified, tried first for their functions whatever they cost
# (docs/mutation-score.md, "Order"): a check that got slower does not silently lose them.
MUTSCORE_PRIOR ?= harness/mutants/prior-kills.json
MUTSCORE_SAMPLE_CHECKS := progressing-without-kubelet,events-recorded,foreign-conditions-kept
# The sample's verified kills (its last run's, harness/mutscore/sample-kills.json): each
# killed mutant's killer goes first, so a kill costs one check session.
MUTSCORE_SAMPLE_PRIOR := harness/mutscore/sample-kills.json
.PHONY: mutation-score mutation-score-sample mutation-score-nightly

$(GREMLINS):
	@echo "[make] building gremlins $(GREMLINS_VERSION) (go install)"
	GOBIN=$(dir $(GREMLINS)) go install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

mutation-score: binaries $(GREMLINS) ## tool mutants (cosmic-ray, gremlins) judged by the suite: reports/mutation-score.json (MUTSCORE_ARGS=--sample 40)
	$(PY) -m harness mutation-score --checks all --max-checks 99 --prior $(MUTSCORE_PRIOR) $(MUTSCORE_ARGS)

# The full run, nightly: every selected mutant of both languages, last night's report as
# --prior (each mutant's killer, then each function's, tried first), MUTSCORE_NIGHTLY_JOBS
# mutants at a time on one control plane (docs/ci.md "Nightly": its time, measured). Every
# check of the suite judges (--checks all), and a mutant tries every check that executes its
# line: a killed one stops at its first kill, so only survivors pay for the whole list.
# Incremental (docs/mutation-score.md, "Incremental runs"): a mutant whose file, checks and
# their files are as they were in last night's report keeps its verdict there, a survivor is
# judged again by its changed checks only, and every mutant is judged whole when the last run
# that judged them all is over 7 days old (--full-every); MUTSCORE_INCREMENTAL= (empty): whole.
MUTSCORE_NIGHTLY_JOBS ?= 6
MUTSCORE_INCREMENTAL ?= $(wildcard reports/mutation-score.json)
mutation-score-nightly: binaries $(GREMLINS) ## the full mutation-score run, incremental against the last report (MUTSCORE_INCREMENTAL= : every mutant)
	$(PY) -m harness mutation-score --jobs $(MUTSCORE_NIGHTLY_JOBS) --workers 3 --checks all --max-checks 99 --prior harness/mutants/prior-kills.json $(if $(wildcard reports/mutation-score.json),--prior reports/mutation-score.json) $(if $(MUTSCORE_INCREMENTAL),--incremental $(MUTSCORE_INCREMENTAL)) $(MUTSCORE_ARGS)

mutation-score-sample: binaries $(GREMLINS) ## the fixed sample make test runs (harness/mutscore/sample.toml), three checks
	$(CI_BOUND) $(PY) -m harness mutation-score --sample-file harness/mutscore/sample.toml --max-checks 3 --jobs 4 --workers 3 --checks $(MUTSCORE_SAMPLE_CHECKS) --prior $(MUTSCORE_SAMPLE_PRIOR) --reports reports/mutscore-sample $(MUTSCORE_ARGS)

# The RBAC ablation: for every (API group, resource, verb) in config/rbac/role.yaml, checks run
# with the operator bound to the role minus that right, and one must fail on a 403 the missing
# right explains (harness/rbac/ablation.toml: which checks, which rights are pending). Writes
# reports/rbac-ablation.json and adds the table to reports/comparison.{md,html}. Exits
# non-zero if a right is needed by nothing or the whole role is not enough. rbac-ablation-ci
# is the subset `make test` runs: each right against its shown_by checks only.
ABLATION_ARGS ?=
.PHONY: rbac-ablation rbac-ablation-ci
rbac-ablation: binaries ## every right of config/rbac/role.yaml taken away in turn: reports/rbac-ablation.json
	$(PY) -m harness rbac-ablation --workers 3 --jobs 2 $(ABLATION_ARGS)

rbac-ablation-ci: binaries ## the RBAC-ablation subset make test runs
	$(CI_BOUND) $(PY) -m harness rbac-ablation --ci --jobs 4 $(ABLATION_ARGS)

# Exploration (harness/explore/): for each scenario a clean run, then a SIGKILL at every write
# boundary of the operator (the write's response withheld or delivered), a 409 at each, a
# stale view and coalesced events, through the API proxy; the end state must equal the clean
# run's. Writes reports/junit-explore-<impl>.xml, reports/explore.json and reports/explore.md.
# explore-ci is the subset `make test` runs (a few scenarios, k <= 2, both crash variants).
EXPLORE_ARGS ?=
.PHONY: explore explore-ci
explore: binaries ## a crash at every write boundary of every scenario: reports/explore.json
	$(PY) -m harness explore $(foreach i,$(IMPLS),--impl $(i)) $(EXPLORE_ARGS)

explore-ci: binaries ## the exploration subset make test runs
	$(PY) -m harness explore --ci $(foreach i,$(IMPLS),--impl $(i)) $(EXPLORE_ARGS)

# Generated workloads (harness/generate/, issue 26): SEQUENCES sequences of at most STEPS
# steps drawn by hypothesis from the CRD's schema and the cluster's other actors, on go and
# python side by side, judged by oracles that need no expected value; a failing sequence is
# shrunk to reports/generated/<id>.yaml (`python -m harness replay FILE`). The nightly size
# is SEQUENCES=1000. CLUSTER=sim runs it on the sim tier (make sim-binaries first);
# OPERATOR_ROOT=<checkout> starts go and python from another checkout's sources (a worktree
# of an older commit). PARALLEL sequences run at once on the one control plane, each in lanes
# of its own (--parallel). generate-ci is the fixed seed `make test` runs, then the shipped case
# files that hold today (`ci: true` in harness/generate/cases/) replayed on go and python.
# generate-mutants judges the generator against the mutants the suite misses (the ones of
# mutants.toml with `explore`, the non-equivalent survivors of survivors.toml, and one
# equivalent control per language): reports/generated-mutants.json (JUDGE_ARGS=--mutant NAME).
# generate-nightly is the nightly size (NIGHTLY_SEQUENCES per implementation, NIGHTLY_PARALLEL at
# once, --keep-going: a slot goes on past a failure with the sequences it has not drawn, so
# every failure of the night gets its case file; the time it takes: docs/design.md,
# "Generated workloads").
SEQUENCES ?= 50
STEPS ?= 20
SEED ?=
PARALLEL ?= 1
NIGHTLY_SEQUENCES ?= 1000
NIGHTLY_PARALLEL ?= 8
GENERATE_ARGS ?=
JUDGE_ARGS ?=
.PHONY: generate generate-ci generate-nightly generate-mutants
generate: binaries ## generated workloads judged without expected values: reports/generated.json (SEQUENCES=, STEPS=, SEED=, PARALLEL=, CLUSTER=sim, OPERATOR_ROOT=checkout)
	$(PY) -m harness generate $(foreach i,$(IMPLS),--impl $(i)) --sequences $(SEQUENCES) --steps $(STEPS) $(if $(SEED),--seed $(SEED)) --parallel $(PARALLEL) $(if $(filter sim,$(CLUSTER)),--cluster sim) $(if $(OPERATOR_ROOT),--operator-root '$(OPERATOR_ROOT)') --reports $(REPORTS) $(GENERATE_ARGS)

generate-nightly: binaries ## the nightly generated workloads: NIGHTLY_SEQUENCES (1000) sequences of 20 steps, NIGHTLY_PARALLEL (8) at once
	$(MAKE) --no-print-directory generate SEQUENCES=$(NIGHTLY_SEQUENCES) STEPS=20 PARALLEL=$(NIGHTLY_PARALLEL) GENERATE_ARGS="--keep-going $(GENERATE_ARGS)"

generate-ci: binaries ## the fixed-seed sample of generated workloads make test runs, then the shipped cases that hold (ci: true) replayed
	$(PY) -m harness generate --ci $(foreach i,$(IMPLS),--impl $(i)) --reports $(REPORTS) $(GENERATE_ARGS)
	$(PY) -m harness generate-cases
