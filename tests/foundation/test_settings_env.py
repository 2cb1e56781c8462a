"""A bad setting stops the start-up with a message naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def start(**env: str) -> subprocess.CompletedProcess:
    full = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"}
    }
    full.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=full, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"DEBUG": "sometimes"}, "DEBUG"),
        ({"DATABASE_URL": "mysql://db/x", "SECRET_KEY": "s"}, "DATABASE_URL"),
        ({"REDIS_URL": "http://cache", "SECRET_KEY": "s"}, "REDIS_URL"),
        ({"CELERY_BROKER_URL": "kafka://x", "SECRET_KEY": "s"}, "CELERY_BROKER_URL"),
        ({"METRICS_MAX_BATCH_POINTS": "many", "SECRET_KEY": "s"}, "METRICS_MAX_BATCH_POINTS"),
        ({"DEBUG": "0", "SECRET_KEY": ""}, "SECRET_KEY"),
        ({"JUDGE_LLM_BASE_URL": "http://llm/v1", "SECRET_KEY": "s"}, "JUDGE_LLM_MODEL"),
        (
            {
                "JUDGE_LLM_BASE_URL": "http://llm/v1",
                "JUDGE_LLM_MODEL": "m",
                "JUDGE_LLM_TIMEOUT_S": "soon",
                "SECRET_KEY": "s",
            },
            "JUDGE_LLM_TIMEOUT_S",
        ),
    ],
)
def test_a_bad_value_fails_at_start_up_naming_the_variable(env, named):
    result = start(**env)
    assert result.returncode != 0
    assert "ConfigError" in result.stderr and named in result.stderr.splitlines()[-1]


def test_the_embedded_defaults_start_without_any_server():
    result = start(DEBUG="1", SECRET_KEY="")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"CELERY_BROKER_URL": "kafka://admin:broker-pw-7731@k:9092"}, "CELERY_BROKER_URL"),
        ({"DATABASE_URL": "mysql://app:broker-pw-7731@db/x"}, "DATABASE_URL"),
        ({"REDIS_URL": "http://:broker-pw-7731@cache"}, "REDIS_URL"),
        # dj-database-url cannot parse it: the error quotes the variable, not its password
        ({"DATABASE_URL": "postgres://app:broker-pw-7731@db:notaport/x"}, "DATABASE_URL"),
    ],
)
def test_a_bad_url_is_named_without_its_password(env, named):
    result = start(SECRET_KEY="s", **env)
    assert result.returncode != 0
    assert named in result.stderr.splitlines()[-1]
    assert ":***@" in result.stderr.splitlines()[-1]
    assert "broker-pw-7731" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", "CODEOPT_SANDBOX_UID_SLOTS: 'x' is not a whole number"),
        ("2.5", "CODEOPT_SANDBOX_UID_SLOTS: '2.5' is not a whole number"),
        ("0", "CODEOPT_SANDBOX_UID_SLOTS: must be >= 1"),
    ],
)
def test_a_bad_sandbox_number_is_named_and_a_good_one_read(value, message):
    from execution.isolation import IsolationSettings

    with pytest.raises(ValueError) as error:
        IsolationSettings.from_environ({"CODEOPT_SANDBOX_UID_SLOTS": value})
    assert str(error.value) == message
    read = IsolationSettings.from_environ({"CODEOPT_SANDBOX_UID_SLOTS": " 12 "})
    assert read.uid_slots == 12
    assert IsolationSettings.from_environ({}).uid_slots == IsolationSettings.uid_slots
