"""The test workers' backends are apart (tests/support/parallel.py): two workers never share
a var folder, a Redis broker database or a channel prefix; one process is left as it is."""

from __future__ import annotations

import pytest

from tests.support.parallel import split_backends

SERVICES = {
    "CODEOPT_VAR_DIR": "/srv/var/test-services",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/1",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


def split(environ: dict, worker: str) -> dict:
    environ = dict(environ)
    split_backends(environ, worker)
    return environ


def test_each_worker_has_its_own_folder_broker_database_and_channel_prefix():
    gw0, gw1 = split(SERVICES, "gw0"), split(SERVICES, "gw1")
    assert gw0["CODEOPT_VAR_DIR"] == "/srv/var/test-services/gw0"
    assert gw1["CODEOPT_VAR_DIR"] == "/srv/var/test-services/gw1"
    assert gw0["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/1"
    assert gw1["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/3"
    assert gw0["REDIS_CHANNEL_PREFIX"] != gw1["REDIS_CHANNEL_PREFIX"]
    assert gw0["REDIS_URL"] == gw1["REDIS_URL"]  # the same server, apart by prefix


def test_the_embedded_defaults_split_the_folder_only():
    environ = split({"CODEOPT_VAR_DIR": "/v"}, "gw1")
    assert environ == {"CODEOPT_VAR_DIR": "/v/gw1"}


def test_one_process_is_left_as_it_is():
    assert split(SERVICES, "") == SERVICES


def test_a_broker_url_without_a_database_number_is_refused_by_name():
    with pytest.raises(RuntimeError, match="redis://host:port/N"):
        split({**SERVICES, "CELERY_BROKER_URL": "redis://127.0.0.1:6379"}, "gw1")
