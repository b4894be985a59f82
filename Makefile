# Everything builds from nothing: `make run` and `make test` create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
FLASK := $(BIN)/flask --app wsgi
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint clean

$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.test: $(VENV)/.runtime tests/requirements.txt
	$(BIN)/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
	touch $@

run: $(VENV)/.runtime
	$(FLASK) init-db
	@if [ -z "$$PLANTSTORE_API_TOKENS" ]; then \
	  PLANTSTORE_API_TOKENS=$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(32))'); \
	  export PLANTSTORE_API_TOKENS; \
	  echo "Development token (PLANTSTORE_API_TOKENS was empty): $$PLANTSTORE_API_TOKENS"; \
	fi; \
	token=$${PLANTSTORE_API_TOKENS%%,*}; \
	echo "Serving on http://$(HOST):$(PORT). Try:"; \
	echo "  curl -i -H 'Authorization: Bearer '$$token -H 'Content-Type: application/json' \\"; \
	echo "       -d '{\"id\": 1, \"name\": \"Monstera\", \"tag\": \"tropical\"}' http://$(HOST):$(PORT)/plants"; \
	exec $(BIN)/gunicorn --bind $(HOST):$(PORT) wsgi:app

lint: $(VENV)/.test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
