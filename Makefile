# The README's two commands: `make run` and `make test`. Both install what is missing first.
SHELL := /bin/bash
# Python may cache compiled modules (git ignores __pycache__): with PYTHONDONTWRITEBYTECODE set, as
# on some machines, every `serve`, bridge and test worker would compile src/ and pytest would
# rewrite every test module again (about 0.15 s and 7 s of CPU each).
unexport PYTHONDONTWRITEBYTECODE
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
FRONT_STAMP := frontend/node_modules/.installed
FRONT_BUILD := src/agentchat/static/index.html
# Unset: `agentchat serve` takes AGENTCHAT_HOST / AGENTCHAT_PORT, else 127.0.0.1:8000.
HOST ?=
PORT ?=

.PHONY: setup run test check lint typecheck pytest pytest-quick frontend frontend-test services \
	browser bench dist clean api-types api-types-check durations pytest-main pytest-e2e \
	pytest-late test-checks test-browser-lane

# What running needs (requirements.lock) for `make run`; the test tools on top for the rest.
setup: $(STAMP) $(FRONT_BUILD)

$(BIN)/uv:
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check "uv==$(UV_VERSION)"

$(RUN_STAMP): pyproject.toml requirements.lock | $(BIN)/uv
	@$(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -r requirements.lock
	@$(BIN)/uv pip install -q --python $(BIN)/python --no-deps -e .
	@touch $@

# No --compile-bytecode here: it compiles the whole environment again (14 s of CPU on a fresh
# clone), test tools included, of which the tests import a small part (compiled on first use).
$(STAMP): $(RUN_STAMP) requirements-dev.lock
	@$(BIN)/uv pip sync -q --python $(BIN)/python requirements-dev.lock
	@$(BIN)/uv pip install -q --python $(BIN)/python --no-deps -e .
	@touch $@

$(FRONT_STAMP): frontend/package.json frontend/package-lock.json
	@cd frontend && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(FRONT_BUILD): $(FRONT_STAMP) $(shell find frontend/src frontend/index.html frontend/vite.config.* -type f 2>/dev/null)
	@cd frontend && npm run build --silent

frontend: $(FRONT_BUILD)

# `serve` brings the database up to date itself.
run: $(RUN_STAMP) $(FRONT_BUILD)
	$(BIN)/agentchat serve $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))

# dist/agentchat-<version>-py3-none-any.whl (and the sdist), the page inside: see the README.
dist: $(FRONT_BUILD) | $(BIN)/uv
	$(BIN)/uv build --out-dir dist

services:
	@bash scripts/ensure-services.sh

browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

lint: $(STAMP) api-types-check
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/lint-imports --no-logo
	$(BIN)/python scripts/settings_table.py --check

# The page's API types, generated from the app's OpenAPI document (no server started).
# `make api-types` after changing a schema or a route; `make lint` fails while they are stale.
API_TYPES := frontend/src/api/openapi.d.ts
OPENAPI_TS := frontend/node_modules/.bin/openapi-typescript --default-non-nullable false

api-types: $(STAMP) $(FRONT_STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(BIN)/python scripts/openapi.py "$$tmp/openapi.json" && \
	$(OPENAPI_TS) "$$tmp/openapi.json" -o $(API_TYPES) >/dev/null

api-types-check: $(STAMP) $(FRONT_STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(BIN)/python scripts/openapi.py "$$tmp/openapi.json" && \
	$(OPENAPI_TS) "$$tmp/openapi.json" -o "$$tmp/openapi.d.ts" >/dev/null && \
	{ diff -q "$$tmp/openapi.d.ts" $(API_TYPES) >/dev/null || \
	  { echo "$(API_TYPES) is stale: run 'make api-types'" >&2; exit 1; }; }

# mypy on src/ and vue-tsc on the page, side by side (one core each).
typecheck: $(STAMP) $(FRONT_STAMP)
	@(cd frontend && npx vue-tsc --noEmit) & page=$$!; \
	$(BIN)/mypy src; api=$$?; wait $$page; page=$$?; \
	test $$api -eq 0 -a $$page -eq 0

# JUnit reports of the last run (ignored by git); scripts/durations.py turns them into
# tests/durations.md, which is committed.
ARTIFACTS := test-artifacts
JUNIT := -o junit_family=xunit1 --junitxml
# Collecting tests/e2e imports Playwright: the runs that do not need it do not collect it.
NOT_E2E := --ignore=tests/e2e -m "not e2e"

frontend-test: $(FRONT_STAMP)
	@mkdir -p $(ARTIFACTS)
	cd frontend && npx vitest run --reporter=dot --reporter=junit \
		--outputFile.junit=../$(ARTIFACTS)/junit-vitest.xml

# Browser tests run in their own pytest process: Playwright's sync API leaves an event loop
# running in the worker, which the asyncio tests of the same worker would trip over.
pytest: pytest-main pytest-e2e pytest-late pytest-tail

# The folders `make test` runs in the browser tests' lane (before them, while the page is
# built), chosen so that the two lanes end together (tests/durations.md shows both):
# pytest-main used to run its last eight minutes alone with a core partly idle.
LATE := tests/security tests/attachments tests/accounts tests/runs tests/chat
# A folder `make test` runs at the end of the checks lane (one worker): from the end of the
# checks until the end of pytest-late, the four workers of pytest-main and pytest-late left a
# fifth of the two cores idle (they wait on the servers they start); these tests wait the most.
TAIL := tests/mcp_servers
# Tests outside tests/e2e that need the built page: they run with the browser tests.
WITH_PAGE := tests/packaging tests/web/test_built_page.py

# Only tests/reliability fuzzes with schemathesis: elsewhere its plugin is not loaded (~0.5 s
# of CPU per pytest process).
NO_FUZZ := -p no:schemathesis

# No built page: these folders do not serve it (`make test` starts them while it is built).
# The same for pytest-late.
pytest-main: $(STAMP) services
	@mkdir -p $(ARTIFACTS)
	$(BIN)/pytest -q -n 2 --dist loadfile $(NOT_E2E) $(addprefix --ignore=,$(LATE) $(TAIL) $(WITH_PAGE)) \
		$(JUNIT)=$(ARTIFACTS)/junit-pytest.xml

pytest-late: $(STAMP) services
	@mkdir -p $(ARTIFACTS)
	AGENTCHAT_TEST_NS=$${AGENTCHAT_TEST_NS:-}late_ $(BIN)/pytest -q -n 2 --dist loadfile \
		$(NO_FUZZ) $(NOT_E2E) $(LATE) $(JUNIT)=$(ARTIFACTS)/junit-pytest-late.xml

pytest-tail: $(STAMP) services
	@mkdir -p $(ARTIFACTS)
	AGENTCHAT_TEST_NS=$${AGENTCHAT_TEST_NS:-}tail_ $(BIN)/pytest -q -p no:xdist \
		$(NO_FUZZ) $(NOT_E2E) $(TAIL) $(JUNIT)=$(ARTIFACTS)/junit-pytest-tail.xml

pytest-e2e: setup services browser
	@mkdir -p $(ARTIFACTS)
	AGENTCHAT_TEST_NS=$${AGENTCHAT_TEST_NS:-}e2e_ $(BIN)/pytest -q -n 2 --dist loadfile \
		$(NO_FUZZ) tests/e2e $(WITH_PAGE) $(JUNIT)=$(ARTIFACTS)/junit-pytest-e2e.xml

# The tests that start no server, no process and no hermes-agent (tests/support/kinds.py).
pytest-quick: $(STAMP) services
	$(BIN)/pytest -q -n 2 $(NOT_E2E) $(addprefix --ignore=,$(WITH_PAGE)) -m "not e2e and not server"

PHASES := $(ARTIFACTS)/phases.tsv
TIMED := scripts/timed $(PHASES)
REPORTS := $(ARTIFACTS)/junit-pytest.xml $(ARTIFACTS)/junit-pytest-e2e.xml \
	$(ARTIFACTS)/junit-pytest-late.xml $(ARTIFACTS)/junit-pytest-tail.xml \
	$(ARTIFACTS)/junit-vitest.xml

# tests/durations.md: the phases, the 30 slowest tests, the time per folder.
durations: $(STAMP)
	@$(BIN)/python scripts/durations.py --phases $(PHASES) $(REPORTS)

# Installing the Python side first, then everything else side by side: the checks (lint,
# types, Vitest), the pytest run and the browser run each leave a core idle while they wait on
# their servers. The pytest run needs no page, so it starts while the checks and the browser
# lanes install and build the page (whichever takes the lock first builds it; the other finds
# it built). Every suite runs to its end; any failure fails the target. Then the durations
# are written.
BESIDE := TIMED_WITHIN="side by side" $(TIMED)
SUB := $(MAKE) --no-print-directory
PAGE_LOCK := $(ARTIFACTS)/page.lock
PAGE = mkdir -p $(ARTIFACTS) && $(BESIDE) "page ($(1))" flock $(PAGE_LOCK) $(SUB) frontend

test:
	@mkdir -p $(ARTIFACTS) && rm -f $(PHASES) $(REPORTS)
	@$(TIMED) install $(SUB) -j3 $(STAMP) services browser
	@rc=0; \
	$(TIMED) "side by side" scripts/side-by-side \
		checks '$(SUB) test-checks' \
		pytest '$(BESIDE) pytest $(SUB) pytest-main' \
		e2e '$(SUB) test-browser-lane' || rc=1; \
	$(SUB) durations; \
	exit $$rc

# The LATE folders (no page needed) while the checks lane builds the page, then the browser
# tests, each to its end.
test-browser-lane:
	@rc=0; \
	$(BESIDE) "pytest late" $(SUB) pytest-late || rc=1; \
	$(call PAGE,browser lane) || rc=1; \
	$(BESIDE) "pytest e2e" $(SUB) pytest-e2e || rc=1; \
	exit $$rc

# lint, types, Vitest and the TAIL folders, one after another, all of them even when one fails.
test-checks:
	@rc=0; \
	$(call PAGE,checks) || rc=1; \
	$(BESIDE) lint $(SUB) lint || rc=1; \
	$(BESIDE) typecheck $(SUB) typecheck || rc=1; \
	$(BESIDE) vitest $(SUB) frontend-test || rc=1; \
	$(BESIDE) "pytest tail" $(SUB) pytest-tail || rc=1; \
	exit $$rc

# While working: lint, types, Vitest and the quick tests (about a minute and a half).
check: $(STAMP) $(FRONT_STAMP) services
	@scripts/side-by-side \
		checks '$(SUB) lint typecheck' \
		vitest '$(SUB) frontend-test' \
		quick '$(SUB) pytest-quick'

# make bench BENCH_ARGS=--quick for smaller sizes (see bench/run_all.py)
bench: setup services browser
	$(BIN)/python bench/run_all.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) frontend/node_modules src/agentchat/static data dist
