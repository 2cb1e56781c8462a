"""Careless and hostile input at every entry point (issue 16, item 1): every page's forms and
filters walked with a NUL byte, over-long text, numbers out of bounds, NaN/Infinity and
malformed ids. Never a 500; a refusal names the field; nothing is written."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import get_resolver

from foundation import typed

pytestmark = pytest.mark.django_db

NUL = "a\x00b"
# every query parameter any page or API route reads
FILTERS = (
    "q", "status", "team", "source", "problem", "verdict", "build", "id", "simulation",
    "evaluation", "run", "compare", "ids", "category", "judge", "key", "offset", "limit",
    "max_points", "split", "step", "kind", "tag", "x", "page",
)  # fmt: skip
BAD_NUMBERS = ("1e20", "nan", "inf", "-inf", "99999999999999999999999")
BAD_IDS = ("abc", "99999999999999999999999", "-1", "1.5", "nan", NUL)
# pages that name an object in their path (the pattern's name: how the test fills it)
PATH_OBJECTS = {
    "run-detail", "training-stop", "run-samples", "problem-detail", "rewards-recommend",
    "judge-batch", "judge-label", "timing-retry",
}  # fmt: skip
NOT_PAGES = {"login", "logout", "schema"}


class Forms(HTMLParser):
    """The POST forms of a page: [(action, {field: value}, {field: input type})]."""

    def __init__(self):
        super().__init__()
        self.forms: list[tuple[str, dict, dict]] = []
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self.forms.append((a.get("action") or "", {}, {}))
        if not self.forms or "name" not in a:
            if tag == "option" and self._select and self.forms:
                self.forms[-1][1].setdefault(self._select, a.get("value", ""))
            return
        fields, types = self.forms[-1][1], self.forms[-1][2]
        name = a["name"]
        if tag == "input" and a.get("type") not in ("submit", "file", "checkbox"):
            fields[name] = a.get("value", "")
            types[name] = a.get("type", "text")
        elif tag == "input" and a.get("type") == "checkbox":
            types[name] = "checkbox"
        elif tag == "textarea":
            fields[name], types[name] = "", "textarea"
        elif tag == "select":
            self._select, types[name] = name, "select"

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


def numeric(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def counts() -> dict[str, int]:
    """Rows of every model of the project's apps (sessions and tokens aside)."""
    return {
        m._meta.label: m.objects.count()
        for m in apps.get_models()
        if m._meta.app_label in ("runs", "problems", "rewards", "workers", "evaluations", "judges")
    }


def page_urls() -> list[str]:
    """Every page the site routes without an object in its path (API, admin and log-in
    aside), from the URL patterns themselves: a page added later is walked too."""
    from django.urls import URLPattern

    urls = []
    for p in get_resolver().url_patterns:
        route = str(p.pattern)
        if not isinstance(p, URLPattern) or p.name in NOT_PAGES or "<" in route:
            continue
        urls.append("/" + route)
    return urls


@pytest.fixture
def alice_client(alice, alice_run, built):
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    return client


def every_form(client):
    """(URL it posts to, {field: value}, {field: input type}) of every POST form of every
    page."""
    for url in page_urls():
        page = client.get(url)
        if page.status_code != 200 or "text/html" not in page["Content-Type"]:
            continue
        parser = Forms()
        parser.feed(page.content.decode())
        for action, fields, types in parser.forms:
            yield action or url, fields, types


def refused(response, field: str) -> None:
    body = response.content.decode(errors="replace")
    assert response.status_code < 500, (response.status_code, body[-2000:])
    assert field in body, f"{field} not named in the answer ({response.status_code})"


def filters_read(client, url: str, monkeypatch) -> set[str]:
    """The query parameters of FILTERS that `url`'s view reads, asked with none of them and
    with every one of them: a key looked up is read; the whole query read at once (iterated,
    copied, encoded) reads them all, except by the input-policy middleware, which refuses a
    NUL or over-long value of any parameter the same way before a view runs."""
    import sys

    from django.http import QueryDict
    from django.utils import datastructures

    from codeopt_site import middleware

    read: set[str] = set()
    with monkeypatch.context() as patch:
        for method in ("__getitem__", "get", "getlist", "__contains__"):
            original = getattr(QueryDict, method)

            def looked_up(self, key, *args, _original=original, **kwargs):
                if sys._getframe(1).f_code.co_filename != datastructures.__file__:
                    read.add(key)  # (not a key items() looks up while iterating the query)
                return _original(self, key, *args, **kwargs)

            patch.setattr(QueryDict, method, looked_up)
        for method in ("items", "lists", "values", "keys", "dict", "__iter__", "copy", "urlencode"):
            original = getattr(QueryDict, method)

            def whole(self, *args, _original=original, **kwargs):
                caller = sys._getframe(1).f_code.co_filename
                if caller not in (middleware.__file__, datastructures.__file__):
                    read.update(FILTERS)
                return _original(self, *args, **kwargs)

            patch.setattr(QueryDict, method, whole)
        client.get(url)
        client.get(url, dict.fromkeys(FILTERS, "1"))
    return read & set(FILTERS)


def test_every_page_filter_survives_nul_and_malformed_values(alice_client, monkeypatch):
    urls = page_urls()
    assert "/dataset/calibration/" in urls and "/" in urls
    walked = 0
    for url in urls:
        read = filters_read(alice_client, url, monkeypatch)
        for name in FILTERS:
            # a parameter the page never reads cannot hurt it: NUL alone shows it is ignored
            values = (NUL, *BAD_IDS, *BAD_NUMBERS, "x" * 20_000) if name in read else (NUL,)
            for value in values:
                response = alice_client.get(url, {name: value})
                assert response.status_code < 500, (url, name, value[:30], response.status_code)
                if value == NUL and response.status_code == 400:
                    refused(response, name)
            walked += name in read
    assert walked >= 16  # the run list's, Problems', Dataset's, Rewards', Evaluations', Judges'...


def test_a_nul_byte_in_any_form_field_is_refused_naming_it_and_writes_nothing(alice_client):
    walked = 0
    for url, fields, _types in every_form(alice_client):
        for field in fields:
            before = counts()
            response = alice_client.post(url, {**fields, field: NUL})
            assert response.status_code == 400, (url, field, response.status_code)
            refused(response, field)
            assert counts() == before, (url, field)
            walked += 1
    assert walked >= 30  # the forms of Timing, Training, Dataset, Rewards, Evaluations, Judges


def test_numbers_out_of_bounds_in_any_form_are_refused_naming_the_field(alice_client):
    walked = 0
    for url, fields, types in every_form(alice_client):
        for field, kind in types.items():
            if kind != "number" and not numeric(fields.get(field, "")):
                continue
            for value in BAD_NUMBERS:
                before = counts()
                response = alice_client.post(url, {**fields, field: value})
                assert response.status_code in (200, 400), (url, field, value)
                refused(response, field)
                assert counts() == before, (url, field, value)
                walked += 1
    assert walked >= 100


@pytest.mark.parametrize(
    "field, value",
    [("repeats", "1e20"), ("generator_candidates", "0"), ("min_rank_stability", "-1"),
     ("test_fraction", "NaN"), ("slow_target_s", "Infinity"), ("repeats", "1_000")],
)  # fmt: skip
def test_the_dataset_form_refuses_what_it_accepted_before(alice_client, field, value):
    before = counts()
    response = alice_client.post("/dataset/", {"problems": "sum", field: value})
    assert response.status_code == 200 and f"{field}: " in response.content.decode()
    assert counts() == before


def test_the_config_bounds_come_from_the_fields_and_are_shown_in_the_forms(alice_client):
    from problems.pipeline.model import PipelineConfig
    from training.config import TrainConfig

    train = typed.bounds_of(TrainConfig)
    assert train["group_size"] == (2, 1024) and train["seed"] == (0, 2**31 - 1)
    assert typed.bounds_of(PipelineConfig)["generator_candidates"][0] == 1
    for name, (low, high) in train.items():
        with pytest.raises(ValueError, match=name):
            TrainConfig.from_dict({name: high * 10 + 1})
        if low is not None and low > 0:
            with pytest.raises(ValueError, match=name):
                TrainConfig.from_dict({name: low - 1 if isinstance(low, int) else low / 10})
    page = alice_client.get("/training/").content.decode()
    assert 'name="group_size"' in page and 'max="1024"' in page


def upload(name: str, lines: list[str]):
    return SimpleUploadedFile(name, ("\n".join(lines) + "\n").encode())


def completion(problem: str = "sum", program: str = "print(1)") -> str:
    return json.dumps({"problem": problem, "program": program})


@pytest.mark.parametrize(
    "lines, message",
    [
        # the overflow of before: 65,541 lines stored n=5 and queued 65,541 samples
        ([completion()] * 65_541, "completions: 65,541 lines; at most 20,000 per upload"),
        ([completion()] * 201, "completions: 201 completions of one problem; at most 200"),
    ],
)
def test_a_completions_upload_is_bounded_before_anything_is_stored(
    alice_client, enqueued, lines, message
):
    before = counts()
    form = {"source": "completions", "split": "all", "team": "red"}
    response = alice_client.post("/evaluations/", {**form, "completions": upload("c.jsonl", lines)})
    assert response.status_code in (200, 400) and message in response.content.decode()
    assert counts() == before and enqueued == []


def test_an_upload_line_holding_a_nul_is_reported_by_number_and_the_rest_kept():
    from foundation import jsonlines

    errors: list[dict] = []
    text = "\n".join([completion(), completion(program="print(1)\x00"), completion()])
    kept = list(jsonlines.objects(text, errors))
    assert [n for n, _ in kept] == [1, 3]
    assert errors == [{"line": 2, "error": "program: contains a NUL byte (\\x00)"}]


def test_a_pairs_file_is_bounded_in_pairs_and_bytes(alice_client, settings):
    pair = json.dumps({"problem": "sum", "baseline": "a", "optimized": "b"})
    before = counts()
    response = alice_client.post(
        "/judges/", {"pairs": upload("p.jsonl", [pair] * 2_001), "judge": "analyzer"}
    )
    assert "pairs: 2,001 pairs; at most 2,000 per batch" in response.content.decode()
    settings.CODEOPT_MAX_UPLOAD_BYTES = 1024
    response = alice_client.post(
        "/judges/", {"pairs": upload("p.jsonl", [pair] * 100), "judge": "analyzer"}
    )
    assert "pairs: 5,400 bytes; at most 1,024 per upload" in response.content.decode()
    response = alice_client.post(
        "/judges/", {"pairs": SimpleUploadedFile("p.jsonl", b"\xff\xfe{}"), "judge": "analyzer"}
    )
    assert "pairs: not UTF-8 text (byte 0)" in response.content.decode()
    assert counts() == before


def test_the_commands_read_files_under_the_same_limits(alice, built, tmp_path, settings):
    settings.CODEOPT_MAX_UPLOAD_LINES = 10
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join([completion()] * 11) + "\n")
    with pytest.raises(CommandError, match="completions: 11 lines; at most 10 per upload"):
        call_command("evaluate", "--completions", str(path), "--user", "alice", "--split", "all")


def test_the_api_refuses_a_nul_anywhere_naming_the_field(alice_api, alice_run):
    before = counts()
    answer = alice_api.post(
        "/api/runs/", {"name": "x", "team": "red", "reward_config": "bin\x00ary"}, format="json"
    )
    assert answer.status_code == 400 and "reward_config: contains a NUL" in answer.content.decode()
    answer = alice_api.post("/api/runs/", {"name": "x", "tags": ["ok", "t\x00"]}, format="json")
    assert answer.status_code == 400 and "tags[1]: contains a NUL" in answer.content.decode()
    for query in ("q", "team", "status", "key"):
        answer = alice_api.get("/api/runs/", {query: NUL})
        assert answer.status_code == 400 and answer.json() == {
            query: [f"{query}: contains a NUL byte (\\x00)"]
        }
    assert counts() == before


@pytest.mark.parametrize(
    "path",
    [
        "/runs/99999999999999999999999/",
        "/runs/9223372036854775808/samples/",
        "/api/runs/99999999999999999999999/",
        "/api/runs/99999999999999999999999/metrics/",
        "/api/runs/abc/",
        "/problems/%00/",
    ],
)
def test_an_id_no_database_key_can_hold_is_a_404(alice_client, path):
    assert alice_client.get(path).status_code == 404


def test_a_models_nul_byte_is_stored_as_the_replacement_character(built, alice):
    """A byte-level tokenizer can emit NUL; PostgreSQL refuses it in text: a training step's
    samples (and an evaluation's, the same helper) are stored with U+FFFD instead, where the
    evaluation of the PostgreSQL pass once failed with a DataError."""
    from types import SimpleNamespace

    from problems.models import Problem
    from tests.training.test_training_runs import start_run
    from training.models import RolloutSample
    from training.sink import DatabaseSink

    run = start_run(alice)
    sink = DatabaseSink(run.training, {"sum": Problem.objects.get(slug="sum").pk})
    row = SimpleNamespace(
        problem="sum", group=0, index=0, text="```python\nprint(1)\x00\n```",
        program="print(1)\x00",
        reward=-1.0, verdict="RUNTIME_ERROR", correct=False, speed_percentile=None,
        policy_version=0, tokens=9, truncated=False,
    )  # fmt: skip
    sink.samples(0, [row])
    stored = RolloutSample.objects.get(training=run.training)
    assert stored.program == "print(1)\ufffd" and "\x00" not in stored.completion
