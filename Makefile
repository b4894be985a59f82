# Everything builds from nothing: `make run` and `make test` create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
FLASK := $(BIN)/flask --app wsgi
HOST ?= 127.0.0.1
PORT ?= 8000
# What processes import from the checkout: compiled ahead, as PYTHONDONTWRITEBYTECODE=1 would
# have every process the suite starts compile it again.
SOURCES := app harness tests bench clients wsgi.py gunicorn.conf.py

.PHONY: run test test-tools lint bytecode client settings-table bench bench-tools bench-webhooks bench-instructions bench-split bench-scale chaos clean

# Installs requirement files into the venv, libraries' bytecode compiled: with uv (the one on
# PATH, else pip puts it into the venv), seconds of CPU where pip takes a minute; with pip when
# uv cannot be had or fails (it reads no pip.conf), or with `make INSTALLER=pip`.
INSTALLER ?= uv
PIP_INSTALL := $(BIN)/pip install --quiet --disable-pip-version-check
install = uv=$$(command -v uv || echo $(BIN)/uv); \
	if [ "$(INSTALLER)" = uv ] && { [ -x "$$uv" ] || $(PIP_INSTALL) uv; } && \
	  echo "uv pip install $(1)" && \
	  $$uv pip install --quiet --python $(BIN)/python --compile-bytecode $(1); then :; \
	else echo "pip install $(1)" && $(PIP_INSTALL) $(1); fi

# mkdir first: the linters' folder may be made inside .venv while venv creates it.
$(VENV)/.runtime: requirements.txt
	mkdir -p $(VENV) && $(PYTHON) -m venv $(VENV)
	@$(call install,-r requirements.txt)
	touch $@

$(VENV)/.test: $(VENV)/.runtime tests/requirements.txt
	@$(call install,-r tests/requirements.txt)
	touch $@

# The OpenAPI linters the suite runs, pinned with their dependencies in package-lock.json.
$(VENV)/.npm: package.json package-lock.json
	mkdir -p $(VENV)/npm && cp package.json package-lock.json $(VENV)/npm/
	npm ci --prefix $(VENV)/npm --no-audit --no-fund --loglevel=error
	touch $@

bytecode: $(VENV)/.runtime
	$(BIN)/python -m compileall -q $(SOURCES)

# harness/dev_server.py: refuses a bad PORT or a busy port in one line, migrates, reuses its
# development token (instance/dev-token) while it is valid, and announces once gunicorn answers.
run: $(VENV)/.runtime bytecode
	@$(BIN)/python -m harness.dev_server "$(HOST)" "$(PORT)"

lint: $(VENV)/.test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

# pytest-xdist workers: most end-to-end cases wait on servers, so they overlap. On 2 cores, from
# a fresh clone: once 241 to 262 s with 4 and 250 s with 6; on a slower day 540 to 573 s with 4,
# each of three runs failing one case (two on a timing bound), and 542 s with 3, passing. 3 costs
# no time there, and leaves the processes of the end-to-end cases more of the CPU.
TEST_WORKERS ?= 3

# The venv and the linters install side by side (-j2; either failing fails make), then lint.
# pytest may keep its rewritten test modules, as `bytecode` keeps the rest: with
# PYTHONDONTWRITEBYTECODE=1 each of its processes would rewrite them again (2 s of CPU each).
test: test-tools
	$(MAKE) --no-print-directory -j2 $(VENV)/.test $(VENV)/.npm
	$(MAKE) --no-print-directory lint bytecode
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder

# The Debian packages whose programs the suite runs: its own PostgreSQL, PgBouncer and Redis
# servers, nginx, Chromium, iproute2's ss (sockets still connecting), and curl (the docs' shell
# examples). Installed here when
# run as root, else named (the tests needing them skip).
test-tools:
	@PATH="$$PATH:/usr/sbin"; missing=""; \
	ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null || \
	  missing="$$missing postgresql"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v pgbouncer >/dev/null || missing="$$missing pgbouncer"; \
	command -v nginx >/dev/null || missing="$$missing nginx-light"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v ss >/dev/null || missing="$$missing iproute2"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
	  echo "Installing with apt-get, as make runs as root:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	elif [ -n "$$missing" ]; then echo "Tests that need them will skip; to run them: sudo apt-get install$$missing"; fi

# wrk, nginx and its echo module (the receiver 50 ms away) are Debian packages: installed here
# when run as root, else named.
BENCH_PACKAGES := wrk nginx-light libnginx-mod-http-echo
bench-tools:
	@PATH="$$PATH:/usr/sbin"; command -v wrk >/dev/null && command -v nginx >/dev/null && \
	[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || \
	if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PACKAGES); \
	else echo "make bench needs: sudo apt-get install $(BENCH_PACKAGES)"; exit 1; fi

bench: $(VENV)/.runtime bench-tools
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.webhooks

bench-webhooks: $(VENV)/.runtime bench-tools
	$(BIN)/python -m bench.webhooks

bench-instructions: $(VENV)/.runtime
	@command -v valgrind >/dev/null || \
	if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; \
	else echo "make bench-instructions needs valgrind: sudo apt-get install valgrind"; exit 1; fi
	$(BIN)/python bench/instructions.py

# Each scrape, feed page, retention pass and worker round at 1,000 rows and at 1,000,000, with
# one webhook endpoint and with 1,000 (docs/performance.md): callgrind's instructions on
# SQLite; on a PostgreSQL server of its own (tests/support/local_servers.py), shared buffers.
bench-scale: $(VENV)/.test
	@command -v valgrind >/dev/null || \
	if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; \
	else echo "make bench-scale needs valgrind: sudo apt-get install valgrind"; exit 1; fi
	PYTHONPATH=tests $(BIN)/python -m bench.scale

# A create's and a read's instructions by part, beside the floor's (docs/performance.md).
bench-split: $(VENV)/.runtime
	@command -v valgrind >/dev/null || { echo "make bench-split needs valgrind: see make bench-instructions"; exit 1; }
	$(BIN)/python -m bench.split

# A seeded fault schedule over two hosts, PgBouncer and PostgreSQL, and its checker
# (docs/durability.md, "The fault schedule"): exits 1 when the checker finds a violation.
SEED ?= 1
DURATION ?= 60
chaos: $(VENV)/.test test-tools bytecode
	PYTHONPATH=tests $(BIN)/python -m harness.chaos.run --seed $(SEED) --duration $(DURATION)

# Regenerates the typed client in clients/python from the service's document (docs/client.md).
client: $(VENV)/.test
	$(BIN)/python -m clients.generate

# Writes the tables of every setting into docs/configuration.md from the settings' specs
# (app/config_spec.py); tests/test_documentation.py fails while the page and the specs differ.
settings-table: $(VENV)/.runtime
	$(FLASK) settings table docs/configuration.md

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
