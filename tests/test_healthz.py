"""/healthz reports each dependency, and says which one is down."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_broker_and_channel_layer():
    response = Client().get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["database"] == {
        "ok": True,
        "vendor": settings.DATABASES["default"]["ENGINE"]
        .split(".")[-1]
        .replace("sqlite3", "sqlite"),
    }
    assert body["broker"]["ok"] is True
    assert body["channel_layer"]["ok"] is True
    assert "workers" in body


def test_healthz_is_503_and_names_the_broker_when_it_is_unreachable(monkeypatch):
    monkeypatch.setattr(settings, "CELERY_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"]["ok"] is False
    assert "error" in response.json()["broker"]
