"""What the API's viewsets around the pages share: request bodies read as strictly as their
schema says (DRF's own fields turn 3 into "3", "3" into 3 and "yes" into true, so input the
schema forbids would be accepted), a service's refusal ("field: why", foundation.inputs) as
the API's 400 {field: [why]} (a nested object's field as `<object>.<field>`: `within`), and
the workers' heartbeats read once per answer (a job whose worker died shows "lost", as on the
pages)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.response import Response

from foundation import inputs
from foundation.liveness import heartbeats

SHOWN_STATUS = (
    "queued, running, done, failed; or lost, as the pages show a running job whose worker died "
    "(foundation.jobs.shown_status)."
)
"""A job row's status as text: as an enum, the schema would name the same choice set in
several components twice."""


class StrictText(serializers.CharField):
    """Text only (not a number turned into its digits); NUL and length as CharField's."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictInteger(serializers.IntegerField):
    """A JSON integer only: not "3", not 3.0, not true."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictNumber(serializers.FloatField):
    """A JSON number only (not "0.5", not true); finite and in bounds as FloatField's."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class FiniteFloat(serializers.FloatField):
    """A number in an answer, null where it is not finite (a timed-out program's time, a
    speedup over zero): JSON has no Infinity, and a browser's parser refuses it."""

    def to_representation(self, value):
        number = super().to_representation(value)
        return number if math.isfinite(number) else None


class StrictBoolean(serializers.BooleanField):
    """true or false only (not "yes", not 1)."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class JobRowSerializer(serializers.Serializer):
    """What every job row of a page's table shows (a dataset build, a simulation): its
    fields after these."""

    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    status = serializers.CharField(help_text=SHOWN_STATUS)
    progress = serializers.FloatField(help_text="Share done, 0 to 1.")
    stage = serializers.CharField()
    error = serializers.CharField(help_text="Its start (300 characters).")
    started_by = serializers.CharField()


def record_id(**kwargs) -> StrictInteger:
    """A stored row's id in a request body."""
    return StrictInteger(min_value=1, max_value=inputs.MAX_ID, **kwargs)


def _not_utf8(data: object, path: str = "") -> str | None:
    """The path of the first text in decoded JSON (keys included) that UTF-8 cannot encode (a
    lone surrogate, which JSON's \\ud800 escape can carry), or None."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            return path or "body"
        return None
    if not isinstance(data, dict | list):
        return None
    for key, value in data.items() if isinstance(data, dict) else enumerate(data):
        name = f"{path}[{key}]" if isinstance(data, list) else f"{path}.{key}" if path else key
        found = (_not_utf8(key, name) if isinstance(key, str) else None) or _not_utf8(value, name)
        if found:
            return found
    return None


def checked_body(request_serializer: type[serializers.Serializer], data: object) -> dict:
    """The request body read by `request_serializer` (fields it does not name refused,
    foundation.inputs.json_object; text UTF-8 cannot encode refused before any message
    quotes it): its valid values (a ValidationError, DRF's 400 naming each field,
    otherwise), only the fields sent."""
    fields = tuple(request_serializer().fields)
    where = _not_utf8(data)
    if where is not None:
        printable = where.encode("utf-8", "backslashreplace").decode("utf-8")
        raise inputs.InputError(printable, "not UTF-8 text (a lone surrogate)")
    reader = request_serializer(data=inputs.json_object(data, fields))
    reader.is_valid(raise_exception=True)
    return dict(reader.validated_data)


REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description="A field refused: {field: [why]}.")


def refused(
    exc: ValueError,
    fields: Iterable[str] | None = None,
    *,
    renamed: dict[str, str] | None = None,
    inner: str | None = None,
) -> Response:
    """A service's refusal as the API's 400 {field: [why]}. Its text names the field first
    ("field: why", an InputError's `field`): a request field (`renamed` maps a service's
    name to the request's; without `fields`, any field an InputError names); with `inner`,
    anything else is about a key inside that request field (a configuration's), and its
    whole text is kept; else it is about the request as a whole (non_field_errors)."""
    text = str(exc)
    name, _, why = text.partition(": ")
    if isinstance(exc, inputs.InputError):
        name = exc.field
    name = (renamed or {}).get(name, name)
    named = isinstance(exc, inputs.InputError) if fields is None else name in set(fields)
    if why and named:
        return Response({name: [why]}, status=400)
    return Response({inner or "non_field_errors": [text]}, status=400)


def within(exc: ValueError, where: str, fields: Iterable[str]) -> inputs.InputError:
    """A refusal of one of the `fields` of the object `where` (a config loader's ValueError
    names its field first: "learning_rate: must be in [0, 1], not -1") as an InputError
    naming `where.field`; one that names no such field names `where`."""
    field, _, why = str(exc).partition(": ")
    if isinstance(exc, inputs.InputError):
        field = exc.field
    if field in set(fields) and why:
        return inputs.InputError(f"{where}.{field}", why)
    if field.startswith(f"{where}.") and why:  # named there already (inputs.json_object)
        return inputs.InputError(field, why)
    return inputs.InputError(where, str(exc))


def answer_beats(context: dict) -> dict:
    """foundation.liveness.heartbeats(), read once per answer: a list's rows share their
    serializer's context."""
    if "beats" not in context:
        context["beats"] = heartbeats()
    return context["beats"]
