# ctool: `make run` builds, ingests input/ and runs a sample query; `make test` runs every test.
GO       ?= go
BIN      := bin/ctool
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
DB       ?= data/ctool.duckdb

.PHONY: all build man run test lint staticcheck fuzz bench bench-ingest bench-validate bench-query bench-mcp bench-peer conformance clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ctool

# The manual page, from the same definitions as --help: man -l bin/ctool.1
man: build
	$(BIN) man > bin/ctool.1

run: build
	$(BIN) ingest --input input --db $(DB)
	$(BIN) query stores --db $(DB) "SELECT store_name, category, address FROM 'stores.csv' WHERE address LIKE '%麻布台%'"

test: lint
	$(GO) test -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Not part of test (it downloads and builds the checker): staticcheck, pinned, clean on every package.
staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzGuard -fuzztime=$${FUZZTIME:-60s} ./guard/

bench: bench-ingest bench-validate bench-query

bench-ingest: build
	bench/ingest.sh

bench-validate: build
	bench/validate.sh

bench-query: build
	bench/query.sh

# Not part of bench: the MCP server's per-call latency against a process per call.
bench-mcp: build
	bench/mcp.sh

# Not part of bench: ctool mcp against DBHub (installed from npm into a cache directory), stdio and HTTP.
bench-peer: build
	bench/peer.sh

# Not part of test: installs Node 22 and the MCP conformance tools from npm into a cache directory.
conformance: build
	conformance/run.sh

clean:
	rm -rf bin data bench/out
