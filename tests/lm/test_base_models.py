"""The named base model, for real: SmolLM2-135M-Instruct from the installed package, converted
once, prompted through its own chat format, its log-probabilities computed with the prompt
shared by a group equal to a full forward's, and a GRPO update on it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

from lm.base_models import BASE_MODELS, STAMP, prepared_folder, prompt_style
from lm.prompts import extract_program, make_prompt
from training.config import TrainConfig
from training.policy import (
    TinyModelConfig,
    limit_trainable,
    load_policy,
    model_folder,
    tiny_model,
    train_tokenizer,
)
from training.rollout import (
    Sample,
    completion_logprobs,
    encode_batch,
    sample_groups,
    token_logprobs,
)
from training.update import grpo_update

NAME = "smollm2-135m-instruct"
CACHE = Path(os.environ.get("CODEOPT_MODEL_CACHE") or Path(__file__).parents[2] / "var/models")
STATEMENT = "Read two integers a and b from one line and print a + b."


@pytest.fixture(scope="module")
def smollm():
    model, tokenizer = load_policy(NAME, cache_root=CACHE)
    return model, tokenizer


def test_the_named_model_is_converted_once_with_its_source_hash_stamped():
    folder = prepared_folder(NAME, CACHE)
    stamp = json.loads((folder / STAMP).read_text())
    assert stamp["sha256"] == BASE_MODELS[NAME].sha256
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config  # plain float32 weights were written
    assert config["model_type"] == "llama" and config["num_hidden_layers"] == 30
    modified = (folder / "model.safetensors").stat().st_mtime_ns
    assert prepared_folder(NAME, CACHE) == folder  # the second call converts nothing
    assert (folder / "model.safetensors").stat().st_mtime_ns == modified


def test_a_folder_stamped_with_another_hash_is_not_taken_as_converted(tmp_path):
    fake = tmp_path / NAME
    fake.mkdir()
    (fake / "model.safetensors").write_bytes(b"not weights")
    (fake / STAMP).write_text(json.dumps({"sha256": "0" * 64}))
    from lm import base_models

    assert not base_models._finished(fake, BASE_MODELS[NAME])
    assert base_models._finished(CACHE / NAME, BASE_MODELS[NAME])


def test_an_unknown_name_and_a_missing_cache_are_refused_naming_the_model():
    with pytest.raises(ValueError, match="model: 'smollm2-1b'"):
        prepared_folder("smollm2-1b", CACHE)
    with pytest.raises(ValueError, match="cache folder"):
        model_folder(NAME, None)


def test_the_chat_prompt_is_what_the_tokenizer_s_own_chat_template_writes(smollm):
    _, tokenizer = smollm
    for baseline in (None, "a, b = map(int, input().split())\nprint(a + b)\n"):
        prompt = make_prompt(STATEMENT, baseline, style=prompt_style(NAME))
        user = prompt.split("<|im_start|>user\n", 1)[1].split("<|im_end|>", 1)[0]
        templated = tokenizer.apply_chat_template(
            [{"role": "user", "content": user}], tokenize=False, add_generation_prompt=True
        )
        assert prompt == templated + "```python\n"
    assert prompt_style("tiny") == "plain"
    assert make_prompt(STATEMENT) == make_prompt(STATEMENT, style="plain")
    with pytest.raises(ValueError, match="prompt style 'yaml'"):
        make_prompt(STATEMENT, style="yaml")


def test_the_real_model_writes_programs_that_end_at_the_fence(smollm):
    model, tokenizer = smollm
    torch.manual_seed(0)
    samples = sample_groups(
        model,
        tokenizer,
        [make_prompt(STATEMENT, style="chatml")],
        4,
        max_new_tokens=64,
        temperature=0.7,
    )
    programs = [s.program for s in samples if s.program]
    assert programs, [s.text for s in samples]  # a pretrained model answers in the format
    assert all("```" not in p for p in programs)
    assert any("input" in p and "print" in p for p in programs)
    assert all(len(s.logprobs) == len(s.completion_ids) for s in samples)
    assert extract_program(samples[0].text) == samples[0].program


def test_posed_as_a_function_the_real_model_solves_it_some_of_the_time(smollm):
    """The mix of success and failure a GRPO group learns from (docs/benchmarks.md,
    "Function tasks"): its functions, each followed by the harness, run on the pack's tests."""
    import yaml

    from execution.engine import Program, measure
    from execution.package import load_package
    from problems.function_task import FunctionTask

    folder = Path(__file__).parents[2] / "problems/packs/core/even-count"
    task = FunctionTask.from_dict(yaml.safe_load((folder / "function.yaml").read_text()))
    model, tokenizer = smollm
    torch.manual_seed(0)
    samples = sample_groups(
        model,
        tokenizer,
        [make_prompt("(the statement is not asked)", style="chatml", function=task)],
        8,
        max_new_tokens=96,
        temperature=0.8,
        harnesses=[task.harness],
    )
    programs = [Program(str(i), s.program, "python") for i, s in enumerate(samples) if s.program]
    assert all(p.source.endswith(task.harness) for p in programs)
    reports = measure(programs, load_package(folder).tests, repeats=1, stop_at_failure=True)
    solved = [name for name, report in reports.items() if report.verdict == "OK"]
    assert 0 < len(solved) < len(samples), [s.text for s in samples]


def _full_forward(model, tokenizer, samples, temperature):
    ids, attention, mask = encode_batch(
        tokenizer, [s.prompt_ids for s in samples], [s.completion_ids for s in samples]
    )
    logprobs, _ = token_logprobs(model, ids, attention, temperature)
    return [logprobs[row][mask[row].bool()] for row in range(len(samples))]


def test_log_probabilities_with_a_shared_prompt_equal_a_full_forward(smollm):
    model, tokenizer = smollm
    prompts = [make_prompt(STATEMENT, style="chatml"), make_prompt("Print 42.", style="chatml")]
    completions = [
        tokenizer("print(sum(map(int, input().split())))\n```")["input_ids"] + [2],
        tokenizer("a, b = input().split()\nprint(int(a) + int(b))\n```")["input_ids"],
        tokenizer("print(1)")["input_ids"],
        tokenizer("print(42)\n```")["input_ids"] + [2],
    ]
    samples = [
        Sample(i // 3, tokenizer(prompts[i // 3])["input_ids"], c, "", None, False)
        for i, c in enumerate(completions)
    ]
    with torch.no_grad():
        shared, mask = completion_logprobs(model, samples, temperature=0.8)
        full = _full_forward(model, tokenizer, samples, 0.8)
    for row, expected in enumerate(full):
        got = shared[row][mask[row].bool()]
        assert got.shape == expected.shape
        torch.testing.assert_close(got, expected, atol=2e-3, rtol=0)
        assert float(shared[row][~mask[row].bool()].abs().sum()) == 0.0


def test_a_grpo_update_on_the_real_model_makes_the_rewarded_program_likelier(smollm):
    model, tokenizer = smollm
    model = __import__("copy").deepcopy(model)
    prompt = make_prompt(STATEMENT, style="chatml")
    prompt_ids = tokenizer(prompt)["input_ids"]
    good = tokenizer("print(sum(map(int, input().split())))\n```")["input_ids"] + [2]
    bad = tokenizer("print(input())\n```")["input_ids"] + [2]
    samples = [Sample(0, prompt_ids, c, "", None, False) for c in (good, bad)]
    with torch.no_grad():
        before, mask = completion_logprobs(model, samples)
    for row, sample in enumerate(samples):
        sample.logprobs = before[row][mask[row].bool()].tolist()
    config = TrainConfig(learning_rate=2e-6, token_budget=64)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    metrics = grpo_update(model, optimizer, tokenizer, samples, torch.tensor([[1.0, -1.0]]), config)
    with torch.no_grad():
        after, _ = completion_logprobs(model, samples)
    assert metrics["losses/skipped"] == 0.0 and metrics["losses/entropy"] > 0
    assert float((after[0] - before[0]).sum()) > 0  # the rewarded program: likelier
    assert float((after[1] - before[1]).sum()) < 0  # the punished one: less likely


def test_only_the_last_blocks_train_when_trainable_layers_is_set(smollm):
    model, _ = smollm
    model = __import__("copy").deepcopy(model)
    blocks = model.model.layers
    expected = sum(p.numel() for b in blocks[-4:] for p in b.parameters())
    expected += sum(p.numel() for p in model.model.norm.parameters())
    assert limit_trainable(model, 4) == expected
    assert not model.model.embed_tokens.weight.requires_grad  # tied to the output head
    assert all(not p.requires_grad for p in blocks[0].parameters())
    tiny = tiny_model(train_tokenizer(["print(1)"], vocab_size=300), TinyModelConfig(n_layer=3))
    trained = limit_trainable(tiny, 1)
    assert trained == sum(p.numel() for p in tiny.transformer.h[-1].parameters()) + sum(
        p.numel() for p in tiny.transformer.ln_f.parameters()
    )
    assert limit_trainable(tiny, 0) == trained  # 0 changes nothing it finds frozen


TWO_THREADS = """
import sys, threading
from pathlib import Path
from training.policy import load_policy
barrier, errors = threading.Barrier(2), []
def load():
    barrier.wait()
    try:
        load_policy("smollm2-135m-instruct", cache_root=Path(sys.argv[1]))
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=load) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(errors)
"""


def test_two_runs_loading_the_model_at_once_in_one_process_both_load():
    """The `gpu` worker's two slots start the demo's two runs together: a fresh process (no
    transformers imported yet) loading the model in two threads at once. Without the lock
    one of them failed with "cannot import name 'AutoModelForCausalLM'" about one time in
    three, so three processes."""
    import subprocess
    import sys

    root = Path(__file__).parents[2]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(root)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", TWO_THREADS, str(CACHE)],
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for _ in range(3)
    ]  # fmt: skip
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-2000:]
        assert out.strip().splitlines()[-1] == "[]", out
