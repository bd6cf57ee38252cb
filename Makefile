# verdict: build, demo and test.
#
#   make demo   build verdict and run it on the built-in sample data: bundles,
#               out/report.xlsx, out/report.html, out/report.md, out/plots/
#   make test   vet and run every test (the real-tool corpus in ../shared is
#               used when present and skipped otherwise)
#   make bench  run the benchmarks
#   make bench-compare  verdict against DuckDB and openpyxl on the same
#               generated inputs, the README's performance table (BENCH_N
#               records, BENCH_ROUNDS rounds; BENCH_ONLY=aiperf,sheet runs
#               some jobs)
#   make fuzz   run each fuzz test for a short while

GO      ?= go
BIN     := bin/verdict
OUT     := out
DEMO    := testdata/demo
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# go-nvml's cgo wrappers call NVML functions its header marks deprecated; the C
# compiler's warnings about them are noise, so make's builds silence them.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: all build demo test test-interop vet bench bench-compare fuzz clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/verdict

demo: build
	@mkdir -p $(OUT)
	$(BIN) ingest --force --sut $(DEMO)/sut-a.yaml --label platform=a -o $(OUT)/platform-a.bundle $(DEMO)/platform-a.json
	$(BIN) ingest --force --sut $(DEMO)/sut-b.yaml --label platform=b -o $(OUT)/platform-b.bundle $(DEMO)/platform-b.json
	$(BIN) show $(OUT)/platform-a.bundle
	$(BIN) report --force --quote $(DEMO)/quote-a.yaml --quote $(DEMO)/quote-b.yaml \
	  --xlsx $(OUT)/report.xlsx --html $(OUT)/report.html --markdown $(OUT)/report.md --plots $(OUT)/plots \
	  $(OUT)/platform-a.bundle $(OUT)/platform-b.bundle

vet:
	$(GO) vet ./...

# The report's client tests (LibreOffice, Chromium, cmark-gfm) skip when the
# client is missing; make test says so at the end, and how to run them.
CLIENTS := soffice chromium cmark-gfm pdftotext
test: vet
	@rc=0; $(GO) test -count=1 ./... || rc=$$?; \
	missing=""; for c in $(CLIENTS); do command -v $$c >/dev/null || \
	  { [ $$c = chromium ] && command -v chromium-browser >/dev/null; } || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make test: the client tests of$$missing were SKIPPED (not installed)."; \
	  echo "  To run them: apt-get install libreoffice-calc chromium cmark-gfm poppler-utils, then VERDICT_REQUIRE_CLIENTS=1 make test (or .ci/run)."; \
	fi; exit $$rc

# The DuckDB interop tests live in their own module (interop/) so that the
# main module does not depend on DuckDB's cgo bindings.
test-interop:
	cd interop && $(GO) test -mod=mod -count=1 ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# verdict and DuckDB (interop/cmd/duckpct) in the same rounds; openpyxl
# where a python has it. Inputs are generated once into BENCH_DIR and kept.
BENCH_N      ?= 1000000
BENCH_ROUNDS ?= 3
BENCH_DIR    ?= /tmp/verdict-bench-compare
BENCH_ONLY   ?=
bench-compare: build
	cd interop && $(GO) build -mod=mod -o ../bin/duckpct ./cmd/duckpct
	$(GO) test -c -o bin/xlsx.test ./render/xlsx
	$(GO) run ./internal/tools/benchcompare -n $(BENCH_N) -rounds $(BENCH_ROUNDS) -dir $(BENCH_DIR) \
	  -verdict $(BIN) -duckdb bin/duckpct -xlsx-test bin/xlsx.test -only "$(BENCH_ONLY)"

# Each fuzz target runs for FUZZTIME; go test -fuzz takes one target at a time.
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin $(OUT)
