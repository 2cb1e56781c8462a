"""The Evaluations pages through Django's test client: the form queues an evaluation (and
names a bad field), the list reports progress, the comparison table and CSV carry the
stored figures, another team's evaluations stay hidden, and a run page offers its
checkpoints for evaluation."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluations import services
from evaluations.models import Evaluation
from execution.samples import FAST
from tests.evaluations.test_evaluations import lines, slow_and_mixed
from tests.training.test_training_runs import start_run
from training.services import do_run_training

pytestmark = pytest.mark.django_db(transaction=True)


def upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("mine.jsonl", text.encode(), content_type="application/jsonl")


@pytest.fixture
def queued(enqueued):
    """(evaluation id, queue) of each evaluation the pages queue, instead of a worker run
    (a worker of the services pass would race the test for it)."""
    return enqueued


def test_the_form_queues_an_upload_and_names_a_bad_field(built, client, alice, queued):
    client.force_login(alice)
    form = {"source": "completions", "split": "all", "n": "20", "temperature": "1"}
    bad = client.post("/evaluations/", {**form, "temperature": "hot"})
    assert bad.status_code == 400
    assert "temperature: &#x27;hot&#x27; is not a number" in bad.content.decode()
    assert not Evaluation.objects.exists()
    text = lines({"problem": "sum", "program": FAST}, "oops")
    response = client.post("/evaluations/", {**form, "completions": upload(text)})
    evaluation = Evaluation.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"#evaluation-{evaluation.pk}")
    # only scoring: where programs are timed
    assert queued == [("evaluations.evaluate", [evaluation.pk], "timing")]
    assert evaluation.status == "queued" and evaluation.samples.count() == 1
    assert evaluation.input_errors == [{"line": 2, "error": "not JSON (Expecting value)"}]
    listed = client.get("/evaluations/data.json").json()["evaluations"]
    assert [(e["evaluation"], e["status"], e["input_errors"]) for e in listed] == [
        (evaluation.pk, "queued", evaluation.input_errors)
    ]
    services.do_run_evaluation(evaluation.pk)
    row = client.get("/evaluations/data.json").json()["evaluations"][0]
    assert row["status"] == "done" and row["p100"] == 1.0
    assert row["progress_done"] == row["progress_total"] > 0


def test_the_comparison_table_and_csv_carry_the_stored_figures(built, client, alice, bob):
    slow, mixed = slow_and_mixed(alice)
    client.force_login(alice)
    page = client.get(f"/evaluations/?compare={mixed.pk},{slow.pk}").content.decode()
    assert page.count("<tr data-evaluation=") == 2
    assert "<th>p20 pass@1 [95% CI]</th>" in page  # the extra τ asked for by one of them
    # mixed: p100 = 1 of 2, on one problem: no interval rather than [0.500, 0.500]
    assert '0.500 <small class="no-interval">[n/a — one problem]</small>' in page
    exported = client.get(f"/evaluations/export.csv?ids={mixed.pk},{slow.pk}")
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert [int(r["evaluation"]) for r in rows] == [mixed.pk, slow.pk]
    assert float(rows[0]["p100"]) == 0.5 and float(rows[1]["p100"]) == 1.0
    assert rows[0]["p100_low"] == rows[0]["p100_high"] == ""  # none over one problem
    assert rows[1]["p20"] == ""  # not asked for in that evaluation
    assert exported["Content-Disposition"].endswith(f'evaluations-{mixed.pk}-{slow.pk}.csv"')
    assert client.get("/evaluations/export.csv?ids=x").status_code == 400
    client.force_login(bob)  # another team: neither visible
    hidden = client.get(f"/evaluations/?compare={mixed.pk}")
    assert hidden.status_code == 400 and f"compare: no evaluation {mixed.pk} you can see" in (
        hidden.content.decode()
    )
    assert client.get(f"/evaluations/export.csv?ids={slow.pk}").status_code == 400
    assert client.get("/evaluations/data.json").json()["evaluations"] == []


def test_a_run_page_offers_its_checkpoints_for_evaluation(built, client, alice, queued):
    run = start_run(alice, steps=2)
    do_run_training(run.pk)
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="evaluate-run"' in page
    assert '<option value="2">step 2 (latest)</option>' in page
    assert '<option value="0">step 0 (starting point)</option>' in page
    response = client.post(
        "/evaluations/",
        {
            "source": "run",
            "run": run.pk,
            "step": "0",
            "split": "all",
            "n": "2",
            "temperature": "1.0",
            "seed": "0",
            "max_new_tokens": "48",
        },
    )
    evaluation = Evaluation.objects.get()
    assert response.status_code == 302
    assert queued == [("evaluations.evaluate", [evaluation.pk], "eval")]  # it generates
    assert (evaluation.run_id, evaluation.step, evaluation.n, evaluation.team) == (
        run.pk,
        0,
        2,
        run.team,
    )
    assert evaluation.complexity is False  # the box was not ticked
