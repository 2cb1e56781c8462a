"""Paths from users: a Timing job's package folder and a base model's folder are accepted
only inside the configured roots (CODEOPT_PACKAGE_ROOTS, CODEOPT_MODEL_ROOTS); outside them
the answer is one fixed message whether the path exists or not, and nothing is stored or
queued (docs/security.md, "Paths from users")."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from evaluations.models import Evaluation
from execution.samples import write_sum_package
from foundation.env import ConfigError, env_paths
from problems import services as problem_services
from runs.models import Run
from tests.support.timing_jobs import MEASURE_JOB, submit_timing_job
from tests.training.test_training_pages import FORM as TRAINING_FORM
from timing.models import TimingJob
from training import services as training_services
from training.config import TrainConfig
from training.models import TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)

TIMING_FORM = {name: str(value) for name, value in MEASURE_JOB.items()}  # as the page posts it
EVALUATION_FORM = {"source": "model", "split": "all", "n": "2", "max_new_tokens": "16"}


def only_root(settings, setting: str, root: Path) -> Path:
    """`root`, made, as the one folder of the roots setting `setting`."""
    root.mkdir()
    setattr(settings, setting, [root])
    return root


@pytest.fixture
def package_root(tmp_path, settings) -> Path:
    """The only package root; tmp_path/outside is outside it."""
    return only_root(settings, "CODEOPT_PACKAGE_ROOTS", tmp_path / "root")


@pytest.fixture
def model_root(tmp_path, settings) -> Path:
    return only_root(settings, "CODEOPT_MODEL_ROOTS", tmp_path / "models")


def model_folder(path: Path) -> Path:
    """A folder that passes for a transformers model folder (it holds config.json)."""
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    return path


def via_proc_self_cwd(path: Path) -> str:
    """`path` named through /proc/self/cwd. The caller works in a folder above `path`: from a
    deeper one, enough `..` would collapse the name to `path` itself (os.path.normpath), and
    the test would name the plain path instead (it failed so when CI ran from /check/work/main)."""
    name = "/proc/self/cwd/" + os.path.relpath(path, os.getcwd())
    assert os.path.normpath(name).startswith("/proc/self/cwd/"), name
    return name


def answer(client, url: str, form: dict, field: str, value: str) -> tuple[int, str]:
    """(status, page) of a form post, the submitted value and the CSRF token (new on every
    page) blanked, so that two answers can be compared byte for byte."""
    response = client.post(url, {**form, field: value})
    page = response.content.decode().replace(value, "VALUE")
    return response.status_code, re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)


def small_config() -> dict:
    return TrainConfig.from_form(TRAINING_FORM).as_dict()


def refused_message(package_dir: str) -> str:
    with pytest.raises(ValueError) as error:
        submit_timing_job(None, package_dir)
    return str(error.value)


# -- package_dir -------------------------------------------------------------------------------


def test_a_package_dir_outside_the_roots_gets_one_answer_whether_it_exists_or_not(
    client, alice, package_root, tmp_path, enqueued
):
    there = write_sum_package(tmp_path / "outside" / "sum")
    missing = tmp_path / "outside" / "none"
    client.force_login(alice)

    status, page = answer(client, "/timing/", TIMING_FORM, "package_dir", str(there))
    assert (status, page) == answer(client, "/timing/", TIMING_FORM, "package_dir", str(missing))
    assert status == 200
    assert f"package_dir: must be a problem slug or a path under {package_root}" in page
    message = refused_message(str(there))
    assert message == refused_message(str(missing)) == refused_message("/etc")
    assert message == f"package_dir: must be a problem slug or a path under {package_root}"
    assert not TimingJob.objects.exists() and enqueued == []


# "root": the link leads into the root, refused all the same: the name itself must lie in one
@pytest.mark.parametrize("where", ["root", "outside"])
def test_a_package_dir_through_proc_self_cwd_is_refused(
    client, alice, package_root, where, monkeypatch
):
    monkeypatch.chdir(package_root.parent)
    package = write_sum_package(package_root.parent / where / "sum")
    client.force_login(alice)

    status, page = answer(
        client, "/timing/", TIMING_FORM, "package_dir", via_proc_self_cwd(package)
    )
    assert status == 200 and "package_dir: must be a problem slug or a path under" in page
    assert refused_message(via_proc_self_cwd(package)) == refused_message("/nowhere")
    assert not TimingJob.objects.exists()


def test_a_symlink_inside_a_root_that_leads_out_is_refused(client, alice, package_root, tmp_path):
    (package_root / "sum").symlink_to(write_sum_package(tmp_path / "outside" / "sum"))
    (package_root / "up").symlink_to(tmp_path / "outside")
    client.force_login(alice)

    for name in (
        package_root / "sum",
        package_root / "up" / "sum",
        package_root / ".." / "outside",
    ):
        status, page = answer(client, "/timing/", TIMING_FORM, "package_dir", str(name))
        assert status == 200 and "package_dir: must be a problem slug or a path under" in page
        assert refused_message(str(name)) == refused_message("/nowhere")
    assert not TimingJob.objects.exists()


def test_a_package_dir_under_a_root_is_queued_as_its_real_path(
    client, alice, package_root, tmp_path, settings, enqueued
):
    package = write_sum_package(package_root / "sum")
    (package_root / "empty").mkdir()
    (tmp_path / "root-link").symlink_to(package_root)  # a root configured through a link
    settings.CODEOPT_PACKAGE_ROOTS = [tmp_path / "root-link"]
    client.force_login(alice)

    response = client.post(
        "/timing/", {**TIMING_FORM, "package_dir": f"{tmp_path}/root-link/empty/../sum"}
    )
    assert response.status_code == 302
    job = TimingJob.objects.get()
    assert job.package_dir == str(package.resolve()) and job.owner == alice
    assert enqueued == [("timing.run_timing_job", [str(job.id)], None)]
    # inside a root the package's own problems keep their helpful message
    empty = str(tmp_path / "root-link" / "empty")
    assert (
        refused_message(empty) == f"package_dir: {package.parent.resolve()}/empty: no problem.yaml"
    )


def test_a_problem_slug_names_the_folder_it_was_imported_from(
    client, alice, package_root, tmp_path, enqueued
):
    package = write_sum_package(tmp_path / "imported" / "sum")  # the operator's import
    problem_services.do_import_packages(package)
    client.force_login(alice)

    response = client.post("/timing/", {**TIMING_FORM, "package_dir": "sum"})
    assert response.status_code == 302
    assert TimingJob.objects.get().package_dir == str(package.resolve())
    assert refused_message("no-such-problem") == refused_message("/nowhere")
    assert TimingJob.objects.count() == 1


# -- model -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "form", "rows"),
    [("/training/", TRAINING_FORM, Run), ("/evaluations/", EVALUATION_FORM, Evaluation)],
)
def test_a_model_path_outside_the_roots_gets_one_answer_whether_it_exists_or_not(
    built, client, alice, model_root, tmp_path, enqueued, url, form, rows
):
    there = model_folder(tmp_path / "outside" / "model")
    missing = tmp_path / "outside" / "none"
    client.force_login(alice)

    status, page = answer(client, url, form, "model", str(there))
    assert (status, page) == answer(client, url, form, "model", str(missing))
    refusal = "model: must be &#x27;tiny&#x27;, &#x27;smollm2-135m-instruct&#x27; or a path under"
    assert status == 400 and f"{refusal} {model_root}" in page
    assert not rows.objects.exists() and enqueued == []


def test_a_model_path_through_a_link_or_proc_self_cwd_is_refused(
    built, model_root, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    inside = model_folder(model_root / "inside")
    (model_root / "link").symlink_to(model_folder(tmp_path / "outside" / "model"))
    for name in (via_proc_self_cwd(inside), str(model_root / "link"), "/nowhere", "inside"):
        with pytest.raises(ValueError) as error:
            training_services.check_train_request({**small_config(), "model": name})
        assert str(error.value) == (
            f"model: must be 'tiny', 'smollm2-135m-instruct' or a path under {model_root}"
        )
    assert not Run.objects.exists()


def test_a_model_path_under_a_root_is_started_as_its_real_path(
    built, client, alice, model_root, enqueued
):
    folder = model_folder(model_root / "base")
    (model_root / "empty").mkdir()
    client.force_login(alice)

    response = client.post("/training/", {**TRAINING_FORM, "model": f"{model_root}/empty/../base"})
    assert response.status_code == 302
    training = TrainingRun.objects.get()
    assert training.config["model"] == str(folder.resolve())
    assert json.loads(training.run.config)["model"] == str(folder.resolve())
    # inside a root, a folder without config.json is named as such
    page = client.post("/training/", {**TRAINING_FORM, "model": str(model_root / "empty")})
    assert page.status_code == 400 and "has no config.json" in page.content.decode()
    assert TrainingRun.objects.count() == 1


# -- settings ----------------------------------------------------------------------------------


def test_a_relative_root_stops_the_start_up(monkeypatch):
    monkeypatch.setenv("CODEOPT_MODEL_ROOTS", "/srv/models:models")
    with pytest.raises(ConfigError, match="CODEOPT_MODEL_ROOTS=.*models is not an absolute"):
        env_paths("CODEOPT_MODEL_ROOTS", [])
    monkeypatch.setenv("CODEOPT_MODEL_ROOTS", "/srv/models:/data/models")
    assert env_paths("CODEOPT_MODEL_ROOTS", []) == [Path("/srv/models"), Path("/data/models")]
