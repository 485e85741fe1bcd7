# The README's two commands. Both create .venv if missing and install the project into it.
VENV   ?= .venv
PY     := $(VENV)/bin/python
# On the project's CI and dev machines this pin resolves to a local CPU build in seconds; an
# unpinned torch would download several GB of CUDA packages. GPU users: see README.
TORCH  ?= torch==2.13.0

.PHONY: demo test bench clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q "$(TORCH)"
	$(PY) -m pip install -q -e ".[demos,test]"
	touch $@

# The dataloader demo, bad then fixed, on the GPU when one is present (else the CPU), side by side.
demo: $(VENV)/.installed
	$(VENV)/bin/bottleneck-lab demo dataloader

# Lint and format are checked first: a style slip fails as fast as a broken test.
test: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_vs_hta.py

clean:
	rm -rf $(VENV) build *.egg-info
