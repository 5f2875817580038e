# peerlake — `make demo` then `make test`. Everything installs into .venv; data goes to warehouse/lake/
# (or $PEERLAKE_HOME); the model file and the compiled llama.cpp wheel are cached in ~/.cache/peerlake.

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
# llama.cpp is compiled for the instruction sets this CPU lists, named one by one (GGML_NATIVE=OFF), not
# -march=native: on a virtual CPU that advertises AMX without the kernel enabling its tile state, a native
# build's AMX kernels die with a general protection fault (seen here: `ldtilecfg` in libggml-cpu.so,
# segfaulting the model tests). AVX2/FMA/F16C always; AVX-512 (and VNNI, VBMI, BF16) when listed: the
# 1.5B model's prompt reads ~1.3x faster with them here. AMX never. --no-cache-dir: pip would otherwise
# reuse a wheel it built earlier with other CMAKE_ARGS. The cached wheel is keyed by the CPU's flags and
# the build options.
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has = $(if $(strip $(foreach f,$(1),$(if $(filter $(f),$(CPU_FLAGS)),,missing))),,$(2))
LLAMA_CMAKE := -DGGML_NATIVE=OFF \
  $(call has,avx512f avx512cd avx512vl avx512dq avx512bw,-DGGML_AVX512=ON \
    $(call has,avx512_vnni,-DGGML_AVX512_VNNI=ON) $(call has,avx512vbmi,-DGGML_AVX512_VBMI=ON) \
    $(call has,avx512_bf16,-DGGML_AVX512_BF16=ON))
CPU_TAG := $(shell (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null; echo '$(LLAMA_CMAKE)') | sha256sum | cut -c1-12)
WHEELS  := $(HOME)/.cache/peerlake/wheels/$(CPU_TAG)
LLAMA   := llama-cpp-python==0.3.36

.DEFAULT_GOAL := help
.PHONY: help install model demo test test-fast lint ui docs bench clean-lake

help:
	@echo "make demo    set up .venv + the embedded model, run the whole pipeline on the demo corpus"
	@echo "make test    run the test suite (sets up what it needs first; includes the linters)"
	@echo "make test-fast   the inner loop (~3 min): tests without pipeline builds or the model, dbt unit tests, linters"
	@echo "make lint    only the linters: ruff, the layer contract (import-linter), sqlfluff on the dbt models"
	@echo "make ui      open the Dagster UI on http://127.0.0.1:3000 (lineage, runs, checks)"
	@echo "make bench   run the benchmarks in benchmarks/"
	@echo "make docs    serve the documentation site (docs/, MkDocs) on http://127.0.0.1:8000"
	@echo "make clean-lake   delete the local lake (warehouse/lake) — all events, blobs and runs"

$(BIN)/uv:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9

# --compile-bytecode: the .pyc files are written once here (pip does; uv does not by default). Where
# PYTHONDONTWRITEBYTECODE is set no process writes them, so each `peerlake` and dbt process would compile
# Dagster, dbt and pandas from source again: ~4 s per command, minutes over `make test`.
$(VENV)/.installed: $(BIN)/uv requirements.lock pyproject.toml
	@mkdir -p $(WHEELS)
	@if ! ls $(WHEELS)/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then \
	  echo "==> Compiling $(LLAMA) once for this CPU (5–10 minutes on 2 cores; cached in $(WHEELS))"; \
	  CMAKE_ARGS="$(strip $(LLAMA_CMAKE))" $(BIN)/python -m pip wheel --quiet --no-cache-dir --disable-pip-version-check --no-deps $(LLAMA) -w $(WHEELS); \
	fi
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode --find-links $(WHEELS) -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	@touch $@

install: $(VENV)/.installed

model: install
	$(BIN)/python -m peerlake.llm_calls.local_model
	$(BIN)/python -m peerlake.llm_calls.embeddings.install

demo: model
	$(BIN)/peerlake demo

# PEERLAKE_REQUIRE_MODEL=1: the model tests fail, not skip, if the model just installed were missing.
test: model
	PEERLAKE_REQUIRE_MODEL=1 $(BIN)/python -m pytest -n auto --dist loadgroup --durations=15

# The inner loop: the tests that build no marts and load no model (tests/lanes.py marks the others
# `pipeline` / `model` from what they reach), the dbt unit tests on an empty lake (their models built
# empty, no data tests), and the linters: ruff and the layer contract in the tests, sqlfluff (~1 min for
# all models) on the models changed since the last commit, on all of them when anything else under
# dbt_project/ or .sqlfluff changed, or outside a git checkout. `make test` still runs everything.
test-fast: install
	@status=0; scratch=$$(mktemp -d); \
	echo "==> pytest -m 'not pipeline and not model'"; \
	$(BIN)/python -m pytest -n auto --dist loadgroup -m "not pipeline and not model" \
	  --deselect tests/test_linters.py::test_sqlfluff_is_clean_on_the_dbt_models || status=1; \
	echo "==> dbt unit tests"; \
	$(BIN)/python -c "import pathlib, sys; from warehouse import EventLog, Lake; \
	  EventLog(Lake(pathlib.Path(sys.argv[1])).ensure()).seal()" $$scratch/lake \
	  && PEERLAKE_HOME=$$scratch/lake PEERLAKE_DUCKDB_PATH=$$scratch/unit.duckdb $(BIN)/dbt --quiet build \
	    --select "+test_type:unit" --exclude-resource-type test --project-dir dbt_project \
	    --profiles-dir dbt_project --target-path $$scratch/target --log-path $$scratch/logs \
	  && echo "dbt unit tests passed" || status=1; \
	changed=$$( { git diff --name-only HEAD -- dbt_project .sqlfluff && \
	  git ls-files --others --exclude-standard -- dbt_project; } 2>/dev/null ) || changed=.sqlfluff; \
	if echo "$$changed" | grep -qvE '^(dbt_project/models/|$$)'; then models=dbt_project/models; \
	else models=$$(for f in $$changed; do case $$f in *.sql) [ -f "$$f" ] && echo "$$f";; esac; done); fi; \
	echo "==> sqlfluff on" $${models:-"no model (none changed)"}; \
	if [ -n "$$models" ]; then $(SCRATCH_DBT_ENV) $(BIN)/sqlfluff lint --disable-progress-bar --processes 0 \
	  $$models || status=1; fi; \
	rm -rf "$$scratch"; exit $$status

# The same checks tests/test_layers.py and tests/test_linters.py run, with the tools' own output.
# The dbt templater opens the profile's database and writes target/: a scratch folder keeps the lake out.
# All three run even when one fails, so one pass shows everything.
SCRATCH_DBT_ENV = PEERLAKE_HOME=$$scratch PEERLAKE_DUCKDB_PATH=$$scratch/lint.duckdb \
  DBT_TARGET_PATH=$$scratch/target DBT_LOG_PATH=$$scratch/logs
lint: install
	@status=0; scratch=$$(mktemp -d); \
	echo "==> ruff"; $(BIN)/ruff check . || status=1; \
	echo "==> import-linter"; $(BIN)/lint-imports --no-cache || status=1; \
	echo "==> sqlfluff"; $(SCRATCH_DBT_ENV) $(BIN)/sqlfluff lint --disable-progress-bar dbt_project/models || status=1; \
	rm -rf "$$scratch"; exit $$status

ui: install
	$(BIN)/peerlake ui

docs: install
	$(BIN)/mkdocs serve

bench: install
	$(BIN)/python benchmarks/gateway_throughput.py

clean-lake:
	rm -rf warehouse/lake
