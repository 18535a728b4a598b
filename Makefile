# Whodunnet. `make dev` starts the console; `make test` runs every test. See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NPM := npm
TEST_ENV := DJANGO_SECRET_KEY=test-only-not-secret
# uv (installed into the venv by pip, from the registry) installs the pinned requirements: the same packages as pip,
# downloaded and unpacked in parallel. Where it cannot (say, an index only pip.conf knows), pip does the install.
# No byte-compiling here: compileall does it below on every core. Measured in decision 0020.
UV_VERSION := 0.13.9
pip_install = { $(PY) -m pip install --quiet uv==$(UV_VERSION) && $(VENV)/bin/uv pip install --quiet --python $(PY) $(1); } \
  || { echo "uv could not install the requirements; pip will"; $(PY) -m pip install --quiet --no-compile $(1); }

.PHONY: install install-console dev test lint typecheck schema schema-check test-workers test-backend test-frontend e2e bench bench-load fuzz demo clean

# Everything, for the tests: the console's runtime plus the test toolchain (pytest, mypy, hypothesis, atheris,
# linters; the frontend's test and lint packages; Playwright for the browser tests).
install: $(VENV)/.installed frontend/node_modules/.installed e2e/node_modules/.installed install-console
	@$(PY) -m whodunnet.capture.warm  # numba's compile happens here, not in a test's first analysis

# Only what the console needs to run (`make dev`): the runtime requirements and the packages that build the
# frontend (its `dependencies`: the build tools are there too). No type checks on this path: `make typecheck`.
# The capture kernel's numba compile (about 40 s) is not on this path either: the analysis worker compiles it when
# it starts, before it takes a task, while the console already answers (config/celery.py; decision 0020).
install-console: $(VENV)/.runtime frontend/node_modules/.build frontend/dist/index.html
	@# Our own code is installed editable, so the step above left it uncompiled: every `whodunnet analyze` compiled
	@# ~120 modules at start (0.19 s of a 0.83 s run on a 2 MB capture). Only what changed since is compiled again.
	@$(PY) -m compileall -q -j 0 -x '/(tests|migrations|node_modules)/' workers/whodunnet backend >/dev/null

$(VENV)/.runtime: backend/requirements.txt workers/pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	$(PYTHON) -m venv $(VENV) || { echo "python3 -m venv failed: on Debian/Ubuntu run 'apt-get install python3-venv'"; exit 1; }
	$(call pip_install,-r backend/requirements.txt -e workers)
	@# Byte-compiled once, all cores at once (pip's own compile is serial): where PYTHONDONTWRITEBYTECODE is set, as
	@# here, every web and worker process would otherwise compile its imports at start (a web worker: ~14 MiB more).
	$(PY) -m compileall -q -j 0 "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null
	touch $@

$(VENV)/.installed: $(VENV)/.runtime backend/requirements-dev.txt
	$(call pip_install,-r backend/requirements-dev.txt)
	touch $@

# A tree with every package (from `make install`) also builds; otherwise install only `dependencies`.
frontend/node_modules/.build: frontend/package.json frontend/package-lock.json
	if [ -f frontend/node_modules/.installed ] && [ frontend/node_modules/.installed -nt frontend/package-lock.json ]; then \
	  touch $@; \
	else \
	  cd frontend && $(NPM) ci --omit=dev --no-audit --no-fund --loglevel=error && touch node_modules/.build; \
	fi

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@ frontend/node_modules/.build

frontend/dist/index.html: frontend/node_modules/.build $(shell find frontend/src frontend/index.html -type f 2>/dev/null)
	cd frontend && $(NPM) run build --silent

e2e/node_modules/.installed: e2e/package.json e2e/package-lock.json
	cd e2e && $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

# The Python and the frontend installs run side by side (-j2): one waits on disk while the other computes.
dev:
	$(MAKE) --no-print-directory -j2 install-console
	$(PY) scripts/dev.py

# The console with four finished investigations (demo/, recorded in network namespaces by demo/record.py).
demo:
	$(MAKE) --no-print-directory -j2 install-console
	WHODUNNET_DEMO=1 $(PY) scripts/dev.py

# lint-imports checks the contracts in .importlinter: the engine never imports Django or the backend, backend
# apps import only the layers below them, no import cycles inside an app.
lint: install
	$(VENV)/bin/ruff check backend workers scripts bench demo
	$(VENV)/bin/ruff format --check backend workers scripts bench demo
	PYTHONPATH=backend $(VENV)/bin/lint-imports --no-logo --no-cache
	@if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then \
		DJANGO_SECRET_KEY=lint WHODUNNET_S3_SECRET_ACCESS_KEY=lint docker compose config --quiet && echo "docker-compose.yml is valid"; \
	else echo "docker compose is not installed: docker-compose.yml not validated"; fi
	cd frontend && $(NPM) run --silent check:api || { echo "frontend/src/api/schema.d.ts is stale against backend/openapi.yml: run 'make schema' and commit both"; exit 1; }
	cd frontend && $(NPM) run --silent lint

typecheck: install
	cd backend && $(TEST_ENV) DATABASE_URL=postgres://unused/x CELERY_BROKER_URL=redis://unused ../$(VENV)/bin/mypy .
	$(VENV)/bin/mypy --strict workers/whodunnet
	cd frontend && $(NPM) run --silent typecheck

schema: install
	cd backend && $(TEST_ENV) DATABASE_URL=postgres://unused/x CELERY_BROKER_URL=redis://unused ../$(PY) manage.py spectacular --file openapi.yml --validate --fail-on-warn
	cd frontend && $(NPM) run --silent gen:api
	$(PY) scripts/evidence_kinds_fixture.py

test-workers: install
	cd workers && ../$(VENV)/bin/pytest -q

test-backend: install
	$(TEST_ENV) $(PY) scripts/services.py run --data .data/test -- bash -c 'cd backend && ../$(VENV)/bin/pytest -q --create-db'

test-frontend: install
	cd frontend && $(NPM) test --silent

e2e: install
	rm -rf .data/e2e
	$(TEST_ENV) $(PY) scripts/services.py run --data .data/e2e -- $(PY) scripts/e2e.py

test: install lint typecheck test-workers test-backend test-frontend e2e
	@echo "make test: every suite passed"

bench: install
	mkdir -p .data/bench
	$(PY) bench/upload_memory.py
	$(PY) workers/bench/bench_shapes.py --dir .data/bench

# 50 readers of the timeline and evidence list during two analyses and a bisect, against a running `make dev`
# (the same WHODUNNET_PORT). Not part of `make test`: a figure, not a pass or fail.
bench-load: install
	$(PY) bench/load.py

FUZZ_SECONDS ?= 300
# One fuzz target for every evidence kind (and content detection); new inputs stay in .data/fuzz/<kind>.
fuzz: install
	for target in sniff $$($(PY) -c 'from whodunnet import registry; print(*registry.names())'); do \
	  echo "== $$target ($(FUZZ_SECONDS) s)"; \
	  mkdir -p .data/fuzz/$$target; \
	  (cd .data/fuzz && ../../$(PY) ../../workers/fuzz/fuzz_kind.py $$target $$target -max_total_time=$(FUZZ_SECONDS) \
	    -rss_limit_mb=1024 -max_len=65536) || exit 1; \
	done

clean:
	rm -rf .data/test .data/e2e frontend/dist
