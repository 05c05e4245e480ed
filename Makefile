# ctool: `make run` builds, ingests input/ and runs a sample query; `make test` runs every test;
# `make install` puts ctool and its manual page under PREFIX.
GO       ?= go
BIN      := bin/ctool
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
DB       ?= data/ctool.duckdb
PREFIX   ?= /usr/local
# A leading ~ is the home directory, whether or not the shell expanded it (sh leaves PREFIX=~/x as is).
prefix   := $(patsubst ~%,$(HOME)%,$(PREFIX))

.PHONY: versitygw all build man install uninstall run test lint staticcheck cover fuzz bench bench-ingest bench-validate bench-query bench-console console-e2e bench-query-cli bench-mcp bench-load bench-follow bench-peer bench-memory conformance conformance-auth conformance-langchain clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ctool

# The manual page, from the same definitions as --help: man -l bin/ctool.1
man: build
	$(BIN) man > bin/ctool.1

# PREFIX=~/.local installs without root; DESTDIR stages a package.
install: build man
	install -d '$(DESTDIR)$(prefix)/bin' '$(DESTDIR)$(prefix)/share/man/man1'
	install -m 755 $(BIN) '$(DESTDIR)$(prefix)/bin/ctool'
	install -m 644 bin/ctool.1 '$(DESTDIR)$(prefix)/share/man/man1/ctool.1'
	@case ":$$PATH:" in *":$(prefix)/bin:"*) ;; *) echo "note: $(prefix)/bin is not on PATH: export PATH=\"$(prefix)/bin:\$$PATH\"";; esac

uninstall:
	rm -f '$(DESTDIR)$(prefix)/bin/ctool' '$(DESTDIR)$(prefix)/share/man/man1/ctool.1'

run: build
	$(BIN) ingest --input input --db $(DB)
	$(BIN) query stores --db $(DB) "SELECT store_name, category, address FROM 'stores.csv' WHERE category = 'cafe'"

# Each package's result as it ends, failing tests with their output, long tests as they finish and,
# after 20 s of silence, the test each running package is on (internal/testprogress).
test: lint versitygw
	GO='$(GO)' $(GO) run ./internal/testprogress -count=1 ./...

# The S3 store the tests start (internal/publish/s3test), built once into the user's cache where the
# tests look for it, before the packages that use it run side by side; offline, those tests skip.
VERSITYGW := $${XDG_CACHE_HOME:-$$HOME/.cache}/ctool-versitygw/v1.8.0
versitygw:
	@test -x "$(VERSITYGW)/versitygw" || { mkdir -p "$(VERSITYGW)" && echo "building versitygw v1.8.0 into $(VERSITYGW) (once)" && \
		GOBIN="$(VERSITYGW)" GOWORK=off GOFLAGS= CGO_ENABLED=0 $(GO) install -trimpath github.com/versity/versitygw/cmd/versitygw@v1.8.0 || \
		echo "note: versitygw could not be built: the tests of the S3 store will skip"; }

# The Go files git knows of, or every one outside bench/out when this is not a git checkout; gofmt
# never reads stdin.
lint:
	@files=$$(git ls-files -co --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/out/*' -not -path './.git/*'); \
	out=$$(gofmt -l $$files </dev/null); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Not part of test (it downloads and builds the checker): staticcheck, pinned, clean on every package.
staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Not part of test (it runs the whole suite instrumented): each package's coverage by its own tests and
# the end-to-end scripts together; fails if a package is under 80%.
cover:
	cover/run.sh

# Each fuzz target for FUZZTIME (default 60s), one after another, on one core.
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzGuard -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/guard/
	$(GO) test -run='^$$' -fuzz=FuzzShape -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/guard/
	$(GO) test -run='^$$' -fuzz=FuzzReport -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./ingest/validation/
	$(GO) test -run='^$$' -fuzz=FuzzJSONCell -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./ingest/validation/
	$(GO) test -run='^$$' -fuzz=FuzzPriceYen -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/price/
	$(GO) test -run='^$$' -fuzz=FuzzReadOffer -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/offers/
	$(GO) test -run='^$$' -fuzz=FuzzVenueMatch -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/venuematch/
	$(GO) test -run='^$$' -fuzz=FuzzReadHours -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/hours/
	$(GO) test -run='^$$' -fuzz=FuzzReadPrice -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/price/
	$(GO) test -run='^$$' -fuzz=FuzzReadCaveat -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/offers/
	$(GO) test -run='^$$' -fuzz=FuzzEventWeekdays -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/hours/
	$(GO) test -run='^$$' -fuzz=FuzzAddressesAI -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./schema/injection/
	$(GO) test -run='^$$' -fuzz=FuzzReadFrame -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/worker/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeResult -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/worker/
	$(GO) test -run='^$$' -fuzz=FuzzStdioFilter -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/mcpserver/
	$(GO) test -run='^$$' -fuzz=FuzzArgument -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/mcpserver/
	$(GO) test -run='^$$' -fuzz=FuzzHintAliases -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/hint/
	$(GO) test -run='^$$' -fuzz=FuzzIDKeeper -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/mcpserver/
	$(GO) test -run='^$$' -fuzz=FuzzParseManifest -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/publish/
	$(GO) test -run='^$$' -fuzz=FuzzParsePointer -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/publish/
	$(GO) test -run='^$$' -fuzz=FuzzShow -fuzztime=$${FUZZTIME:-60s} -parallel=1 ./internal/textdiff/

bench: bench-ingest bench-validate bench-query bench-console

bench-ingest: build
	bench/ingest.sh

bench-validate: build
	bench/validate.sh

bench-query: build
	bench/query.sh

bench-console: build
	bench/console.sh

# Not part of test: the console driven in headless Chromium (Debian's package, with Japanese fonts,
# installed if missing), which also writes the screenshots under docs/images/.
console-e2e:
	@{ command -v chromium >/dev/null && dpkg -s fonts-noto-cjk >/dev/null 2>&1; } || { s=$$([ "$$(id -u)" = 0 ] || echo sudo); $$s apt-get update && $$s apt-get install -y chromium fonts-noto-cjk; }
	CTOOL_BROWSER_TEST=1 CTOOL_SCREENSHOTS=$(CURDIR)/docs/images $(GO) test -count=1 -run TestConsoleInBrowser -v ./internal/console/

# Not part of bench: ctool query, its worker alone, its start and a plain DuckDB program, three rounds.
bench-query-cli: build
	bench/query-cli.sh

# Not part of bench: the MCP server's per-call latency against a process per call, and over HTTP with
# auth against without.
bench-mcp: build
	bench/mcp.sh
	bench/mcp-auth.sh

# Not part of bench: ctool mcp --http under 8 and 32 clients with a rollout, one server then two
# replicas behind nginx (installed with apt-get if missing); about three minutes.
bench-load: build
	bench/load.sh

# Not part of bench: two replicas following one S3 bucket (versitygw, built into the user's cache)
# behind nginx while three builds are published under load; about a minute.
bench-follow: build
	bench/follow.sh

# Not part of bench: ctool mcp against DBHub (installed from npm into a cache directory), stdio and HTTP,
# on the sample; SCALE=N (or "1000 100000 1000000") on products grown to N rows, with plain DuckDB as
# the floor (bench/peer-scale.sh; about 10 minutes at 1,000,000).
bench-peer: build
	SCALE='$(SCALE)' bench/peer.sh

# Not part of bench: ctool mcp --http under 1, 8 and 32 clients, its latency and the memory of the
# server and its workers during and after the load (BASE=other/ctool runs both); about two minutes.
bench-memory: build
	bench/memory.sh

# Not part of test: installs Node 22 and the MCP conformance tools from npm into a cache directory.
conformance: build conformance-auth conformance-langchain
	conformance/run.sh

# Not part of test: ctool mcp --auth-issuer against oidc-provider and the MCP TypeScript SDK's client (npm).
conformance-auth: build
	conformance/auth.sh

# Not part of test: ctool mcp over stdio and HTTP through the JavaScript LangChain adapter (npm), each
# tool called once with the configuration of docs/clients.md.
conformance-langchain: build
	conformance/langchain.sh

clean:
	rm -rf bin data bench/out
