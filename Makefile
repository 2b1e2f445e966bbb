# The README's two commands: `make demo` (main job) and `make test` (tests).
# Both install what they need first (`make setup`: idempotent, ~1 s when nothing changed).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LAKEHOUSE_DIR ?= $(CURDIR)/.lakehouse
export LAKEHOUSE_DIR

.PHONY: cluster-packages setup demo test lint bench clean help thrift-start thrift-stop thrift-status cluster-start cluster-restart cluster-stop cluster-status

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

setup: $(STAMP) cluster-packages  ## create .venv, install pinned deps (constraints.txt), provision Iceberg jars, write Spark config and placeholder seeds
	@$(BIN)/python -m python_helpers.runtime.lakehouse --provision --write-defaults
	@$(BIN)/python -m python_helpers.pipeline.placeholders

# The cluster's metastore database and its JDBC driver, from Debian's packages (only when
# missing; without root or a package mirror, a note: the embedded default needs neither).
cluster-packages:
	@if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || ! test -f /usr/share/java/postgresql.jar; then \
		(apt-get install -y -q postgresql libpostgresql-jdbc-java >/dev/null 2>&1 || \
		 (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q postgresql libpostgresql-jdbc-java >/dev/null 2>&1)) || \
		echo "note: could not install postgresql libpostgresql-jdbc-java (needed by make cluster-start only)"; \
	fi

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > $(VENV)/requirements.txt
	$(BIN)/python -m pip install --disable-pip-version-check -q -r $(VENV)/requirements.txt -c constraints.txt
	@touch $@

demo: setup  ## run the main job: day-by-day pipeline on a fresh warehouse
	$(BIN)/python -m python_helpers.pipeline $(DEMO_ARGS)

test: setup  ## run the test suite (real Spark, dbt and Iceberg)
	$(BIN)/python -m pytest $(or $(PYTEST_ARGS),-n 2 --dist loadfile --no-loadscope-reorder)

bench: setup  ## benchmarks into BENCHMARKS.md (generator 1M rows; dbt seed 10k/1M vs plain Spark; day-2 snapshot 10k/100k/1M vs stock and CTAS; snapshot days 2-30 at 100k; a day of 1M-key events vs CTAS; make demo against before the seed work; day-2 1M snapshot on a 2-worker cluster vs local)
	$(BIN)/python -m python_helpers.tooling.bench $(BENCH_ARGS)

# sqlfluff's dbt templater starts Spark; it needs no table, so it runs on a throwaway metastore
# (python_helpers/tooling/private_metastore.py) instead of waiting for the lakehouse's Derby
# one, which admits one JVM, while the pipeline or a notebook holds it.
lint: setup  ## sqlfluff (sparksql: dbt templater for snapshots and models, jinja for macros) and ruff
	$(BIN)/ruff check python_helpers tests
	$(BIN)/ruff format --check python_helpers tests
	$(BIN)/python -m python_helpers.tooling.private_metastore -- $(BIN)/sqlfluff lint snapshots models
	$(BIN)/sqlfluff lint --templater jinja macros

# Spark Thrift Server over the same lakehouse (SPARK_THRIFT_HOST/PORT as for dbt's thrift target;
# THRIFT_ARGS for more options, e.g. THRIFT_ARGS="--timeout 300").
thrift-start: setup  ## start a Spark Thrift Server on the lakehouse (127.0.0.1:10000), wait until ready
	$(BIN)/python -m python_helpers.operations.thrift start $(THRIFT_ARGS)

thrift-stop:  ## stop the Spark Thrift Server (says so when none runs)
	$(BIN)/python -m python_helpers.operations.thrift stop $(THRIFT_ARGS)

thrift-status:  ## is a Spark Thrift Server running? (fails when not: the command exits 3, make 2)
	$(BIN)/python -m python_helpers.operations.thrift status $(THRIFT_ARGS)

# A Spark standalone master and workers with a shared Hive metastore over PostgreSQL
# (docs/cluster.md); CLUSTER_ARGS e.g. "--workers 3" or "--port-offset 100" for start.
cluster-start: setup  ## start a standalone Spark cluster and a shared metastore service on this machine
	$(BIN)/python -m python_helpers.operations.cluster start $(CLUSTER_ARGS)

cluster-restart:  ## restart one part of the cluster, PART=metastore (or postgres, master, worker-N)
	$(BIN)/python -m python_helpers.operations.cluster restart $(PART)

cluster-stop:  ## stop the cluster and its metastore (says so when none runs)
	$(BIN)/python -m python_helpers.operations.cluster stop

cluster-status:  ## what of the cluster runs, with its URLs (fails when nothing runs: the command exits 3, make 2)
	$(BIN)/python -m python_helpers.operations.cluster status

# What the lakehouse writes under LAKEHOUSE_DIR (docs/lakehouse.md): clean removes these, and
# the folder itself only when nothing else is left in it (it may be a folder of the user's).
LAKEHOUSE_ENTRIES := warehouse metastore_db tmp thrift cluster landing derby.log
# An empty LAKEHOUSE_DIR (`make clean LAKEHOUSE_DIR=`) is the default, as Python reads it, not /.
CLEAN_DIR := $(or $(LAKEHOUSE_DIR),$(CURDIR)/.lakehouse)

# Servers stop first: one left running would hold its ports and files after its lakehouse is
# gone, with no pid file left to stop it by. A server that will not stop keeps everything.
clean:  ## stop this lakehouse's Thrift servers and cluster, then remove warehouse, metastore and dbt outputs (keeps .venv and cached jars)
	@if test -x $(BIN)/python; then \
		$(BIN)/python -m python_helpers.operations.thrift stop --all && \
		$(BIN)/python -m python_helpers.operations.cluster stop; \
	fi
	rm -rf $(addprefix "$(CLEAN_DIR)"/,$(LAKEHOUSE_ENTRIES)) target logs dbt_packages derby.log metastore_db spark-warehouse
	@rmdir "$(CLEAN_DIR)" 2>/dev/null || true
