GO ?= go

.PHONY: demo test vet staticcheck bench bench-micro redis-server release-check

# The modules of the repository: the library, and beside it the demo, the
# benchmarks and the OpenTelemetry bridge, each with its own go.mod so that
# the library's users carry none of their dependencies in their module
# graph.
MODULES := . examples/demo bench rlock/relockotel

# staticcheck, at a release that builds with the go.mod's Go (1.24).
STATICCHECK_VERSION := 0.6.1
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck

# The main job: services contending for locks, on an embedded Redis unless
# REDIS_ADDR names a real one.
demo:
	cd examples/demo && $(GO) run .

# Everything CI runs: gofmt, vet and staticcheck, then every test under the
# race detector, integration tests on a real redis-server included.
test: redis-server vet staticcheck
	$(GO) test -race -count=1 -timeout 270s ./...
	cd examples/demo && $(GO) test -race -count=1 -timeout 60s ./...
	cd bench && $(GO) test -race -count=1 -timeout 120s ./...
	cd rlock/relockotel && $(GO) test -race -count=1 -timeout 60s ./...

vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@for m in $(MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

staticcheck:
	@$(STATICCHECK) -version 2>/dev/null | grep -q "($(STATICCHECK_VERSION))" || \
	  GOTOOLCHAIN=local $(GO) install honnef.co/go/tools/cmd/staticcheck@v$(STATICCHECK_VERSION)
	@for m in $(MODULES); do (cd $$m && $(STATICCHECK) ./...) || exit 1; done

# The comparison run: scenarios, table, JSON and plots under bench/out.
bench: redis-server
	cd bench && $(GO) run ./cmd/relock-bench $(BENCHFLAGS)

# go test microbenchmarks against a real redis-server.
bench-micro: redis-server
	cd bench && $(GO) test -run '^$$' -bench . -benchmem ./...

# Integration tests start their own redis-server: install it when missing.
redis-server:
	@command -v redis-server >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	  else \
	    echo "redis-server is missing: install it (Debian/Ubuntu: sudo apt-get install -y redis-server) and run make test again"; exit 1; \
	  fi; }

# Many Clients with faults switching on and off, every critical section
# checked; bounded in time (SOAKFLAGS="-duration 10m -clients 16").
.PHONY: soak
soak: redis-server
	$(GO) run ./internal/cmd/soak $(SOAKFLAGS)

# Proves the modules can be published at the version the nested modules
# require of the library: a program outside the repository gets
# rlock/relockotel at that version, with the library at the same version
# and no replace, through a file:// GOPROXY of the working tree's modules;
# and installs cmd/relock. RELEASEFLAGS=-strict before tagging also
# requires rlock.Version and CHANGELOG.md to name the version
# (docs/releasing.md).
release-check:
	$(GO) run ./internal/cmd/releasecheck $(RELEASEFLAGS)
