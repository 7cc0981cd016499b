# hive's build. `make test` is what CI runs (.ci/run): it installs whatever
# the tests need, then vets and tests everything.
GO       ?= go
NPM      ?= npm
FUZZTIME ?= 60s

# The agent CLIs the adapter tests run, pinned (DESIGN.md measured these
# versions). They install from the npm registry into .tools/ (git-ignored)
# and are reused while the versions match.
CLAUDE_CODE_VERSION ?= 2.1.330
CODEX_VERSION       ?= 0.169.0
TOOLS               := .tools
TOOLS_STAMP         := $(TOOLS)/.installed-claude-$(CLAUDE_CODE_VERSION)-codex-$(CODEX_VERSION)

.PHONY: all build test test-times vet fuzz chaos crashpoints bench demo docs clean tools browser python temporal gh

all: build

build:
	$(GO) build -o bin/hive ./cmd/hive

# The crash and full-disk tests need hive's fault hooks, which only a build
# with the faults tag has (never the product): the tests are built with it,
# and vet checks both builds.
TAGS := -tags faults

vet:
	$(GO) vet ./...
	$(GO) vet $(TAGS) ./...

tools: $(TOOLS_STAMP)

$(TOOLS_STAMP):
	@command -v $(NPM) >/dev/null || { echo "npm is needed to install the agent CLIs the tests run (apt-get install nodejs npm)"; exit 1; }
	rm -rf $(TOOLS) && mkdir -p $(TOOLS)
	$(NPM) install --no-audit --no-fund --loglevel=error --prefix $(TOOLS) \
		@anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION) @openai/codex@$(CODEX_VERSION)
	$(TOOLS)/node_modules/.bin/claude --version
	$(TOOLS)/node_modules/.bin/codex --version
	touch $@

# The browser tests of hive serve drive a headless Chromium: Debian's
# chromium package, installed when missing (as root, as in CI; else with
# sudo). Nothing else is downloaded: the tests start it with no network.
CHROMIUM ?= /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends chromium; }
	@$(CHROMIUM) --version 2>/dev/null

# The Python fixtures (the confidence checks' pytest runs, the routing
# bench's Python repository) need python3 and pytest: python3 is installed
# from Debian when missing (as root, or with sudo); pytest, when python3
# cannot import it, is Debian's python3-pytest and the packages it imports,
# downloaded and unpacked into .tools/python (no root needed) and found
# through PYTHONPATH, whichever python3 the machine runs.
PYTEST_DEBS  := python3-pytest python3-pluggy python3-iniconfig python3-packaging python3-attr python3-py
PYTHON_TOOLS := $(TOOLS)/python/usr/lib/python3/dist-packages
python:
	@command -v python3 >/dev/null || { 		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; 		$$sudo apt-get update -qq && 		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends python3; }
	@python3 -c 'import pytest' 2>/dev/null || test -d $(PYTHON_TOOLS)/pytest || { 		rm -rf $(TOOLS)/python $(TOOLS)/debs && mkdir -p $(TOOLS)/debs && cd $(TOOLS)/debs && 		{ apt-get download $(PYTEST_DEBS) 2>/dev/null || { 			sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; 			$$sudo apt-get update -qq && apt-get download $(PYTEST_DEBS); }; } && 		for deb in *.deb; do dpkg -x $$deb ../python; done; }
	@PYTHONPATH=$(CURDIR)/$(PYTHON_TOOLS) python3 -m pytest --version

# The GitHub tests run the real gh CLI against the project's fake GitHub API
# (internal/testsupport/fakegithub): Debian's gh package, downloaded and
# unpacked into .tools/gh (no root needed), found through HIVE_GH.
GH_TOOLS := $(TOOLS)/gh
GH       := $(GH_TOOLS)/usr/bin/gh
gh:
	@test -x $(GH) || { \
		rm -rf $(GH_TOOLS) $(TOOLS)/gh-deb && mkdir -p $(TOOLS)/gh-deb && cd $(TOOLS)/gh-deb && \
		{ apt-get download gh 2>/dev/null || { \
			sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
			$$sudo apt-get update -qq && apt-get download gh; }; } && \
		dpkg -x gh_*.deb ../gh && cd .. && rm -rf gh-deb; }
	@$(GH) --version | head -1

# The Temporal backend's tests start a dev server: the temporal CLI, built
# from the Go module proxy into .tools/temporal (after `tools`, which wipes
# .tools when the agent CLIs change) and handed to the SDK by path, so that
# nothing is downloaded at test time. v1.9.1 cannot be built this way: its
# go.mod replaces a nested module (cliext) that the proxy does not serve.
TEMPORAL_CLI_VERSION ?= v1.5.1
TEMPORAL             := $(TOOLS)/temporal/temporal
TEMPORAL_STAMP       := $(TOOLS)/temporal/.built-$(TEMPORAL_CLI_VERSION)
temporal: $(TEMPORAL_STAMP)

$(TEMPORAL_STAMP):
	rm -rf $(TOOLS)/temporal && mkdir -p $(TOOLS)/temporal
	GOBIN=$(CURDIR)/$(TOOLS)/temporal $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION)
	$(TEMPORAL) --version
	touch $@

# The tests run with a temporary home (internal/testsupport): the check
# around them fails the run if they changed the developer's ~/.cache/hive.
HIVE_CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hive
TEST_ENV := HIVE_TOOLS=$(CURDIR)/$(TOOLS)/node_modules/.bin HIVE_GH=$(CURDIR)/$(GH) HIVE_CHROMIUM=$(CHROMIUM) HIVE_TEMPORAL=$(CURDIR)/$(TEMPORAL) PYTHONPATH=$(CURDIR)/$(PYTHON_TOOLS)$${PYTHONPATH:+:$$PYTHONPATH}
test: vet tools browser python temporal gh
	@find '$(HIVE_CACHE)' 2>/dev/null | sort > $(TOOLS)/cache-before
	$(TEST_ENV) $(GO) test $(TAGS) -count=1 -timeout 50m ./...
	@find '$(HIVE_CACHE)' 2>/dev/null | sort | diff $(TOOLS)/cache-before - \
		|| { echo "make test changed $(HIVE_CACHE) (lines above): a test ran without testsupport.WithTempHome"; exit 1; }

# The suite as `make test` runs it, timed: each package's wall time and the
# slowest 30 tests (TEST_TIMES_N), from go test -json kept in .tools/test.json.
TEST_TIMES_N ?= 30
test-times: tools browser python temporal gh
	$(TEST_ENV) $(GO) test $(TAGS) -count=1 -timeout 50m -json ./... > $(TOOLS)/test.json; \
		status=$$?; $(GO) run ./internal/testtimes -n $(TEST_TIMES_N) < $(TOOLS)/test.json; exit $$status

# Every fuzz target for FUZZTIME (default 60 s each).
fuzz:
	$(GO) test ./internal/plan/parse -run '^$$' -fuzz '^FuzzParsePlan$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/plan/parse -run '^$$' -fuzz '^FuzzParseSummary$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/config -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/protocol -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/protocol -run '^$$' -fuzz '^FuzzParseReport$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/agent/adapter -run '^$$' -fuzz '^FuzzStreamJSON$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/agent/adapter -run '^$$' -fuzz '^FuzzCodexJSONL$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/plan/planpath -run '^$$' -fuzz '^FuzzSafeRelPath$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/redact -run '^$$' -fuzz '^FuzzRedact$$' -fuzztime $(FUZZTIME)

# The long chaos suite: CHAOS_ITERATIONS seeded runs of a 50-plan phase with
# random faults, one in four a hive run pipeline killed and resumed instead
# (`make test` runs one of each), CHAOS_PARALLEL at once (default: one per
# core). Replay seeds with HIVE_CHAOS_SEED=N,M.
# CHAOS_TIMEOUT bounds the whole (go test -timeout).
CHAOS_ITERATIONS ?= 30
CHAOS_PARALLEL   ?= $(shell nproc 2>/dev/null || echo 2)
CHAOS_TIMEOUT    ?= 240m
chaos:
	HIVE_CHAOS_ITERATIONS=$(CHAOS_ITERATIONS) $(GO) test $(TAGS) -count=1 -timeout $(CHAOS_TIMEOUT) -parallel $(CHAOS_PARALLEL) -run '^TestChaos$$' -v ./internal/cli

# Kill hive at every durable step (journal append, file write, git command)
# of the demo phase's run and of a hive run pipeline, and at 40 moments of
# the demo phase, resuming each (`make test` kills at 6, 6 and 8 of them).
crashpoints:
	HIVE_CRASH_SAMPLE=all HIVE_PIPELINE_KILLS=all HIVE_KILL_ITERATIONS=40 $(GO) test $(TAGS) -count=1 -timeout 240m -parallel $(CHAOS_PARALLEL) -run '^(TestCrashPoints|TestPipelineKills|TestKillAndResume)$$' -v ./internal/cli

# Go benchmarks in a form benchstat reads (save two runs and compare them
# with `benchstat old.txt new.txt`), then `hive bench`: hive's figures
# side by side against their targets. It runs as hive-dev, hive with the
# tokens group (the real claude against the fake model server, test code
# that the hive binary does not link), which needs `make tools`.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	HIVE_TOOLS=$(CURDIR)/$(TOOLS)/node_modules/.bin $(GO) run ./cmd/hive-dev bench

demo:
	$(GO) run ./cmd/hive demo

# The command reference, generated from the cobra tree: Markdown pages in
# docs/commands, man pages in docs/man. A test (internal/cli/gendocs)
# fails when they are stale.
docs:
	$(GO) run ./internal/cli/gendocs docs

clean:
	rm -rf bin $(TOOLS)
