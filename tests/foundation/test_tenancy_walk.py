"""Tenancy (issue 16, item 2): every URL and API route walked as a user of another team and
as an anonymous caller. Team-scoped objects answer 404 (never revealing that they exist),
shared ones may be read but changed only by those allowed, nothing changes, and no page or
list shows another team's objects."""

from __future__ import annotations

import re
import uuid

import pytest
from django.apps import apps
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import URLResolver, get_resolver

from tests.conftest import token_client

pytestmark = pytest.mark.django_db

SECRET = "red-secret-7f3a"  # in the name of every object of alice's team
# Each model's owner scope (docs/security.md, "Tenancy"): the test fails when a model is added
# without saying which it is.
TEAM_SCOPED = {
    "runs.Run", "runs.MetricSeries", "runs.MetricPoint", "runs.MetricRollup",
    "workers.TrainingRun", "workers.ScoringJob", "workers.RolloutSample", "workers.TimingJob",
    "evaluations.Evaluation", "evaluations.EvaluationSample",
    "judges.JudgeBatch", "judges.JudgePair", "judges.Judgment",
    "runs.LiveMessage",  # a run's live messages, relayed only to that run's viewers
    "workers.ScoringPart",  # a group of a ScoringJob: its job's scope, read only through it
    "workers.ScoringGather",  # samples its owner sent one at a time: answered only to them
}  # fmt: skip
SHARED = {
    "runs.Team", "problems.Problem", "problems.ProblemTest", "problems.ReferenceSolution",
    "problems.ReferenceRuntime", "problems.DatasetBuild", "problems.ProblemBuild",
    "problems.Calibration", "problems.InputGenerator", "rewards.RewardConfig",
    "rewards.Simulation", "workers.WorkerHeartbeat", "workers.HostCalibration",
    # fidelity diagnostics: a host's timing noise, the design space ranked on the problem set
    "workers.ModeNoiseCheck", "rewards.RewardRanking",
}  # fmt: skip
# answer anyone (healthz: up/down only; favicon: the site's icon)
PUBLIC = {"healthz", "favicon", "schema", "api-docs", "api-redoc", "api-redoc-bundle"}
# routes whose path names one of red's objects
RED_PATHS = {
    "run-detail", "run-progress", "training-stop", "run-samples", "judge-batch", "judge-label",
    "timing-retry", "rewards-recommend", "api-run-detail", "api-run-metrics",
    "api-sandbox-failure-retry",
}  # fmt: skip
APPS = ("runs", "problems", "rewards", "workers", "evaluations", "judges")


def row(o) -> str:
    return repr(sorted(model_to_dict(o).items(), key=str))


# rows a live worker process rewrites on its own every few seconds (a Celery worker another
# test of this process started beats into the same database): no request writes them
LIVE = {"workers.WorkerHeartbeat"}


def snapshot() -> dict:
    """{model: {pk: row as plain values}} of every row of the project's models but LIVE."""
    return {
        m._meta.label: {o.pk: row(o) for o in m.objects.all()}
        for m in apps.get_models()
        if m._meta.app_label in APPS and m._meta.label not in LIVE
    }


def assert_nothing_of_red_changed(before: dict, red_team) -> None:
    """Every row that existed is unchanged; a row added (another user's own new run, say)
    is not red's."""
    after = snapshot()
    for label, rows in before.items():
        for pk, row in rows.items():
            assert after[label].get(pk) == row, (label, pk, "changed or deleted")
        for pk in set(after[label]) - set(rows):
            added = apps.get_model(label).objects.get(pk=pk)
            assert getattr(added, "team_id", None) != red_team.pk, (label, pk, "added to red")


def test_every_model_has_a_stated_owner_scope():
    models = {m._meta.label for m in apps.get_models() if m._meta.app_label in APPS}
    unstated = models - TEAM_SCOPED - SHARED
    assert not unstated, f"say whether these are team-scoped or shared: {sorted(unstated)}"


@pytest.fixture
def red_objects(alice, built):
    """One object of every team-scoped kind a path can name, all alice's (team red)."""
    from evaluations.models import Evaluation
    from foundation.tenancy import Team
    from judges.models import JudgeBatch, JudgePair
    from rewards.models import RewardConfig
    from runs import services
    from timing.models import TimingJob

    red = Team.objects.get(name="red")
    run = services.do_create_run(owner=alice, team=red, name=f"{SECRET}-run")
    evaluation = Evaluation.objects.create(
        owner=alice, team=red, name=f"{SECRET}-evaluation", source="completions"
    )
    batch = JudgeBatch.objects.create(owner=alice, team=red, name=f"{SECRET}-batch")
    pair = JudgePair.objects.create(batch=batch, problem_slug="sum", baseline="a", optimized="b")
    job = TimingJob.objects.create(
        owner=alice, package_dir=f"/{SECRET}", source="print(1)", status="failed",
        error="sandbox: could not start",
    )  # fmt: skip
    config = RewardConfig.objects.create(name="red-shared-config", team=red, fields={})
    return {
        "run_id": run.pk, "batch_id": batch.pk, "pair_id": pair.pk, "config_id": config.pk,
        "job_id": str(job.pk), "kind": "timing", "slug": "sum", "evaluation": evaluation.pk,
    }  # fmt: skip


def routes(objects: dict) -> list[tuple[str, str]]:
    """(pattern name, URL) of every route, pages and API alike, with the red objects' ids
    in the path."""
    found = []

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                if "admin" in str(p.pattern):
                    continue
                walk(p.url_patterns, prefix + str(p.pattern))
                continue
            route = (prefix + str(p.pattern)).replace("^", "").replace("$", "")
            if "format>" in route:  # the router's .json suffix variants
                continue
            # fill path converters and the router's regex groups
            route = re.sub(
                r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)",
                lambda m: str(objects.get(m.group(1) or m.group(2), objects["run_id"])),
                route,
            )
            found.append((p.name or route, "/" + route))

    walk(get_resolver().url_patterns)
    return found


def test_another_team_and_anonymous_callers_reach_nothing_of_red(red_objects, bob, enqueued):
    walked = routes(red_objects)
    assert len(walked) >= 30
    bob_page, bob_api, anonymous = Client(), token_client(bob), Client()  # API: a token
    bob_page.force_login(bob)
    before = snapshot()
    for name, url in walked:
        if name in ("login", "logout"):
            continue
        for method in ("get", "post", "patch"):
            bob_client = bob_api if url.startswith("/api/") else bob_page
            for who, client in (("bob", bob_client), ("anonymous", anonymous)):
                response = getattr(client, method)(url, {})
                body = response.content.decode(errors="replace")
                assert response.status_code < 500, (who, method, url, response.status_code)
                assert SECRET not in body, (who, method, url, "shows red's object")
                if who == "anonymous" and name not in PUBLIC:
                    assert response.status_code in (302, 401, 403, 404, 405), (method, url)
                    if response.status_code == 302:
                        assert response["Location"].startswith("/accounts/login/"), url
                elif method == "get" and response.status_code == 200:
                    # a page another team may read names nothing of red
                    assert SECRET not in body
                elif name in RED_PATHS:
                    # a path naming red's object: as if it did not exist (or not allowed)
                    assert response.status_code in (400, 403, 404, 405), (who, method, url)
    from foundation.tenancy import Team

    assert_nothing_of_red_changed(before, Team.objects.get(name="red"))


def test_only_its_team_or_staff_change_a_shared_configuration(red_objects, bob, alice, make_user):
    from rewards.models import RewardConfig

    config_id = red_objects["config_id"]
    bob_page, alice_page = Client(), Client()
    bob_page.force_login(bob)
    alice_page.force_login(alice)
    url = f"/rewards/configs/{config_id}/recommend/"
    assert bob_page.post(url, {"recommended": "1"}).status_code == 403
    assert not RewardConfig.objects.get(pk=config_id).recommended
    # saving over red's configuration by name is refused too, and says who may
    answer = bob_page.post(
        "/rewards/",
        {"form": "config", "name": "red-shared-config", "fields": "speed_bar: 10", "team": "blue"},
    )
    assert answer.status_code == 403
    assert "belongs to team &#x27;red&#x27;" in answer.content.decode()
    assert RewardConfig.objects.get(pk=config_id).fields == {}
    # the built-in set: staff only
    builtin = RewardConfig.objects.create(name=f"builtin-{uuid.uuid4().hex[:6]}", fields={})
    assert alice_page.post(f"/rewards/configs/{builtin.pk}/recommend/", {"recommended": "1"}
                           ).status_code == 403  # fmt: skip
    assert alice_page.post(url, {"recommended": "1"}).status_code == 302
    staff = Client()
    staff.force_login(make_user("root", staff=True))
    assert staff.post(f"/rewards/configs/{builtin.pk}/recommend/", {"recommended": "1"}
                      ).status_code == 302  # fmt: skip
    assert RewardConfig.objects.get(pk=config_id).recommended
    assert RewardConfig.objects.get(pk=builtin.pk).recommended_by == "root"
    # a new configuration saved from the page belongs to the saver's team
    alice_page.post("/rewards/", {"form": "config", "name": "alices", "fields": "speed_bar: 20"})
    assert RewardConfig.objects.get(name="alices").team.name == "red"


def test_page_and_api_routes_have_names_of_their_own(alice_client_page):
    """The router once took the pages' names (run-list, run-detail): every run link of the
    site opened the API's browsable page."""
    from django.urls import reverse

    assert reverse("run-list") == "/" and reverse("run-detail", args=[7]) == "/runs/7/"
    assert reverse("api-run-detail", args=[7]) == "/api/runs/7/"
    client, run = alice_client_page
    page = client.get("/").content.decode()
    assert f'href="/runs/{run.pk}/"' in page and 'href="/api/runs/' not in page
    ids = {"run_id": 1, "batch_id": 1, "pair_id": 1, "config_id": 1, "job_id": "j"}
    names = [name for name, _ in routes({**ids, "kind": "timing", "slug": "s"})]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.fixture
def alice_client_page(alice, alice_run):
    client = Client()
    client.force_login(alice)
    return client, alice_run
