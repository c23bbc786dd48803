# stridelab's two jobs, each setting up (and then reusing) a local virtual environment in .venv:
#   make lab    JupyterLab on the tutorial notebooks (NumPy backend where there is no GPU)
#   make test   the whole test suite: unit tests, docstring examples, notebooks (nbval, strict) and
#               the browser test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NOTEBOOKS := notebooks
PYTEST_NBVAL := --nbval --nbval-current-env --nbval-sanitize-with $(NOTEBOOKS)/sanitize.cfg

.PHONY: lab test test-gpu lint notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changes.
$(VENV)/.lab-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.lab-installed

lab: $(VENV)/.lab-installed
	$(BIN)/jupyter lab $(LAB_ARGS) $(NOTEBOOKS)/00-start-here.ipynb

test: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest --doctest-modules $(PYTEST_NBVAL) stridelab tests $(NOTEBOOKS)

# On a machine with a CUDA GPU and CuPy (no virtual environment needed): the GPU tests only.
test-gpu:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m pytest -m gpu tests

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Re-execute the notebooks and store their outputs (what nbval then compares against).
notebooks: $(VENV)/.test-installed
	$(BIN)/python scripts/execute_notebooks.py $(NOTEBOOKS)/*.ipynb

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts
