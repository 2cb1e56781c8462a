"""The policy: a named base model (lm/base_models.py: a pretrained checkpoint
installed from the package registry), a transformers causal LM from a local path, or the
built-in tiny model made from a config with a byte-level BPE tokenizer trained here on the
reference-solution corpus (nothing is downloaded). Plain Python + torch + transformers, no
Django: `cache_root` (where named models are converted to) comes from the caller.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import torch

from lm.base_models import (
    TINY,  # noqa: F401  (re-exported: the model name)
    is_base_model,
    prepared_folder,
)

_LOADING = threading.RLock()
"""Held while a model is loaded: transformers imports its classes lazily on first use, and
two threads doing it at once (the `gpu` worker's two runs starting together in its threads
pool) made one fail with "cannot import name 'AutoModelForCausalLM' from 'transformers'"."""

PAD, EOS = "<|pad|>", "<|endoftext|>"


@dataclass
class TinyModelConfig:
    """The built-in model: a 2-layer GPT-2 that trains at a useful speed on 2 CPU cores."""

    vocab_size: int = 2048
    """BPE merges learned from the corpus (fewer when the corpus is small)."""
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 128
    n_positions: int = 1024
    """Longest prompt + completion, in tokens."""


def train_tokenizer(corpus: list[str], vocab_size: int = 2048):
    """A byte-level BPE tokenizer (any text encodes, nothing is unknown) trained on `corpus`,
    wrapped for transformers, with pad and end-of-text tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if not corpus:
        raise ValueError("corpus: no text to train the tokenizer on")
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token=PAD, eos_token=EOS, bos_token=EOS
    )


def tiny_model(tokenizer, config: TinyModelConfig | None = None, seed: int = 0):
    """A freshly initialised GPT-2 of `config`'s size for `tokenizer`."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = config or TinyModelConfig()
    torch.manual_seed(seed)
    return GPT2LMHeadModel(
        GPT2Config(
            vocab_size=len(tokenizer),
            n_positions=config.n_positions,
            n_embd=config.n_embd,
            n_layer=config.n_layer,
            n_head=config.n_head,
            bos_token_id=tokenizer.eos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
            # no dropout: log-probabilities at sampling and at update time must agree
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
        )
    )


def model_folder(model: str, cache_root: Path | None = None) -> Path:
    """The transformers folder of `model`: a named base model's converted copy under
    `cache_root` (made on first use), or `model` itself as a path."""
    if is_base_model(model):
        if cache_root is None:
            raise ValueError(f"model: {model!r} is a named base model; its cache folder is needed")
        return prepared_folder(model, Path(cache_root))
    path = Path(model)
    if not (path / "config.json").is_file():
        raise ValueError(f"model: {model!r} is neither 'tiny' nor a local model folder")
    return path


def load_policy(
    model: str, corpus: list[str] | None = None, seed: int = 0, cache_root: Path | None = None
):
    """(model, tokenizer) on the GPU when there is one. `model` is "tiny" (built here;
    `corpus` trains its tokenizer), a named base model (converted under `cache_root`) or the
    path of a local transformers checkpoint (bf16 on a GPU, float32 on a CPU)."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with _LOADING:
        if model == TINY:
            tokenizer = train_tokenizer(corpus or [])
            return tiny_model(tokenizer, seed=seed).to(device), tokenizer
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = model_folder(model, cache_root)
        dtype = torch.bfloat16 if torch.cuda.is_available() else torch.float32
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        policy = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=dtype)
    return policy.to(device), tokenizer


def load_checkpoint(model: str, folder: Path, seed: int = 0, cache_root: Path | None = None):
    """(model, tokenizer) of a training checkpoint (training.loop, step-<version>)
    of a run whose policy was `model` ("tiny", a named base model or a local path)."""
    state_path = Path(folder) / "state.pt"
    if not state_path.is_file():
        raise ValueError(f"step: no checkpoint in {folder}")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if model == TINY:
        with _LOADING:
            from transformers import PreTrainedTokenizerFast

            tokenizer = PreTrainedTokenizerFast.from_pretrained(Path(folder) / "tokenizer")
            policy = tiny_model(tokenizer, seed=seed).to(device)
    else:
        policy, tokenizer = load_policy(model, seed=seed, cache_root=cache_root)
    state = torch.load(state_path, weights_only=True, map_location=device)
    policy.load_state_dict(state["model"])
    return policy, tokenizer


def limit_trainable(model, layers: int) -> int:
    """Train only the last `layers` transformer blocks and the final norm (0: every
    parameter); returns the number of trainable parameters. The blocks are the model's
    longest ModuleList (Llama's `model.layers`, GPT-2's `transformer.h`); the embeddings stay
    frozen (tied to the output head in SmolLM2). Below the first trainable block nothing
    needs a gradient, so the backward pass stops there, and AdamW keeps state for the
    trained blocks only: with the last 4 of SmolLM2's 30, 3.2 GB of memory instead of 7.5
    (docs/benchmarks.md, "One GRPO step")."""
    if layers <= 0:
        return sum(p.numel() for p in model.parameters() if p.requires_grad)
    blocks = max(
        (m for m in model.modules() if isinstance(m, torch.nn.ModuleList)), key=len, default=None
    )
    if blocks is None or not len(blocks):
        raise ValueError("trainable_layers: the model has no list of transformer blocks")
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    chosen = list(blocks)[-layers:]
    final_norm = getattr(getattr(model, "model", None), "norm", None) or getattr(
        getattr(model, "transformer", None), "ln_f", None
    )
    if final_norm is not None:
        chosen.append(final_norm)
    for module in chosen:
        for parameter in module.parameters():
            parameter.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
