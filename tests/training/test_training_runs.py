"""Training runs in the product: a request is checked before anything starts, a run trains
the tiny model on a built problem and reports through the ingest path, its samples are
stored, a crashed run resumes with a continuous metric series, and a real worker on the
`gpu` queue runs one."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.management import call_command

from foundation.tenancy import Team
from problems.models import Problem
from runs.models import MetricPoint, MetricSeries, Run
from scoring import coordinator
from scoring.models import ScoringJob
from tests.conftest import wait_for_status
from training import lease, sink
from training import services as training_services
from training.config import TrainConfig
from training.models import RolloutSample, TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {
    "split": "all",
    "group_size": 2,
    "prompts_per_step": 1,
    "steps": 2,
    "max_new_tokens": 48,
    "warm_start_steps": 20,
    "checkpoint_every": 1,
    "reward_config": "binary-top50",
    "scoring": "local",
}


def start_run(user, queue: bool = False, **changes) -> Run:
    """A checked training run of SMALL with `changes`, in the user's team "red"."""
    config, reward = training_services.check_train_request({**SMALL, **changes})
    return training_services.do_start_training(
        owner=user,
        team=Team.objects.get(name="red"),
        name="r",
        config=config,
        reward=reward,
        queue=queue,
    )


def steps_of(run: Run, key: str) -> list[int]:
    series = MetricSeries.objects.get(run=run, key=key)
    return list(MetricPoint.objects.filter(series=series).values_list("step", flat=True))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"reward_config": "nope"}, "reward_config: no stored configuration 'nope'"),
        ({"group_size": 1}, "group_size: must be in [2, 1024], not 1"),
        ({"token_budget": 0}, "token_budget: must be in [1, 10000000], not 0"),
        ({"model": "/nowhere"}, "model: must be 'tiny', 'smollm2-135m-instruct' or a path under "),
    ],
)
def test_a_bad_request_is_named_before_anything_starts(built, change, message):
    with pytest.raises(ValueError) as error:
        training_services.check_train_request({**SMALL, **change})
    assert str(error.value).startswith(message)
    assert not Run.objects.exists()


def test_the_command_trains_the_tiny_model_and_reports_every_step(built, alice, tmp_path):
    config = tmp_path / "run.toml"
    config.write_text("\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in SMALL.items()) + "\n")
    call_command("train", str(config), "--user", "alice")
    run = Run.objects.get()
    assert run.status == "finished" and run.reward_config.name == "binary-top50"
    assert run.tags == ["training"] and '"group_size": 2' in run.config
    # each step reported at the optimizer steps done: the 2nd update's point is step 2, as
    # its checkpoint's name and the run's last step say
    assert steps_of(run, "rewards/mean") == [1, 2]
    assert steps_of(run, "groups/all_negative") == [1, 2]
    assert steps_of(run, "time/overhead_share") == [1, 2]
    samples = RolloutSample.objects.filter(training__run=run)
    assert samples.count() == 4 and {s.problem.slug for s in samples} == {"sum"}
    assert {(s.step, s.group, s.index, s.policy_version) for s in samples} == {
        (step, 0, i, 0)
        for step in (1, 2)
        for i in (0, 1)  # step 2's batch: sampled by 0
    }
    training = TrainingRun.objects.get(run=run)
    assert training.version == 2 and training.attempts == 1 and training.stage == "finished"
    assert run.last_step == 2 and max(training_services.checkpoint_steps(training)) == 2


def test_a_crashed_run_resumes_from_its_checkpoint_with_a_continuous_series(
    built, alice, monkeypatch
):
    run = start_run(alice, steps=3)
    original = sink.DatabaseSink.log
    crashed = []

    def dies_once_at_step_2(self, step, metrics):
        if step == 2 and not crashed:
            crashed.append(step)
            raise SystemExit("worker lost")  # like a killed worker: nothing below runs
        original(self, step, metrics)

    monkeypatch.setattr(sink.DatabaseSink, "log", dies_once_at_step_2)
    with pytest.raises(SystemExit):
        training_services.do_run_training(run.pk)
    run.refresh_from_db()
    assert run.status == "running"  # the task was not acknowledged: it comes back
    assert steps_of(run, "rewards/mean") == [1]
    assert training_services.do_run_training(run.pk) == "finished"  # the re-delivery
    assert steps_of(run, "rewards/mean") == [1, 2, 3]
    assert TrainingRun.objects.get(run=run).attempts == 2
    assert RolloutSample.objects.filter(training__run=run).count() == 3 * 2


def test_a_resumed_run_keeps_nothing_its_killed_attempt_logged_past_the_checkpoint(
    built, alice, monkeypatch
):
    # checkpoints at versions 2 and 4: the killed attempt logs step 3 (with a key the
    # resumed one does not write, as staleness/age_1 was at a resume step) and stores its
    # samples, then dies at step 4; the resumed one re-runs steps 3 and 4 from version 2
    run = start_run(alice, steps=4, checkpoint_every=2)
    original_log, original_samples = sink.DatabaseSink.log, sink.DatabaseSink.samples
    attempt = {"killed": False}

    def log(self, step, metrics):
        if not attempt["killed"] and step == 3:
            metrics = {**metrics, "killed/only": 1.0}
        if not attempt["killed"] and step == 4:
            attempt["killed"] = True
            raise SystemExit("worker lost")
        original_log(self, step, metrics)

    def samples(self, step, rows):
        if not attempt["killed"] and step == 3:
            rows = [*rows, dataclasses.replace(rows[0], index=99)]  # one the resume lacks
        original_samples(self, step, rows)

    monkeypatch.setattr(sink.DatabaseSink, "log", log)
    monkeypatch.setattr(sink.DatabaseSink, "samples", samples)
    with pytest.raises(SystemExit):
        training_services.do_run_training(run.pk, "worker-a")
    assert steps_of(run, "killed/only") == [3]
    assert training_services.do_run_training(run.pk, "worker-b") == "finished"
    assert not MetricSeries.objects.filter(run=run, key="killed/only").exists()
    assert steps_of(run, "rewards/mean") == [1, 2, 3, 4]
    for series in MetricSeries.objects.filter(run=run):  # summaries as the points say
        steps = steps_of(run, series.key)
        assert (series.count, series.first_step, series.last_step) == (
            len(steps),
            min(steps),
            max(steps),
        ), series.key
    stored = RolloutSample.objects.filter(training__run=run)
    assert sorted(stored.values_list("step", "index")) == [
        (step, i) for step in range(1, 5) for i in (0, 1)
    ]
    run.refresh_from_db()
    assert run.last_step == 4


def test_a_second_delivery_waits_while_the_first_trains_and_takes_over_a_dead_one(built, alice):
    from datetime import timedelta

    from django.utils import timezone

    run = start_run(alice, steps=1)
    TrainingRun.objects.filter(run=run).update(lease="worker-a:1", heartbeat_at=timezone.now())
    with pytest.raises(lease.RunBusy, match="trained by worker-a:1"):
        training_services.do_run_training(run.pk, "worker-b")
    run.refresh_from_db()
    assert run.status == "queued" and TrainingRun.objects.get(run=run).attempts == 0
    # worker-a stopped beating: its lease goes stale and worker-b takes the run over
    stale = timezone.now() - timedelta(seconds=lease.LEASE_STALE_S + 1)
    TrainingRun.objects.filter(run=run).update(heartbeat_at=stale)
    assert training_services.do_run_training(run.pk, "worker-b") == "finished"
    training = TrainingRun.objects.get(run=run)
    assert (training.worker, training.attempts, training.lease) == ("worker-b", 1, "")


def test_a_trainer_whose_lease_was_taken_stops_writing(built, alice, monkeypatch):
    run = start_run(alice, steps=3)
    original = sink.DatabaseSink.log

    def taken_over_at_step_2(self, step, metrics):
        if step == 2:  # a delivery that thought this one dead took the run
            TrainingRun.objects.filter(run=run).update(lease="worker-b:2")
        original(self, step, metrics)

    monkeypatch.setattr(sink.DatabaseSink, "log", taken_over_at_step_2)
    assert training_services.do_run_training(run.pk, "worker-a") == "lease lost"
    assert steps_of(run, "rewards/mean") == [1]
    samples = RolloutSample.objects.filter(training__run=run)
    assert set(samples.values_list("step", flat=True)) == {1}
    run.refresh_from_db()
    assert run.status == "running"  # the new owner's to end, not this one's
    assert TrainingRun.objects.get(run=run).lease == "worker-b:2"


def test_a_stop_request_ends_the_run_after_its_step(built, alice):
    run = start_run(alice, steps=5)
    training_services.do_request_stop(run)
    assert training_services.do_run_training(run.pk) == "stopped"
    assert steps_of(run, "rewards/mean") == [1]
    # every run checkpoints in a folder of its own, even if a run id comes back after a reset
    other = start_run(alice, steps=5)
    folders = {t.checkpoint_dir for t in TrainingRun.objects.filter(run__in=[run, other])}
    assert len(folders) == 2


def test_a_real_worker_trains_on_the_gpu_queue_and_scores_on_the_timing_queue(
    built, alice, celery_worker_process
):
    run = start_run(alice, queue=True, scoring="timing_queue")

    wait_for_status(
        celery_worker_process,
        run,
        ("finished", "failed", "stopped"),
        240,
        "the training run to end",
    )
    assert run.status == "finished", TrainingRun.objects.get(run=run).error
    assert steps_of(run, "eval/p100") == [1, 2]
    jobs = ScoringJob.objects.filter(training__run=run).order_by("step")
    assert [(j.step, j.status) for j in jobs] == [(1, "done"), (2, "done")]
    assert all(j.worker for j in jobs)  # measured by the worker, not the trainer's process
    stored = RolloutSample.objects.filter(training__run=run, step=1).order_by("index")
    first_group = coordinator.scored_groups(jobs[1].result)[0]
    assert [s.reward for s in stored] == [score["reward"] for score in first_group]


def test_a_scoring_job_is_scored_from_its_request(built, alice):
    run = start_run(alice)
    fast = Problem.objects.get(slug="sum").solutions.get(name="accepted/fast.py").code
    job = ScoringJob.objects.create(
        training=run.training,
        step=0,
        request={
            "reward_config": run.reward_config.engine_config().as_dict(),
            "groups": [{"problem": "sum", "programs": [fast, "print(0)\n", None]}],
        },
    )
    assert coordinator.do_score_rollouts(job.pk, "w") == "done"
    scores = coordinator._PolledScores(job.pk, timeout_s=1).result()[0]
    assert [s.verdict for s in scores] == ["OK", "WRONG_ANSWER", "FORMAT"]
    assert scores[0].correct and scores[0].speed_percentile is not None
    assert [s.reward for s in scores[1:]] == [-1.0, -1.0]


def test_the_config_fields_match_the_documented_defaults():
    config = TrainConfig()
    assert (config.group_size, config.token_budget, config.max_staleness_steps) == (16, 32768, 30)
    assert (config.clip_epsilon, config.kl_beta, config.normalize_std) == (0.2, 0.0, False)


def test_programs_the_policy_writes_are_run_and_judged_through_the_service(
    built, alice, monkeypatch
):
    """The policy is replaced by one that writes a known program (the fast reference, then
    a wrong one): what the service stores must be their true verdicts."""
    from training import loop
    from training.rollout import Sample, extract_program

    fast = Problem.objects.get(slug="sum").solutions.get(name="accepted/fast.py").code
    texts = [fast + "```\n", "print(0)\n```\n"]

    def writes_known_programs(model, tokenizer, prompts, group_size, **kwargs):
        return [
            Sample(p, [1], [2] * 3, texts[i], extract_program(texts[i]), False, 0, [-1.0] * 3)
            for p in range(len(prompts))
            for i in range(group_size)
        ]

    monkeypatch.setattr(loop, "sample_groups", writes_known_programs)
    run = start_run(alice, steps=1)
    assert training_services.do_run_training(run.pk) == "finished"
    stored = RolloutSample.objects.filter(training__run=run).order_by("index")
    assert [(s.verdict, s.correct) for s in stored] == [("OK", True), ("WRONG_ANSWER", False)]
    assert stored[0].speed_percentile is not None and stored[0].reward == 1.0


def test_a_prompt_can_carry_the_slowest_reference_to_make_faster(built, tmp_path):
    config = TrainConfig.from_dict({**SMALL, "baseline_program": True})
    problems, examples = training_services.training_problems(config, tmp_path)
    slow = Problem.objects.get(slug="sum").solutions.get(name="accepted/slow.py").code
    assert [p.slug for p in problems] == ["sum"]
    prompt = problems[0].prompt
    assert "### A correct but slow program" in prompt and slow.strip() in prompt
    assert prompt.endswith("```python\n") and len(examples) == 3  # fast, middle, slow
    plain, _ = training_services.training_problems(TrainConfig.from_dict(SMALL), tmp_path)
    assert "slow program" not in plain[0].prompt


def test_a_run_trains_only_the_problems_it_names_and_an_unbuilt_one_is_named(built, tmp_path):
    config, _ = training_services.check_train_request({**SMALL, "problems": ["sum"]})
    assert config.problems == ("sum",) and config.as_dict()["problems"] in (["sum"], ("sum",))
    problems, _ = training_services.training_problems(config, tmp_path)
    assert [p.slug for p in problems] == ["sum"]
    with pytest.raises(ValueError, match="problems: big-sum, nope: not a built problem"):
        training_services.check_train_request({**SMALL, "problems": ["sum", "nope", "big-sum"]})
    with pytest.raises(ValueError, match="problems: must be a list of texts"):
        TrainConfig.from_dict({**SMALL, "problems": "sum"})
    form = {k: v for k, v in TrainConfig().form_values().items() if not isinstance(v, bool)}
    assert TrainConfig.from_form({**form, "problems": " sum , "}).problems == ("sum",)
    assert TrainConfig.from_form({**form, "problems": ""}).problems == ()  # empty: all


def test_a_problem_posed_as_a_function_is_trained_on_its_request_with_its_harness(built, tmp_path):
    from tests.problems.test_function_tasks import SUM

    Problem.objects.filter(slug="sum").update(function_task=SUM)
    named = "smollm2-135m-instruct"
    for model, style_mark in (("tiny", "### total (Python 3)"), (named, "<|im_start|>user")):
        config, _ = training_services.check_train_request({**SMALL, "model": model})
        (problem,), examples = training_services.training_problems(config, tmp_path)
        assert SUM["request"] in problem.prompt and style_mark in problem.prompt
        assert problem.harness == SUM["harness"]
        assert examples == []  # the references are whole programs: no warm-start target


def test_a_split_without_built_problems_is_named(built):
    Problem.objects.filter(slug="sum").update(split="train")
    with pytest.raises(ValueError, match="split: no test problem has stored runtimes"):
        training_services.check_train_request({**SMALL, "split": "test"})
    assert training_services.check_train_request({**SMALL, "split": "train"})[0].split == "train"


def test_the_demo_runs_differ_only_in_the_recipe(built):
    """make demo's two runs (scripts/demo.sh): the paper's recipe and standard RLVR."""
    from pathlib import Path

    scripts = Path(__file__).resolve().parents[2] / "scripts"
    paper = TrainConfig.from_toml(scripts / "demo_train.toml").as_dict()
    rlvr = TrainConfig.from_toml(scripts / "demo_train_rlvr.toml").as_dict()
    for config in (paper, rlvr):
        training_services.check_train_request(config)
    changed = {key: (paper[key], rlvr[key]) for key in paper if paper[key] != rlvr[key]}
    assert changed == {
        "reward_config": ("binary-top30", "correctness-only"),
        "token_weighted_baseline": (True, False),
        "normalize_std": (False, True),
    }
