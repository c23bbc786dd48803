# stridelab's two jobs, each setting up (and then reusing) a local virtual environment in .venv:
#   make lab    JupyterLab on the tutorial notebooks (NumPy backend where there is no GPU); works as
#               root too; options for JupyterLab go in LAB_ARGS, e.g. LAB_ARGS=--ip=0.0.0.0
#   make test   the whole test suite: lint, format and type checks, docstring examples, unit tests,
#               notebooks (nbval, strict) and the browser test; plain `pytest` runs the same items
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
NOTEBOOKS := notebooks
# The type check of the package (pyproject.toml's [tool.mypy]), against the newest stubs.
TYPECHECK ?= $(BIN)/mypy

.PHONY: lab test test-lowest test-gpu lint notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changes.
$(VENV)/.lab-installed: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $@

$(VENV)/.test-installed: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.lab-installed

lab: $(VENV)/.lab-installed
	$(BIN)/python -m stridelab lab $(NOTEBOOKS) $(LAB_ARGS)

test: lint
	$(BIN)/python -m pytest

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TYPECHECK)
	$(BIN)/python scripts/check_sizes.py

# make test on the oldest versions pyproject.toml allows, in a venv of its own, e.g. on the oldest
# Python supported: make test-lowest PYTHON=python3.10. It leaves out the type check: annotations
# are checked against the current NumPy's stubs, which differ from its oldest version's.
test-lowest:
	PIP_CONSTRAINT=$(CURDIR)/.ci/lower-bounds.txt $(MAKE) test VENV=.venv-lowest TYPECHECK=true

# On a machine with a CUDA GPU and CuPy (no virtual environment needed): the GPU tests only.
test-gpu:
	PYTHONPATH=$(CURDIR)/src $(PYTHON) -m pytest -m gpu tests

# Re-execute the notebooks and store their outputs (what nbval then compares against).
notebooks: $(VENV)/.test-installed
	$(BIN)/python scripts/execute_notebooks.py $(NOTEBOOKS)/*.ipynb

clean:
	rm -rf $(VENV) .venv-lowest build dist src/*.egg-info .pytest_cache .hypothesis test-artifacts
