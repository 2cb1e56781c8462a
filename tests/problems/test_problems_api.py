"""Problems over the API (issue 18, item 1): the built problems, paged, filtered by split and
dataset; a split exported as a prompt dataset in the shapes TRL's and verl's loaders read."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest

from lm.prompts import make_prompt
from problems.models import Problem

pytestmark = pytest.mark.django_db


def test_built_problems_are_listed_paged_with_what_is_stored(built, alice_api):
    Problem.objects.filter(slug="sum").update(split="train")
    Problem.objects.create(slug="unbuilt", title="Not built", split="train")
    page = alice_api.get("/api/problems/", {"split": "train", "limit": "10"}).json()
    assert page["count"] == 1
    (row,) = page["results"]
    assert row["slug"] == "sum" and row["split"] == "train"
    assert row["has_optimization_tests"] and row["has_references"]
    assert alice_api.get("/api/problems/", {"split": "test"}).json()["count"] == 0
    assert alice_api.get("/api/problems/", {"dataset": "code_contests"}).json()["count"] == 0
    assert alice_api.get("/api/problems/", {"split": "dev"}).status_code == 400


def test_a_split_exports_as_json_lines_and_parquet_for_trl_and_verl(built, alice_api):
    Problem.objects.filter(slug="sum").update(split="train")
    problem = Problem.objects.get(slug="sum")
    prompt = make_prompt(problem.statement or problem.title)
    lines = alice_api.get("/api/problems/export/", {"split": "train"})
    assert lines["Content-Type"] == "application/x-ndjson"
    (record,) = [json.loads(line) for line in lines.content.decode().splitlines()]
    assert record == {"prompt": prompt, "problem": "sum", "split": "train"}

    answer = alice_api.get(
        "/api/problems/export/", {"split": "train", "shape": "verl", "file_format": "parquet"}
    )
    (row,) = pq.read_table(io.BytesIO(answer.content)).to_pylist()
    assert row["data_source"] == "codeopt"
    assert row["prompt"] == [{"role": "user", "content": prompt}]
    assert row["reward_model"] == {"style": "rule", "ground_truth": "sum"}
    assert row["extra_info"]["problem"] == "sum"
    assert alice_api.get("/api/problems/export/", {"shape": "x"}).status_code == 400


def test_the_export_for_the_named_model_prompts_through_its_chat_format(built, alice_api):
    Problem.objects.filter(slug="sum").update(split="train")
    problem = Problem.objects.get(slug="sum")
    statement = problem.statement or problem.title
    lines = alice_api.get("/api/problems/export/", {"model": "smollm2-135m-instruct"})
    (record,) = [json.loads(line) for line in lines.content.decode().splitlines()]
    assert record["prompt"] == make_prompt(statement, style="chatml")
    assert record["prompt"].endswith("<|im_start|>assistant\n```python\n")
    answer = alice_api.get(
        "/api/problems/export/",
        {"shape": "verl", "file_format": "parquet", "model": "smollm2-135m-instruct"},
    )
    (row,) = pq.read_table(io.BytesIO(answer.content)).to_pylist()
    # verl applies the model's chat template itself: the turns, not the templated text
    assert [turn["role"] for turn in row["prompt"]] == ["system", "user"]
    assert statement.strip() in row["prompt"][1]["content"]
    assert "<|im_start|>" not in row["prompt"][1]["content"]
    # OpenRLHF's PromptDataset reads `input` (chat turns it templates) and `label`
    lines = alice_api.get(
        "/api/problems/export/", {"shape": "openrlhf", "model": "smollm2-135m-instruct"}
    )
    (record,) = [json.loads(line) for line in lines.content.decode().splitlines()]
    assert record == {"input": row["prompt"], "label": "sum"}
    assert row["extra_info"]["index"] == 0  # verl's per-sample reward names the group by it
    refused = alice_api.get("/api/problems/export/", {"model": "gpt-5"})
    assert refused.status_code == 400 and "model" in refused.json()


def test_the_export_loads_with_the_datasets_library_trl_reads_with(built, alice_api, tmp_path):
    datasets = pytest.importorskip("datasets")
    Problem.objects.filter(slug="sum").update(split="train")
    path = tmp_path / "train.parquet"
    path.write_bytes(alice_api.get("/api/problems/export/", {"file_format": "parquet"}).content)
    dataset = datasets.load_dataset("parquet", data_files=str(path), split="train")
    assert dataset.column_names == ["prompt", "problem", "split"]
    assert dataset[0]["problem"] == "sum"
