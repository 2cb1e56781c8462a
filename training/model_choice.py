"""The models a training run or an evaluation may name: 'tiny', the named base models
(lm.base_models), or a transformers folder under settings.CODEOPT_MODEL_ROOTS; the check of
a request's model and the choices the forms offer, shared by training and evaluations."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from foundation import inputs
from foundation.paths import resolve_under_roots, roots_text
from lm.base_models import BASE_MODELS, TINY, is_base_model, source_file


def check_model(model: str) -> str:
    """'tiny', a named base model (BASE_MODELS, its source file installed), or the real path
    of a transformers model folder (config.json) under settings.CODEOPT_MODEL_ROOTS;
    ValueError("model: ...") otherwise, one fixed message for every path outside the roots,
    whether or not it exists."""
    if model == TINY:
        return TINY
    if is_base_model(model):
        source_file(BASE_MODELS[model])  # installed? (the conversion happens where it trains)
        return model
    roots = settings.CODEOPT_MODEL_ROOTS
    folder = resolve_under_roots(model, roots)
    if folder is None:
        names = ", ".join(f"'{name}'" for name in [TINY, *BASE_MODELS])
        raise inputs.InputError("model", f"must be {names} or a path under {roots_text(roots)}")
    if not (folder / "config.json").is_file():
        raise inputs.InputError("model", f"{model!r} has no config.json: not a local model folder")
    return str(folder)


def model_choices(limit: int = 50) -> list[tuple[str, str]]:
    """(value, description) of the models a form offers: 'tiny', the named base models, and
    the folders directly under settings.CODEOPT_MODEL_ROOTS holding a transformers model
    (config.json), less the named models' own converted copies."""
    choices = [(TINY, "the built-in small model made from a config (CPU, fast tests)")]
    choices += [(model.name, model.description) for model in BASE_MODELS.values()]
    converted = {str(settings.CODEOPT_MODEL_CACHE / name) for name in BASE_MODELS}
    for root in settings.CODEOPT_MODEL_ROOTS:
        try:
            children = sorted(Path(root).iterdir())
        except OSError:  # a root not made yet (or not readable): nothing to offer there
            continue
        choices += [
            (str(p), "a local model folder")
            for p in children
            if (p / "config.json").is_file() and str(p) not in converted
        ]
    return choices[:limit]
