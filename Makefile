# Two commands do all set-up: `make demo` and `make test` (README).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# This machine keeps the CPU build of torch 2.13.0 here; elsewhere pip takes it from PyPI.
ifneq ($(wildcard /opt/wheels),)
export PIP_FIND_LINKS ?= /opt/wheels
endif

.PHONY: install browser demo test lint bench

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

# Debian's Chromium for the browser test (Playwright's own download cannot work here).
browser:
	@command -v chromium >/dev/null || { \
	  echo "installing Debian's chromium (browser tests)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

demo: install
	PORT=$(PORT) scripts/demo.sh

test: install browser
	scripts/test.sh

lint: install
	$(VENV)/bin/ruff check .

bench: install
	$(PY) benchmarks/run_all.py
