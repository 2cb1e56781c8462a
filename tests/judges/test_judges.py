"""Judging in the product: pairs from an evaluation against the median human or the starting
model, a pairs file with bad lines, noise and slower pairs left unjudged, both judges through
the service (the LLM on a loopback chat server: blind, cached, an invalid reply recorded as
that pair's `unclear` with its text), evidence measured on the problem's generator, the real
model's own programs judged, a person's correction in the agreement matrix, the command, the
pages, and a real worker on the `judge` queue."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from execution.samples import FAST, SLOW
from foundation.tenancy import Team
from judges import reads, services
from judges.categories import CATEGORIES, VERDICTS
from judges.labelled import UNSEEN
from judges.models import JudgeBatch, JudgePair, Judgment
from tests.conftest import wait_for_status
from tests.evaluations.test_evaluations import evaluate_upload, lines
from tests.llm_server import ChatServer, reply

pytestmark = pytest.mark.django_db(transaction=True)

LOOPING = "n = int(input())\nt = 0\nfor i in range(1, n + 1):\n    t += i\nprint(t)\n"
FORMULA = "n = int(input())\nprint(n * (n + 1) // 2)\n"
PAIRS = lines(
    {"problem": "triangle", "baseline": LOOPING, "optimized": FORMULA, "baseline_s": 0.5,
     "optimized_s": 0.02},
    {"problem": "triangle", "baseline": LOOPING, "optimized": LOOPING + "\n", "baseline_s": 0.5,
     "optimized_s": 0.49},
    {"problem": "triangle", "baseline": FORMULA, "optimized": LOOPING, "baseline_s": 0.02,
     "optimized_s": 0.5},
    {"problem": "triangle", "baseline": LOOPING, "optimized": FORMULA, "statement": "1+..+n"},
    "{broken",
    {"problem": "triangle", "baseline": LOOPING},
    {"problem": "triangle", "baseline": LOOPING, "optimized": FORMULA, "baseline_s": -1},
)  # fmt: skip


def batch_of(user, data, upload=None, **kwargs) -> JudgeBatch:
    request = services.check_judge_request(user, data, upload)
    batch = services.do_create_batch(user, Team.objects.get(name="red"), request, queue=False)
    assert services.do_run_batch(batch.pk, **kwargs) == "done"
    batch.refresh_from_db()
    return batch


def test_pair_kinds_follow_the_noise_band():
    assert services.pair_kind(1.0, 0.5, 0.05) == "faster"
    assert services.pair_kind(1.0, 0.96, 0.05) == "within_noise"
    assert services.pair_kind(1.0, 1.2, 0.05) == "slower"
    assert services.pair_kind(None, 0.5, 0.05) == "unmeasured"
    assert services.pair_kind(float("inf"), 0.5, 0.05) == "faster"


def test_a_pairs_file_is_judged_with_bad_lines_and_noise_left_out(alice):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    assert batch.input_errors == [
        {"line": 5, "error": "not JSON (Expecting property name enclosed in double quotes)"},
        {"line": 6, "error": "optimized: missing or not a string"},
        {"line": 7, "error": "baseline_s: not a positive number of seconds"},
    ]
    kinds = list(batch.pairs.order_by("pk").values_list("kind", flat=True))
    assert kinds == ["faster", "within_noise", "slower", "unmeasured"]
    verdicts = Judgment.objects.filter(pair__batch=batch).order_by("pair_id")
    assert [(v.pair.kind, v.judge, v.category) for v in verdicts] == [
        ("faster", "analyzer", "math_shortcut"),
        ("unmeasured", "analyzer", "math_shortcut"),
    ]
    breakdown = reads.breakdown(batch)
    assert breakdown["judges"]["analyzer"]["categories"]["math_shortcut"] == 2
    assert breakdown["kinds"]["within_noise"] == 1 and breakdown["paper"]["io"] == 0.47


def test_an_evaluation_gives_one_pair_per_problem_against_the_median_human(built, alice, capsys):
    evaluation = evaluate_upload(alice, lines({"problem": "sum", "program": FAST}))
    batch = batch_of(alice, {"evaluation": evaluation.pk, "judge": "analyzer"})
    pair = batch.pairs.get()
    assert pair.problem_slug == "sum" and pair.optimized == FAST
    assert pair.baseline_label == "median human reference (accepted/middle.py)"
    assert pair.baseline_s > pair.optimized_s > 0 and pair.kind == "faster"
    assert pair.baseline_exponent is not None  # measured by the evaluation's complexity step
    verdict = pair.judgments.get()
    assert verdict.judge == "analyzer"
    # the pair's evidence, measured on the problem's generator, decided the verdict
    assert pair.evidence and len(pair.evidence["sizes"]) >= 2, pair.evidence_note
    assert pair.evidence["outputs_agree"] is True and pair.evidence["ratio"] > 1
    assert pair.evidence["baseline"]["io"][-1] is not None  # counted with symbols
    assert "cost ratio" in verdict.rationale and "structure only" not in verdict.rationale
    shown = reads.pair_rows(batch)[0]["evidence"]
    assert shown["rows"][-1]["size"] == pair.evidence["sizes"][-1]
    with pytest.raises(ValueError, match="baseline: no finished evaluation of the starting"):
        services.check_judge_request(alice, {"evaluation": evaluation.pk, "baseline": "start"})
    slow = evaluate_upload(alice, lines({"problem": "sum", "program": SLOW}), complexity=False)
    with pytest.raises(ValueError, match="evaluation: 'x' is not a whole number"):
        services.check_judge_request(alice, {"evaluation": "x"})
    with pytest.raises(ValueError, match=f"baseline_evaluation: evaluation {evaluation.pk} is the"):
        services.check_judge_request(
            alice, {"evaluation": evaluation.pk, "baseline_evaluation": evaluation.pk,
                    "baseline": "start"}
        )  # fmt: skip
    against_start = services.check_judge_request(
        alice,
        {"evaluation": evaluation.pk, "baseline": "start", "baseline_evaluation": slow.pk},
    )
    assert against_start.pairs[0].baseline == SLOW
    call_command(
        "judge", "--evaluation", str(evaluation.pk), "--baseline-evaluation", str(slow.pk),
        "--user", "alice", "--json",
    )  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    assert printed["baseline_label"].startswith(f"{slow.name}, sample ")
    assert printed["kind"] == "faster" and printed["judges"]["analyzer"]["category"]
    with pytest.raises(ValueError, match="pairs: judge either a file of pairs or an evaluation"):
        services.check_judge_request(alice, {"evaluation": evaluation.pk}, ("p.jsonl", PAIRS))
    with pytest.raises(ValueError, match="baseline: a file of pairs brings its own baselines"):
        services.check_judge_request(alice, {"baseline": "start"}, ("p.jsonl", PAIRS))
    with pytest.raises(ValueError, match="judge: no LLM endpoint is configured"):
        services.check_judge_request(alice, {"evaluation": evaluation.pk, "judge": "llm"})


def test_the_llm_judge_is_blind_cached_and_an_invalid_reply_is_that_pairs_unclear(
    alice, monkeypatch
):
    server = ChatServer()
    try:
        monkeypatch.setenv("JUDGE_LLM_BASE_URL", server.url)
        monkeypatch.setenv("JUDGE_LLM_MODEL", "gpt-oss-120b")
        monkeypatch.setenv("JUDGE_LLM_MAX_RETRIES", "0")
        monkeypatch.setenv("JUDGE_LLM_INVALID_RETRIES", "0")
        monkeypatch.setenv("JUDGE_LLM_CONCURRENCY", "1")
        server.script = [("reply", reply("math_shortcut")), ("reply", "not json")]
        first = batch_of(alice, {"name": "secret-run-name"}, ("secret-model.jsonl", PAIRS))
        assert first.judges == ["analyzer", "llm"] and first.llm_model == "gpt-oss-120b"
        llm = Judgment.objects.filter(pair__batch=first, judge="llm").order_by("pair_id")
        assert [(v.category, v.error) for v in llm] == [("math_shortcut", ""), ("unclear", "")]
        # the model answered but never validly: an abstention, its words kept, the batch done
        assert llm[1].raw == "not json" and "reply is not JSON" in llm[1].rationale
        assert first.status == "done"
        assert llm[0].cost == 0 and llm[0].latency_s > 0 and llm[0].input_tokens == 100
        sent = json.dumps(server.requests)
        assert len(server.requests) == 2
        for secret in ("secret-run-name", "secret-model", "line 1", "baseline", "optimized"):
            assert secret not in sent
        # the same content again: the valid verdict comes from the cache, unclear is re-asked
        server.script = [("reply", reply("algorithmic"))]
        again = batch_of(alice, {"judge": "llm"}, ("again.jsonl", PAIRS))
        cached = Judgment.objects.filter(pair__batch=again, judge="llm").order_by("pair_id")
        assert [(v.category, v.cached) for v in cached] == [
            ("math_shortcut", True),
            ("algorithmic", False),
        ]
        assert len(server.requests) == 3
        matrices = reads.agreement(first)
        # the LLM's abstention is in the matrix too, in its own `unclear` column
        assert [(m["first"], m["second"], m["pairs"]) for m in matrices] == [("analyzer", "llm", 2)]
        assert matrices[0]["matrix"][VERDICTS.index("math_shortcut")][VERDICTS.index("unclear")]
    finally:
        server.close()


def test_a_person_corrects_a_category_and_it_enters_the_agreement(alice):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    pair = batch.pairs.filter(kind="faster").get()
    services.do_label(pair, alice, "algorithmic", "a loop became a formula, but call it so")
    matrix = reads.agreement(batch)[0]
    assert (matrix["first"], matrix["second"], matrix["agreement"]) == ("analyzer", "human", 0.0)
    row = reads.pair_rows(batch, {"category": "algorithmic"})
    assert [r["pair"] for r in row] == [pair.pk]  # the shown verdict is the person's
    assert row[0]["judges"]["human"]["by"] == "alice"
    with pytest.raises(ValueError, match="category: 'fast' is not one of"):
        services.do_label(pair, alice, "fast")


def test_the_command_prints_one_object_per_pair(alice, tmp_path, capsys):
    path = tmp_path / "pairs.jsonl"
    path.write_text(PAIRS)
    call_command("judge", "--pairs", str(path), "--user", "alice", "--json")
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(p["kind"], p["category"]) for p in printed] == [
        ("faster", "math_shortcut"),
        ("within_noise", None),
        ("slower", None),
        ("unmeasured", "math_shortcut"),
    ]
    # no problem "triangle" here to measure on: the syntax decides, and says so
    assert printed[0]["rationale"].startswith(
        "structure only (no problem 'triangle' with an input generator here): every loop "
        "(depth 1) replaced by a closed-form"
    )
    assert printed[0]["evidence"] is None and printed[0]["speedup"] == pytest.approx(25.0)
    # a labelled set, its first pair of each category, judged without measuring
    call_command(
        "judge", "--pairs", str(UNSEEN), "--per-category", "1", "--no-measure", "--user",
        "alice", "--json",
    )  # fmt: skip
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(printed) == len(CATEGORIES)
    batch = JudgeBatch.objects.order_by("-pk").first()
    assert not batch.measure and sorted(batch.pairs.values_list("true_category", flat=True)) == (
        sorted(CATEGORIES)
    )
    assert all(
        p["rationale"].startswith("structure only (the batch does not measure)") for p in printed
    )


def test_the_pages_start_show_filter_and_correct(alice, bob, client, enqueued):
    client.force_login(alice)
    bad = client.post("/judges/", {"judge": "analyzer"})
    assert bad.status_code == 400 and "evaluation: choose a run" in bad.content.decode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/judges/", {"judge": "analyzer", "pairs": SimpleUploadedFile("p.jsonl", PAIRS.encode())}
    )
    batch = JudgeBatch.objects.get()
    assert response.status_code == 302 and response.url == f"/judges/{batch.pk}/"
    assert enqueued == [("judges.judge", [batch.pk], None)]
    services.do_run_batch(batch.pk)
    listed = client.get("/judges/data.json").json()["batches"]
    assert [(b["id"], b["status"], b["pairs"], b["progress_done"]) for b in listed] == [
        (batch.pk, "done", 4, 2)
    ]
    page = client.get(f"/judges/{batch.pk}/").content.decode()
    assert page.count('<section class="pair"') == 4
    assert '<span class="k">for</span>' in page  # syntax-highlighted by pygments
    assert "within measurement noise" in page and 'id="judge-data"' in page
    only = client.get(f"/judges/{batch.pk}/?category=math_shortcut").content.decode()
    assert only.count('<section class="pair"') == 2
    pair = batch.pairs.get(kind="faster")
    client.post(f"/judges/pairs/{pair.pk}/label/", {"category": "io", "rationale": "checking"})
    assert Judgment.objects.get(pair=pair, judge="human").category == "io"
    assert client.post(f"/judges/pairs/{pair.pk}/label/", {"category": "x"}).status_code == 400
    client.force_login(bob)
    assert client.get(f"/judges/{batch.pk}/").status_code == 404
    assert client.post(f"/judges/pairs/{pair.pk}/label/", {"category": "io"}).status_code == 404
    assert client.get("/judges/data.json").json()["batches"] == []
    assert JudgePair.objects.count() == 4


def test_a_real_worker_judges_a_batch_on_the_judge_queue(alice, celery_worker_process):
    request = services.check_judge_request(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    batch = services.do_create_batch(alice, Team.objects.get(name="red"), request)
    wait_for_status(celery_worker_process, batch, ("done", "failed"), 60, "the batch to end")
    assert batch.status == "done", batch.error
    # two judged pairs, each a step for its evidence (none here: no such problem) and one
    # for the analyzer
    assert batch.progress_done == batch.progress_total == 4
    assert batch.pairs.filter(evidence_note__startswith="no problem 'triangle'").count() == 2


def test_a_pairs_files_ground_truth_is_kept_and_a_bad_one_is_named_by_line():
    text = lines(
        {"problem": "a", "baseline": "x", "optimized": "y", "category": "io"},
        {"problem": "b", "baseline": "x", "optimized": "y", "category": "magic"},
        {"problem": "c", "baseline": "x", "optimized": "y"},
    )
    pairs, errors = services.parse_pairs_file(text)
    assert [p.true_category for p in pairs] == ["io", ""]
    (error,) = errors
    assert error["line"] == 2 and error["error"].startswith("category: 'magic' is not one of")


def test_human_labels_download_as_a_pairs_file_that_judges_again_with_them_as_truth(
    client, alice, bob
):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    faster, unmeasured = batch.pairs.get(kind="faster"), batch.pairs.get(kind="unmeasured")
    client.force_login(alice)
    url = f"/judges/{batch.pk}/labels.jsonl"
    assert client.get(url).content == b""  # nothing labelled yet: an empty file
    services.do_label(faster, alice, "math_shortcut", "a loop became a formula")
    services.do_label(unmeasured, alice, "algorithmic")
    response = client.get(url)
    assert response["Content-Type"] == "application/x-ndjson"
    assert f"judge-batch-{batch.pk}-labels.jsonl" in response["Content-Disposition"]
    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [(r["problem"], r["category"], r["labelled_by"]) for r in rows] == [
        ("triangle", "math_shortcut", "alice"),
        ("triangle", "algorithmic", "alice"),
    ]
    assert rows[0]["baseline"] == faster.baseline and rows[0]["optimized_s"] == 0.02
    assert rows[0]["note"] == "a loop became a formula" and "note" not in rows[1]
    page = client.get(f"/judges/{batch.pk}/").content.decode()
    assert f'href="{url}" id="export-labels"' in page
    # the file is a pairs file: judged again, the labels are the ground truth
    again = batch_of(alice, {"judge": "analyzer"}, ("labels.jsonl", response.content.decode()))
    assert sorted(again.pairs.values_list("true_category", flat=True)) == [
        "algorithmic",
        "math_shortcut",
    ]
    client.force_login(bob)  # another team's batch: no such batch
    assert client.get(url).status_code == 404


def test_a_real_models_evaluation_feeds_a_judge_batch_of_its_own_programs(built, alice):
    """The real pretrained model (smollm2-135m-instruct, from its GGUF) writes the programs; its
    evaluation's median correct sample is judged against the median human reference, with
    evidence measured on the problem's generator: machine-written pairs in the diff review."""
    from evaluations import services as evaluation_services
    from problems.models import Problem
    from tests.problems.test_function_tasks import SUM

    # posed as a function, as the demo poses its problems: the model writes `total(nums)`
    Problem.objects.filter(slug="sum").update(function_task=SUM)
    request = evaluation_services.check_evaluation_request(
        alice,
        {"source": "model", "model": "smollm2-135m-instruct", "split": "all", "problems": ["sum"],
         "n": 4, "temperature": 0.8, "seed": 3, "max_new_tokens": 96, "complexity": False},
    )  # fmt: skip
    evaluation = evaluation_services.do_create_evaluation(
        alice, Team.objects.get(name="red"), request, queue=False
    )
    assert evaluation_services.do_run_evaluation(evaluation.pk) == "done"
    written = evaluation.samples.filter(correct=True)
    assert written.exists(), "the model wrote no correct program for sum (seeded: it did)"
    batch = batch_of(alice, {"evaluation": evaluation.pk, "judge": "analyzer"})
    pair = batch.pairs.get()
    assert pair.optimized in set(written.values_list("program", flat=True))
    assert pair.optimized_label.startswith(f"{evaluation.name}, sample ")
    # seeded: its median correct program, `sum(nums)` in a function, beats the human loop
    assert pair.kind == "faster" and "def total(nums)" in pair.optimized
    assert pair.evidence and pair.evidence["outputs_agree"] is True, pair.evidence_note
    verdict = pair.judgments.get(judge="analyzer")
    assert verdict.category == "constant_factor", verdict.rationale
    assert "cost ratio" in verdict.rationale  # decided on what was measured
    _, (review,) = reads.review_page(batch, {}, 1)  # the diff review shows the model's code
    assert review["evidence"]["rows"] and any("total" in line["right"] for line in review["diff"])
