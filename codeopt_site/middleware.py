"""The input policy (foundation.inputs) at the door: a query string or a form holding a NUL
byte or an over-long value is answered 400, naming the field, before any view runs; JSON
bodies are checked by the API's parser (InputPolicyJSONParser).

A database that does not answer (down, cut, restarting) is a 503 with Retry-After, never a
500: the request's transaction was rolled back, so a client may send it again as it was
(MetricsClient and ScoringClient do); the error text stays in the server's log."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from foundation import inputs

log = logging.getLogger("codeopt.web")

RETRY_AFTER_S = 5
DATABASE_DOWN = "the database did not answer; nothing was changed: send the request again"


def refusal_response(request, refusal: inputs.InputError):
    if request.path.startswith("/api/"):
        return JsonResponse({refusal.field: [str(refusal)]}, status=400)
    return render(request, "bad_request.html", {"error": str(refusal)}, status=400)


class InputPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refusal = inputs.first_refused(
            request.GET.items(), max_chars=settings.CODEOPT_MAX_QUERY_CHARS
        )
        if refusal is None and request.method == "POST":
            refusal = inputs.first_refused(
                request.POST.items(), max_chars=settings.CODEOPT_MAX_FIELD_CHARS
            ) or inputs.first_refused(
                ((f, u.name) for f, u in request.FILES.items()),
                max_chars=settings.CODEOPT_MAX_FIELD_CHARS,
            )
        if refusal is not None:
            return refusal_response(request, refusal)
        return self.get_response(request)

    def process_exception(self, request, exception):
        """An InputError a view let through (an id in a query, a bound) is a 400, not a 500."""
        if isinstance(exception, inputs.InputError):
            return refusal_response(request, exception)
        return None


class InputPolicyJSONParser(JSONParser):
    """DRF's JSON parser, then the policy on every string of the body (keys included)."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        refusal = inputs.nested_refused(data, max_chars=settings.CODEOPT_MAX_FIELD_CHARS)
        if refusal is not None:
            raise ParseError(str(refusal))
        return data


class DatabaseUnavailableMiddleware:
    """A view that lost the database answers 503 (module docstring). Plain text for pages:
    rendering the site's template would ask the database for the user again."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.warning("%s %s: database unavailable: %s", request.method, request.path, exception)
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": DATABASE_DOWN}, status=503)
        else:
            response = HttpResponse(DATABASE_DOWN + "\n", status=503, content_type="text/plain")
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
