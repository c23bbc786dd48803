# stridelab's two jobs, each setting up (and then reusing) a local virtual environment in .venv:
#   make lab    JupyterLab on the tutorial notebooks (NumPy backend where there is no GPU); works as
#               root too; options for JupyterLab go in LAB_ARGS, e.g. LAB_ARGS=--ip=0.0.0.0
#   make test   the whole test suite: lint, format and type checks, the documentation site (built
#               with warnings as errors, then crawled), docstring examples, unit tests, notebooks
#               (nbval, strict) and the browser tests; plain `pytest` runs the same items
#   make docs   the documentation site, into docs/_build/html (Python 3.11 or newer)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
NOTEBOOKS := notebooks
# The type check of the package (pyproject.toml's [tool.mypy]), against the newest stubs.
TYPECHECK ?= $(BIN)/mypy

.PHONY: lab test test-lowest test-gpu lint docs notebooks clean
# What `make test` builds before the tests (tests/test_docs_site.py crawls it): the site, where
# Python is 3.11 or newer (its tools need it; on an older one the site's tests skip, saying so);
# test-lowest sets none.
DOCS_FOR_TEST ?= $(shell $(PYTHON) -c 'import sys; print("docs" * (sys.version_info >= (3, 11)))' 2>/dev/null)
DOCS_HTML := docs/_build/html

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

# The docs tools at the versions docs/requirements.txt pins.
$(VENV)/.docs-installed: pyproject.toml setup.py docs/requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c docs/requirements.txt -e '.[docs]'
	touch $@ $(VENV)/.lab-installed

lab: $(VENV)/.lab-installed
	$(BIN)/python -m stridelab lab $(NOTEBOOKS) $(LAB_ARGS)

test: lint $(DOCS_FOR_TEST)
	$(if $(DOCS_FOR_TEST),STRIDELAB_DOCS_HTML=$(CURDIR)/$(DOCS_HTML)) $(BIN)/python -m pytest

# Warnings are errors; the build itself fetches nothing and runs no notebook (docs/conf.py); the
# first run installs the docs extra with pip.
docs: $(VENV)/.docs-installed
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs $(DOCS_HTML)

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TYPECHECK)
	$(BIN)/python scripts/check_sizes.py

# make test on the oldest versions pyproject.toml allows, in a venv of its own, e.g. on the oldest
# Python supported: make test-lowest PYTHON=python3.10. It leaves out the type check: annotations
# are checked against the current NumPy's stubs, which differ from its oldest version's; and the
# documentation site, built with the pinned tools (tests/test_docs_site.py skips, saying so).
test-lowest:
	PIP_CONSTRAINT=$(CURDIR)/.ci/lower-bounds.txt $(MAKE) test VENV=.venv-lowest TYPECHECK=true DOCS_FOR_TEST=

# On a machine with a CUDA GPU and CuPy (no virtual environment needed): the GPU tests only.
test-gpu:
	PYTHONPATH=$(CURDIR)/src $(PYTHON) -m pytest -m gpu tests

# Re-execute the notebooks and store their outputs (what nbval then compares against).
notebooks: $(VENV)/.test-installed
	$(BIN)/python scripts/execute_notebooks.py $(NOTEBOOKS)/*.ipynb

clean:
	rm -rf $(VENV) .venv-lowest build dist src/*.egg-info .pytest_cache .hypothesis test-artifacts \
		docs/_build docs/api docs/tutorials/*.ipynb docs/benchmarks.md
