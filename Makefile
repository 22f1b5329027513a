GO ?= go

.PHONY: demo test vet bench bench-micro redis-server

# The main job: services contending for locks, on an embedded Redis unless
# REDIS_ADDR names a real one.
demo:
	$(GO) run ./examples/demo

# Everything CI runs: vet, then every test under the race detector,
# integration tests on a real redis-server included.
test: redis-server vet
	$(GO) test -race -count=1 -timeout 270s ./...
	@if [ -f bench/go.mod ]; then cd bench && $(GO) vet ./... && $(GO) test -race -count=1 -timeout 120s ./...; fi

vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

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
