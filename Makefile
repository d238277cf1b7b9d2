# Every target creates .venv and installs the pinned dependencies itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

BASE_URL ?=
API_KEY ?=
CONFORMANCE_ARGS ?=
# Extra pytest arguments, e.g. PYTEST_ARGS='-m "not slow"' for a quicker local run.
PYTEST_ARGS ?=
UPSTREAM ?=
RECORD ?=
CASSETTE ?=
PORT ?=
# API diff: OLD is a file, REV:PATH or a git revision of spec/openapi.yaml (make api-diff OLD=HEAD).
OLD ?=
NEW ?= spec/openapi.yaml
API_DIFF_ARGS ?=
SDK ?=
# Official SDK releases the drift tests compare (cached in the venv; never fetched by a test).
SDK_RELEASES := together==3.0.0 together==2.40.0
# The baseline of the newest docs/api-changelog.md entry (the spec as info.version 0.5.0 left it).
CHANGELOG_BASELINE ?= 99c251c

# The client kit: the driver to judge (default: the wrapper's) and extra arguments.
DRIVER ?= $(BIN)/python -m together_rl_client_kit.drivers.wrapper
CLIENT_KIT_ARGS ?=
# Wheels of every pinned dependency (and the build backend), for the offline wheel test.
WHEELHOUSE := $(VENV)/wheelhouse
TS_PORT := client_kit/ports/typescript
# make dist: where the sdist and the wheel go.
DIST ?= dist
# The ports (ports/, client_kit/ports/typescript): Debian packages of their toolchains and
# libraries, installed by `make ports-setup` when missing (apt-get, as root); build caches go to
# $(PORTS_CACHE), outside the clone.
PORTS_DEBS := golang-go librust-reqwest-dev librust-serde-dev librust-serde-derive-dev \
	librust-serde-json-dev librust-serde-repr-dev librust-url-dev librust-chrono-dev \
	libjakarta-annotation-api-java
PORTS_STAMP := $(VENV)/.ports-setup
export TOGETHER_RL_PORTS_CACHE ?= $(HOME)/.cache/together-rl-ports

.PHONY: all test conformance proxy replay generate derive provenance lint vectors bench reliability clean venv dist \
	api-diff api-changelog sdk-drift client-kit client-kit-sdk-report ports ports-setup

all: test

$(STAMP): pyproject.toml requirements.lock $(TS_PORT)/package-lock.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet -c requirements.lock -e '.[dev]'
	$(foreach r,$(SDK_RELEASES),$(BIN)/python -m pip download --quiet --no-deps --dest $(VENV)/sdk-releases '$(r)' &&) true
	# tests/packaging/test_wheel.py installs the wheel into a fresh venv with no network from these.
	$(BIN)/python -m pip wheel --quiet -c requirements.lock --wheel-dir $(WHEELHOUSE) \
	    '.[emulator,conformance,client-kit]' setuptools
	rm -f $(WHEELHOUSE)/together_rl_toolkit-*.whl
	# The TypeScript port of tests/client_kit (skipped there, visibly, without npm; fails under CI).
	if command -v npm >/dev/null; then cd $(TS_PORT) && npm ci --no-audit --no-fund --loglevel=error; \
	    else echo "npm not found: the TypeScript port's test will skip (fail under CI=true)"; fi
	touch $(STAMP)

venv: $(STAMP)

## The ports' toolchains and libraries: Debian packages (apt-get only for those missing; cargo
## too when no Rust toolchain is on PATH) and the typescript-fetch port's npm packages.
$(PORTS_STAMP): $(STAMP) ports/typescript-fetch/package-lock.json
	missing="$$(for p in $(PORTS_DEBS); do dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null \
	    | grep -q 'ok installed' || echo "$$p"; done; command -v cargo >/dev/null || echo cargo; \
	    command -v javac >/dev/null || echo default-jdk-headless)"; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	            --no-install-recommends $$missing; \
	    else echo "ports: missing Debian packages: $$missing (the ports' tests skip; fail under CI=true)"; \
	        exit 0; fi; \
	fi; \
	if command -v npm >/dev/null; then cd ports/typescript-fetch && npm ci --no-audit --no-fund --loglevel=error; fi; \
	touch $(CURDIR)/$(PORTS_STAMP)

ports-setup: $(PORTS_STAMP)

## Generate, build and run every port against the emulator (tests/ports; docs/ports-typed-clients.md).
ports: $(PORTS_STAMP)
	$(BIN)/python -m pytest tests/ports $(PYTEST_ARGS)

## What an edit of the spec breaks, for clients and servers: make api-diff OLD=HEAD [NEW=...].
api-diff: $(STAMP)
	$(if $(OLD),,$(error give the old document: make api-diff OLD=HEAD (a file, REV:PATH or a revision)))
	$(BIN)/together-rl-api-diff '$(OLD)' '$(NEW)' $(API_DIFF_ARGS)

## Rewrite the newest entry of docs/api-changelog.md (after bumping info.version if it says so).
api-changelog: $(STAMP)
	$(BIN)/together-rl-api-diff '$(CHANGELOG_BASELINE)' spec/openapi.yaml --format markdown \
	    --impact no --write-changelog docs/api-changelog.md >/dev/null

## Where the spec stands against an upstream: make sdk-drift SDK=together==3.1.1 (an official
## release), SDK=doc.json (Together's OpenAPI documents, files or URLs) or SDK=REV (a revision).
sdk-drift: $(STAMP)
	$(if $(SDK),,$(error give the upstream: make sdk-drift SDK=together==3.1.1 (or a document, a revision)))
	$(BIN)/together-rl-sdk-drift '$(SDK)' --cache $(VENV)/sdk-releases $(API_DIFF_ARGS)

## Regenerate generated/together_rl_client from spec/openapi.yaml (never edit generated/ by hand).
generate: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/openapi-python-client generate \
	    --path spec/openapi.yaml --output-path generated/together_rl_client \
	    --meta none --config spec/generator.yaml --custom-template-path spec/templates \
	    --overwrite --fail-on-warning
	rm -rf generated/together_rl_client/.ruff_cache
	$(BIN)/python scripts/derive_fields.py

## Derive the wrapper's field lists from the spec (_fields.py) and its sync twins (_sync.py,
## _sync_http.py) from their async sources.
derive: $(STAMP)
	$(BIN)/python scripts/derive_fields.py
	$(BIN)/python scripts/unasync.py

## All tests: lint, spec, generated client freshness, emulator, wrapper, in-process contract suite.
## Prints what ran (pytest -ra: every skip with its reason; a last line with the counts and
## the marker selection). Under CI=true (.ci/run) a missing project tool fails instead of skipping.
test: lint $(PORTS_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

## The contract suite: against the embedded emulator, or BASE_URL=... API_KEY=... for another server.
## Exit code: 0 passed, 1 the target does not conform, 2 it could not be checked (make reports "Error N").
## Not echoed, and the key goes by the environment: no printed line and no process list shows it.
conformance: $(STAMP)
	@$(if $(API_KEY),TOGETHER_API_KEY='$(API_KEY)') $(BIN)/python -m together_rl_contract_tests \
	    $(if $(BASE_URL),--base-url $(BASE_URL)) $(CONFORMANCE_ARGS)

## Check live traffic: forward to UPSTREAM (root, no /v1), validate every exchange against the spec,
## RECORD=run.jsonl writes a cassette; Ctrl-C writes reports/proxy.md (see docs/proxy.md).
proxy: $(STAMP)
	$(if $(UPSTREAM),,$(error give the server root: make proxy UPSTREAM=https://api.together.ai))
	$(BIN)/python -m together_rl_contract_tests proxy --upstream $(UPSTREAM) $(if $(RECORD),--record $(RECORD)) $(if $(PORT),--port $(PORT))

## Serve a recorded run back offline: make replay CASSETTE=run.jsonl [PORT=8767].
replay: $(STAMP)
	$(if $(CASSETTE),,$(error give the cassette: make replay CASSETTE=run.jsonl))
	$(BIN)/python -m together_rl_contract_tests replay $(CASSETTE) $(if $(PORT),--port $(PORT))

## Rewrite docs/provenance.md: every rule of spec/openapi.yaml with its x-source (make test checks it fresh).
provenance: $(STAMP)
	$(BIN)/python scripts/provenance_table.py

## Regenerate the shared request/response vectors for ports (contract_tests/together_rl_contract_tests/vectors, seed 0).
vectors: $(STAMP)
	$(BIN)/python -m together_rl_contract_tests.vectors

## The client kit against a driver (default: the wrapper's): make client-kit [DRIVER="node my_driver.js"]
## [CLIENT_KIT_ARGS="--format junit --output reports/client-kit.xml"]. See docs/ports.md.
client-kit: $(STAMP)
	$(BIN)/together-rl-client-kit --driver "$(DRIVER)" $(CLIENT_KIT_ARGS)

## Rerun the kit against the official SDK's driver and rewrite its results table in docs/ports.md.
client-kit-sdk-report: $(STAMP)
	$(BIN)/together-rl-client-kit --driver "$(BIN)/python -m together_rl_client_kit.drivers.official_sdk" \
	    --publish docs/ports.md --output reports/client-kit-official-sdk.md

## Benchmarks (not tests): rewrite their tables in docs/benchmarks.md (a few minutes). Run on a
## quiet machine (1-min load average under 0.5); each table records its load, date and command.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -c requirements.lock -e '.[dev,plots]'  # the traces' plot
	if command -v npm >/dev/null; then cd $(TS_PORT) && npm run --silent build; fi  # a client compared
	$(BIN)/python -m benchmarks.bench_emulator
	$(BIN)/python -m benchmarks.bench_wrapper
	$(BIN)/python -m benchmarks.bench_proxy
	$(BIN)/python -m benchmarks.bench_api_diff
	$(BIN)/python -m benchmarks.bench_client_kit
	$(BIN)/python -m benchmarks.bench_polling_traces
	$(BIN)/python -m benchmarks.bench_polling_emulator

## The long reliability proofs : fault soak, crash loop, load, hostile input, access, shared use,
## schemathesis negative mode; writes the figures into docs/reliability.md. The fast subset runs in `make test`.
reliability: $(STAMP)
	$(BIN)/python -m reliability

## The sdist and the wheel in $(DIST)/ (PEP 517, pinned setuptools, no isolation, no network),
## reproducible: SOURCE_DATE_EPOCH is the commit's time (or given), so a commit gives the same
## wheel bytes. Then their metadata is checked (scripts/check_dist.py). See README.md.
dist: $(STAMP)
	rm -rf $(DIST)
	epoch="$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null)}"; \
	    test -n "$$epoch" || { echo "make dist: no git commit here: give SOURCE_DATE_EPOCH" >&2; exit 2; }; \
	    SOURCE_DATE_EPOCH="$$epoch" $(BIN)/python -m build --no-isolation --outdir $(DIST) .
	$(BIN)/python scripts/check_dist.py $(DIST)

lint: $(STAMP)
	$(BIN)/ruff check spec_reader/together_rl_spec wrapper emulator apidiff contract_tests client_kit tests benchmarks reliability examples scripts
	$(BIN)/ruff format --check spec_reader/together_rl_spec wrapper emulator apidiff contract_tests client_kit tests benchmarks reliability examples scripts
	$(BIN)/mypy

clean:
	rm -rf $(VENV) reports .pytest_cache $(TS_PORT)/node_modules $(TS_PORT)/dist $(TS_PORT)/src/api.d.ts
	rm -rf ports/go/rlapi ports/*/generated ports/*/.build ports/*/dist ports/typescript-fetch/node_modules \
	    $(TS_PORT)/.build
