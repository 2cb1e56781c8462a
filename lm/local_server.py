"""A real OpenAI-compatible endpoint on this machine: llama-cpp-python's server running a named
base model's GGUF (smollm2-135m-instruct), for the LLM judge and the generator writer when no
larger endpoint is at hand, and for their tests. Plain Python, no Django.

llama-cpp-python lives in a virtualenv of its own (`make install` builds var/llm-server): its
server pins FastAPI and pydantic versions of its own. Its `response_format` takes a JSON schema
inside a json_object request, which it turns into a grammar: the model can only write the
verdict's shape (JUDGE_LLM_RESPONSE_FORMAT=json_object_schema).

llama.cpp's extra weight buffer types (CPU repacking, and Intel AMX tiles where the CPU has
them) are off on every machine: on a CPU with AMX, llama-cpp-python 0.3.36's server dies with
SIGSEGV in `ggml_backend_amx_mul_mat` on its first completion (llama.cpp issue 20824). Off,
every machine runs the same kernels on the same weights (llama.cpp's `--no-repack`).

    .venv/bin/python -m lm.local_server [--port 8081] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
import urllib.request
from pathlib import Path

from lm.base_models import BASE_MODELS, source_file

ROOT = Path(__file__).resolve().parent.parent
SERVER_PYTHON = ROOT / "var" / "llm-server" / "bin" / "python"
DEFAULT_MODEL = "smollm2-135m-instruct"
CONTEXT_TOKENS = 8192  # two programs, the statement and the evidence fit with room


def server_python() -> Path:
    """The server's interpreter; ValueError saying how to install it when it is missing."""
    found = Path(os.environ.get("CODEOPT_LLM_SERVER_PYTHON", SERVER_PYTHON))
    if not found.is_file():
        raise ValueError(f"llm server: {found} is missing; run `make install`")
    return found


# run in the server's interpreter: llama_cpp.server as `-m llama_cpp.server` runs it, with
# every model loaded with extra buffer types off (the module docstring says why)
NO_EXTRA_BUFFERS = (
    "import runpy\n"
    "import llama_cpp.llama as module\n"
    "defaults = module.llama_cpp.llama_model_default_params\n"
    "def params():\n"
    "    found = defaults()\n"
    "    found.use_extra_bufts = False\n"
    "    return found\n"
    "module.llama_cpp.llama_model_default_params = params\n"
    "runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
)


def server_argv(port: int, model: str = DEFAULT_MODEL, threads: int = 1) -> list[str]:
    """The command that serves `model` as `model` at http://127.0.0.1:<port>/v1."""
    weights = source_file(BASE_MODELS[model])
    return [
        str(server_python()),
        "-c",
        NO_EXTRA_BUFFERS,
        "--model",
        str(weights),
        "--model_alias",
        model,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
    ]


def ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def start(port: int, log: Path, model: str = DEFAULT_MODEL, threads: int = 1, timeout_s=120.0):
    """(process, base URL) of a server that answers; RuntimeError with its log's tail when it
    exits or does not answer within `timeout_s`."""
    base_url = f"http://127.0.0.1:{port}/v1"
    handle = log.open("wb")
    process = subprocess.Popen(
        server_argv(port, model, threads), stdout=handle, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if ready(base_url):
            return process, base_url
        time.sleep(0.2)
    process.kill()
    process.wait()
    tail = log.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"llm server on port {port} did not start: {tail}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a named base model's GGUF (OpenAI API).")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--model", default=DEFAULT_MODEL, choices=sorted(BASE_MODELS))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    argv = server_argv(args.port, args.model, args.threads)
    print(f"serving {args.model} at http://127.0.0.1:{args.port}/v1", flush=True)
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
