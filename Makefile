# hive's build. `make test` is what CI runs (.ci/run): it installs whatever
# the tests need, then vets and tests everything.
GO       ?= go
FUZZTIME ?= 60s

.PHONY: all build test vet fuzz bench demo clean

all: build

build:
	$(GO) build -o bin/hive ./cmd/hive

vet:
	$(GO) vet ./...

test: vet
	$(GO) test -count=1 ./...

# Every fuzz target for FUZZTIME (default 60 s each).
fuzz:
	$(GO) test ./internal/plan -run '^$$' -fuzz '^FuzzParsePlan$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/plan -run '^$$' -fuzz '^FuzzParseSummary$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/config -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/protocol -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)

# Go benchmarks in a form benchstat reads.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/engine ./internal/plan ./internal/journal

demo:
	$(GO) run ./cmd/hive demo

clean:
	rm -rf bin
