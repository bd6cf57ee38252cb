# verdict: build, demo and test.
#
#   make demo   build verdict and run it on the built-in sample data: bundles,
#               out/report.xlsx, out/report.html, out/report.md, out/plots/
#   make test   vet and run every test (the real-tool corpus in ../shared is
#               used when present and skipped otherwise)
#   make bench  run the benchmarks
#   make fuzz   run each fuzz test for a short while

GO      ?= go
BIN     := bin/verdict
OUT     := out
DEMO    := testdata/demo
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build demo test test-interop vet bench fuzz clean

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

test: vet
	$(GO) test -count=1 ./...

# The DuckDB interop tests live in their own module (interop/) so that the
# main module does not depend on DuckDB's cgo bindings.
test-interop:
	cd interop && $(GO) test -mod=mod -count=1 ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

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
