"""The base-model baseline through the evaluation service with the real pretrained model
(smollm2-135m-instruct, loaded from its converted cache, never mocked): prompted through its
chat template, each program taken from its completion and followed by the problem's harness,
scored, and the stored pτ read from the samples' own verdicts."""

from __future__ import annotations

import pytest

from evaluations import services
from evaluations.running import evaluation_problems
from foundation.tenancy import Team
from problems.models import Problem
from tests.problems.test_function_tasks import SUM

pytestmark = pytest.mark.django_db(transaction=True)

MODEL = "smollm2-135m-instruct"


def test_the_real_model_is_evaluated_through_its_chat_format_with_the_harness(
    built, alice, tmp_path
):
    Problem.objects.filter(slug="sum").update(function_task=SUM)
    request = services.check_evaluation_request(
        alice,
        {
            "source": "model",
            "model": MODEL,
            "split": "all",
            "n": 4,
            "temperature": 0.8,
            "max_new_tokens": 96,
            "complexity": False,
        },
    )
    evaluation = services.do_create_evaluation(
        alice, Team.objects.get(name="red"), request, queue=False
    )
    assert evaluation.name == f"{MODEL} (base)"
    (posed,) = evaluation_problems(evaluation, tmp_path)
    assert posed.prompt.startswith("<|im_start|>") and SUM["request"] in posed.prompt
    assert posed.harness == SUM["harness"]

    assert services.do_run_evaluation(evaluation.pk) == "done"
    evaluation.refresh_from_db()
    samples = list(evaluation.samples.order_by("index"))
    assert [s.index for s in samples] == [0, 1, 2, 3] and all(s.verdict for s in samples)
    written = [s for s in samples if s.program]
    assert written, [s.completion for s in samples]  # the model writes a fenced function
    for sample in written:  # the text up to the closing fence, then the harness that calls it
        assert sample.program.endswith("\n\n\n" + SUM["harness"])
        function = sample.program[: -len("\n\n\n" + SUM["harness"])]
        assert function.strip() and function in sample.completion
        after = sample.completion[sample.completion.index(function) + len(function) :]
        assert after.lstrip().startswith("```")
    for sample in samples:
        if sample.correct:
            assert "def total(" in sample.program
        if not sample.program:
            assert sample.verdict == "FORMAT" and not sample.correct
    correct = sum(s.correct for s in samples)
    assert evaluation.results["p_tau"]["100"]["value"] == pytest.approx(correct / 4)
    assert evaluation.results["n_problems"] == 1
