"""The API docs pages' own asset: Redoc's script as drf-spectacular-sidecar ships it, with its
one address on the internet taken out, so that the docs work on an offline install and no
request leaves this server (templates/api/ holds the pages)."""

from __future__ import annotations

import functools
from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.views.decorators.http import require_safe

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""The Redocly logo beside "API docs by Redocly" in Redoc's menu, fetched from Redocly's CDN.
An empty src loads nothing and fails at once; Redoc then leaves the image out."""


@functools.cache
def offline_redoc() -> bytes:
    """Redoc's bundle without the CDN logo (read once per process)."""
    text = Path(finders.find(REDOC_BUNDLE)).read_text(encoding="utf-8")
    return text.replace(REDOC_CDN_LOGO, "").encode()


@require_safe
def redoc_bundle(request):
    response = HttpResponse(offline_redoc(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response
