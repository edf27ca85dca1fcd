# One command to run the app, one to run the tests; each builds .venv on first use with what it
# needs: `make run` the core and the app extra (camcf[app]), `make test` everything the tests
# use (camcf[test]: the app, Dask, pytest, ruff, playwright). The install is reproducible: pip
# installs with constraints.txt, the exact versions the test suite last passed with. `make upgrade` re-resolves to the newest versions, reruns the tests and
# rewrites constraints.txt only when they pass.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
APP_STAMP := $(VENV)/.installed-app
CONSTRAINTS := constraints.txt
# The app listens on this machine only; see README "Serving the app on a network".
ADDRESS ?= 127.0.0.1
PORT    ?= 8501
# Streamlit's file watcher (reload the app when a source file changes) costs CPU on a big tree
# (.venv included): off unless a developer asks with `make run DEV=1`.
DEV ?=
WATCHER := $(if $(DEV),auto,none)

.PHONY: run test lint bench fuzz upgrade browser-deps clean

$(BIN)/pip:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# everything the tests use (the app and Dask included)
$(STAMP): pyproject.toml $(CONSTRAINTS) | $(BIN)/pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e '.[test]'
	touch $(STAMP) $(APP_STAMP)

# the core and the app
$(APP_STAMP): pyproject.toml $(CONSTRAINTS) | $(BIN)/pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e '.[app]'
	touch $(APP_STAMP)

run: $(APP_STAMP)
	$(BIN)/streamlit run app.py --server.headless true --browser.gatherUsageStats false \
		--server.address $(ADDRESS) --server.port $(PORT) --server.fileWatcherType $(WATCHER)

# The suite on TEST_WORKERS processes (pytest-xdist): each browser test module whole in one of
# them (tests/conftest.py groups them), everything else spread test by test.
# `make test TEST_WORKERS=0` runs it in this process alone.
# Bytecode caches are written even where the environment says not to (PYTHONDONTWRITEBYTECODE):
# otherwise every process the suite starts (servers, workers, CLI runs, each xdist worker's
# collection) compiles camcf and rewrites the tests' asserts again from source.
TEST_WORKERS ?= 2
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadgroup)

test: $(STAMP)
	$(PYTEST)

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

fuzz: $(STAMP)
	$(BIN)/python benchmarks/fuzz_long.py

# Re-resolve every dependency to its newest version in a fresh environment, run the tests there,
# and only if they pass write the resolved versions to constraints.txt and switch to them.
upgrade:
	rm -rf $(VENV).upgrade
	$(PYTHON) -m venv $(VENV).upgrade
	$(VENV).upgrade/bin/pip install --quiet --upgrade pip
	$(VENV).upgrade/bin/pip install --quiet --upgrade -e '.[test]'
	$(VENV).upgrade/bin/python -m pytest -q -p no:cacheprovider $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadgroup)
	$(VENV).upgrade/bin/pip freeze --exclude-editable --all \
		| grep -v -i -E '^(pip|setuptools|wheel)==' > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf $(VENV).upgrade $(VENV)
	$(MAKE) $(STAMP)
	@echo "constraints.txt updated (the tests passed with it); commit it"

clean:
	rm -rf $(VENV) $(VENV).upgrade .pytest_cache
