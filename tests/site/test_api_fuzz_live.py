"""Schemathesis' own command line against a live daphne in debug mode, as `make demo` serves
the API (issue 34, item 5). Its coverage phase sends each operation's boundary values and the
wrong JSON type for every field (an object where the schema says text, `true` where it says a
list), which the in-process run (test_api_fuzz.py) does not: two such requests were 500s, a
gathered sample whose `group` was an object and an evaluation whose `taus` was `true`. Fails
on any server error, undocumented status or answer the schema does not describe.

The server's broker is `memory://`: what a valid request queues (a training run, a build)
stays queued, and no test's worker trains it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from scripts.readiness import free_port
from tests.conftest import start_daphne, subprocess_env

pytestmark = pytest.mark.django_db(transaction=True)

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")


@pytest.fixture
def debug_server(tmp_path):
    env = subprocess_env(DEBUG="1", CELERY_BROKER_URL="memory://")
    proc = start_daphne(port := free_port(), env, tmp_path / "daphne.log")
    yield f"http://127.0.0.1:{port}"
    proc.stop()


def test_schemathesis_coverage_phase_finds_nothing_on_a_live_debug_server(
    alice, alice_run, debug_server, tmp_path
):
    token = Token.objects.get_or_create(user=alice)[0].key
    argv = [
        *(str(SCHEMATHESIS), "run", f"{debug_server}/api/schema/?format=json"),
        *("-H", f"Authorization: Token {token}", "--phases", "coverage"),
        *("--checks", "all", "--exclude-checks", "positive_data_acceptance"),
        *("--generation-deterministic", "--max-examples", "10", "--request-timeout", "60"),
    ]
    # in tmp_path: schemathesis keeps its replay files in .schemathesis/ of its folder
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-8000:]
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    tested = re.search(r"Tested: (\d+)", report)
    assert selected and tested, report[-3000:]
    # every operation of the schema was sent its cases, not a handful
    assert int(tested.group(1)) == int(selected.group(2)) >= 40, report[-3000:]
