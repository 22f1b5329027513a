GO ?= go

# make test reads PIPESTATUS.
SHELL := /bin/bash

.PHONY: demo test interop browser stress vet vet32 staticcheck bench bench-micro redis-server release-check help

# The modules of the repository: the library, and beside it the demo, the
# benchmarks, the OpenTelemetry bridge and the proof (test/proof), each
# with its own go.mod so that the library's users carry none of their
# dependencies in their module graph.
MODULES := . examples/demo examples/scheduler bench rlock/relockotel rlock/relockgocron rlock/relockgocron/compare examples/gocron test/proof
# make test runs the nested modules' tests beside the library's.
NESTED := $(filter-out .,$(MODULES))

# staticcheck, at a release that builds with the go.mod's Go (1.24).
STATICCHECK_VERSION := 0.6.1
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck

# The main job: services contending for locks, on an embedded Redis unless
# REDIS_ADDR names a real one.
demo: ## services contending for locks, on an embedded Redis (REDIS_ADDR=host:port for a real one)
	cd examples/demo && $(GO) run .

# A job scheduler: workers share K slots of a permit-expirable semaphore,
# and a dead worker's slot comes back (embedded Redis unless REDIS_ADDR).
.PHONY: scheduler
scheduler: ## workers sharing slots of a permit-expirable semaphore (embedded Redis unless REDIS_ADDR)
	cd examples/scheduler && $(GO) run .

# Everything CI runs: gofmt, vet (also for a 32-bit platform: vet32) and
# staticcheck, then every test under the race detector, integration tests
# on a real redis-server included. Every
# module is tested even when one fails; the end of the output names each
# failed module, package and test, and each test that skipped because the
# machine lacks what it needs (Java and the Redisson peer: make interop;
# Chromium: make browser). Under CI=true those tests fail instead.
test: redis-server vet vet32 staticcheck ## gofmt, vet (also for GOARCH=386), staticcheck, then every test of every module under -race
	@log=$$(mktemp); skips=$$(mktemp); dir=$$(mktemp -d); failed=""; \
	for m in $(NESTED); do \
	  (cd $$m && RELOCK_SKIP_LOG=$$skips $(GO) test -race -count=1 -p $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) ./... > $$dir/$${m//\//_}.log 2>&1; \
	   echo $$? > $$dir/$${m//\//_}.rc) & \
	done; \
	echo "== go test . (the other modules' tests run meanwhile; their output follows)"; \
	(RELOCK_SKIP_LOG=$$skips $(GO) test -race -count=1 -p $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) ./... 2>&1) | tee -a $$log; \
	[ "$${PIPESTATUS[0]}" = 0 ] || failed=" ."; \
	wait; \
	for m in $(NESTED); do \
	  echo "== go test $$m"; f=$$dir/$${m//\//_}; tee -a $$log < $$f.log; \
	  [ "$$(cat $$f.rc)" = 0 ] || failed="$$failed $$m"; \
	done; \
	rm -rf $$dir; \
	if [ -s $$skips ]; then echo; echo "make test: SKIPPED for lack of what they need (CI=true fails them):"; \
	  sort -u $$skips | awk -F'\t' '{k=$$1"\t"$$2; n[k]++; t[k]=t[k] (n[k]>1?", ":"") $$3} \
	    END {for (k in n) {split(k, a, "\t"); printf "  %d test(s): %s\n    run them with: %s\n    (%s)\n", n[k], a[1], a[2], t[k]}}'; fi; \
	rm -f $$skips; \
	if [ -n "$$failed" ]; then \
	  echo; echo "make test: FAILED in module(s):$$failed"; \
	  grep -E '^(--- FAIL|FAIL|panic:)' $$log | sed 's/^/  /'; \
	  rm -f $$log; exit 1; \
	fi; \
	rm -f $$log; echo; echo "make test: all $(words $(MODULES)) modules passed"

# TEST_TIMEOUT bounds one package's tests in make test.
TEST_TIMEOUT ?= 270s
# TEST_PARALLEL is how many packages' tests run at once. Most of their time
# is spent waiting on leases, links and peers rather than on the CPU, so
# four at once keep two cores busy; each package still starts its own
# redis-servers on free ports.
TEST_PARALLEL ?= 4

# The real-Redisson interop tests (test/interop): they need a JDK 17 (the
# rate limiter's tests compile a Java program with javac) and the
# Redisson peer's jar, RELOCK_REDISSON_PEER or ../shared/interop beside
# the checkout, and fail rather than skip when either is missing.
RELOCK_REDISSON_PEER ?= $(abspath $(CURDIR)/../shared/interop/redisson-peer.jar)
interop: redis-server ## the tests against the real Redisson (a JDK 17 and the Redisson peer's jar)
	CI=true RELOCK_REDISSON_PEER=$(RELOCK_REDISSON_PEER) $(GO) test -race -count=1 -timeout 270s -v ./test/interop/

# The /debug/locks page rendered in a real headless Chromium; fails rather
# than skips when chromium is missing.
browser: redis-server ## the /debug/locks page in a real headless Chromium
	CI=true $(GO) test -race -count=1 -timeout 120s -v -run TestBrowser ./rlock/debuglocks/

# Every package's tests run STRESS_COUNT times (-count) while two busy loops
# keep two cores loaded, package by package, so that a test that depends on
# timing the machine may not give fails here first. STRESS_PKGS narrows the
# run (a pattern of go list, in the library's module: ./pubsub/), and
# STRESS_FLAGS adds go test flags (-race, -run X). The hogs are killed when
# the run ends, however it ends.
STRESS_COUNT ?= 20
STRESS_PKGS ?=
STRESS_FLAGS ?=
stress: redis-server ## every test STRESS_COUNT times on a loaded machine (STRESS_PKGS, STRESS_FLAGS)
	@STRESS_COUNT=$(STRESS_COUNT) STRESS_PKGS="$(STRESS_PKGS)" STRESS_FLAGS="$(STRESS_FLAGS)" \
	  GO=$(GO) MODULES="$(MODULES)" ./.ci/stress

vet: ## gofmt and go vet of every module
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@for m in $(MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

# Every module, tests included, vetted for a 32-bit platform (386): an
# int is 32 bits there, so a constant or a conversion that needs 64 bits
# of an int fails to compile. Every module is vetted even when one fails.
vet32: ## go vet of every module for a 32-bit platform (GOARCH=386)
	@failed=""; for m in $(MODULES); do (cd $$m && GOARCH=386 $(GO) vet ./...) || failed="$$failed $$m"; done; \
	  [ -z "$$failed" ] || { echo "make vet32: GOARCH=386 fails in module(s):$$failed"; exit 1; }

staticcheck: ## staticcheck of every module (installed at the pinned version)
	@$(STATICCHECK) -version 2>/dev/null | grep -q "($(STATICCHECK_VERSION))" || \
	  GOTOOLCHAIN=local $(GO) install honnef.co/go/tools/cmd/staticcheck@v$(STATICCHECK_VERSION)
	@for m in $(MODULES); do (cd $$m && $(STATICCHECK) ./...) || exit 1; done

# The comparison run: scenarios, table, JSON and plots under bench/out.
# SCALE=100k runs the scale scenarios instead (minutes, not CI): 10 000,
# 30 000 and 100 000 locks x 3 waiters on one redis-server, then 100 000
# on Redis Clusters of 1 and 3 masters, sharded pub/sub, with Redisson
# waiting beside on some locks (Java 17 and the Redisson peer's jar, as
# make interop). docs/scale.md reads its results.
SCALE ?=
ifeq ($(SCALE),100k)
SCALEFLAGS := -scenarios scale,cluster-scale -scale-locks 10000,30000,100000 -cluster-scale-locks 100000 -cluster-scale-masters 1,3 -idle 2s -out out/scale
else ifneq ($(SCALE),)
$(error SCALE=$(SCALE): the only scale run is SCALE=100k)
endif
bench: redis-server ## the comparison with other Go lock libraries: table, JSON, plots under bench/out (SCALE=100k: the scale runs)
	cd bench && RELOCK_REDISSON_PEER=$(RELOCK_REDISSON_PEER) $(GO) run ./cmd/relock-bench $(SCALEFLAGS) $(BENCHFLAGS)

# go test microbenchmarks against a real redis-server.
bench-micro: redis-server ## go test microbenchmarks against a real redis-server
	cd bench && $(GO) test -run '^$$' -bench . -benchmem ./...

# Integration tests start their own redis-server: install it when missing.
redis-server: ## install redis-server when missing (Debian/Ubuntu, as root)
	@command -v redis-server >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	  else \
	    echo "redis-server is missing: install it (Debian/Ubuntu: sudo apt-get install -y redis-server) and run make test again"; exit 1; \
	  fi; }

# The proof of the guarantees (docs/guarantees.md): Go processes (relock)
# and Java processes (Redisson 3.52) contend for the same locks while a
# nemesis injects every kind of fault, every operation is recorded, and the
# checker judges the histories; a violation of what must hold fails it.
# DURATION is how long faults are injected (the first round of every kind
# is finished even if it takes longer: about 90 s); the run directory
# (histories, manifest, report) is PROOF_DIR, by default
# test/proof/runs/<UTC time>. PROOFFLAGS adds cmd/proof's flags (-seed N).
# Needs Java 17 with javac and the Redisson peer's jar (RELOCK_REDISSON_PEER).
# The Redis Cluster namespace is on; PROOFFLAGS=-cluster=false leaves it out.
DURATION ?= 2m
.PHONY: proof
proof: redis-server ## Go and Java fleets under faults, histories checked (DURATION=60m for the long run)
	@dir="$${PROOF_DIR:-$(CURDIR)/test/proof/runs/$$(date -u +%Y%m%dT%H%M%SZ)}"; \
	  cd test/proof && \
	  RELOCK_REDISSON_PEER=$(RELOCK_REDISSON_PEER) $(GO) run ./cmd/proof -dir "$$dir" -duration $(DURATION) -cluster $(PROOFFLAGS) && \
	  $(GO) run ./cmd/renewals "$$dir" && \
	  $(GO) run ./cmd/check "$$dir"

# The proof's mutation set (test/cmd/mutants -proof, docs/testing.md): each
# mutant breaks a promise of docs/guarantees.md in a scratch copy, and a
# short proof under the faults that show it must fail with violations.
# PROOFMUTANTSFLAGS="-only told" narrows it. Needs what make proof needs.
.PHONY: proof-mutants
proof-mutants: redis-server ## a short proof on each of a set of library mutations: every one must fail it
	RELOCK_REDISSON_PEER=$(RELOCK_REDISSON_PEER) $(GO) run ./test/cmd/mutants -proof $(PROOFMUTANTSFLAGS)

# Many Clients with faults switching on and off, every critical section
# checked; bounded in time (SOAKFLAGS="-duration 10m -clients 16").
.PHONY: soak
soak: redis-server ## many Clients under switching faults, every critical section checked (SOAKFLAGS)
	$(GO) run ./test/cmd/soak $(SOAKFLAGS)

# The server matrix: the integration tests of rlock, pubsub, cmd/relock,
# the test servers' set-ups and the interop suite on Debian's redis-server
# (7.0), Valkey 8.0.1 and Redis 6.2.16 (from RELOCK_SERVERS_DIR, default
# ../shared/servers beside the checkout), one package at a time; a table
# of server × package at the end. MATRIX_PKGS narrows it.
.PHONY: matrix
matrix: redis-server ## the integration tests on Redis 7.0, Valkey 8.0.1 and Redis 6.2.16, as a table
	@GO=$(GO) ./.ci/matrix

# The mutation set (test/cmd/mutants): each mutation takes a feature away
# from a scratch copy of the working tree, and the tests chosen for it must
# fail; a mutant that survives fails the target. MUTANTSFLAGS="-only NAME"
# runs some; docs/testing.md lists them and their killers.
.PHONY: mutants
mutants: redis-server ## the mutation set: each feature taken away must fail a test (MUTANTSFLAGS)
	$(GO) run ./test/cmd/mutants $(MUTANTSFLAGS)

# Proves the modules can be published at the version the nested modules
# require of the library: a program outside the repository gets
# rlock/relockotel at that version, with the library at the same version
# and no replace, through a file:// GOPROXY of the working tree's modules;
# and installs cmd/relock. RELEASEFLAGS=-strict before tagging also
# requires rlock.Version and CHANGELOG.md to name the version
# (docs/releasing.md).
release-check: ## the modules resolve and install as published (RELEASEFLAGS=-strict before tagging)
	$(GO) run ./test/cmd/releasecheck $(RELEASEFLAGS)

# The targets, each with the line after its "##".
help: ## this list
	@awk -F': .*## ' '/^[a-z][a-z0-9-]*:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
