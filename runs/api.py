"""REST API for runs and metrics: declarations around `runs.services` (and `runs.reads` for
the charts' series)."""

from __future__ import annotations

import io

import orjson
from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Prefetch
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from foundation.schema import link, links
from foundation.tenancy import check_team_for_new_run
from rewards.models import RewardConfig
from runs import reads, services
from runs.ingest import MAX_KEY_LENGTH, MAX_STEP, BatchError, encode_value
from runs.models import MetricSeries, Run, RunStatus


class BatchJSONParser(JSONParser):
    """orjson for metric batches (about 4x faster than the standard library on 5,000 points);
    a body with bare NaN/Infinity literals, which orjson refuses, is read by the standard
    library like any DRF request."""

    def parse(self, stream, media_type=None, parser_context=None):
        body = stream.read() if stream is not None else b""
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            return super().parse(io.BytesIO(body), media_type, parser_context)


class SeriesJSONRenderer(JSONRenderer):
    """orjson for chart data: all series of a run are tens of thousands of numbers."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return orjson.dumps(data)


class StrictCharField(serializers.CharField):
    """Text only: DRF's CharField turns a number into its digits (a tag 3.3e16); this one
    refuses it, as the schema says (type: string)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "nullable": True, "maxLength": 100})
class RewardConfigNameField(serializers.SlugRelatedField):
    """A stored reward configuration by name; null or "" (DRF reads it as null): none."""


class RunSerializer(serializers.ModelSerializer):
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.CharField: StrictCharField,
        models.TextField: StrictCharField,
    }
    owner = serializers.CharField(source="owner.username", read_only=True)
    team = StrictCharField(source="team.name", required=False)
    config = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="Any JSON value, read back as sent (an object as an object); a string is "
        "stored as is and read back as the JSON value its text is, if it is one; null: no "
        "config.",
    )
    tags = serializers.ListField(
        child=StrictCharField(max_length=50), required=False, max_length=50
    )
    summary = serializers.SerializerMethodField(
        help_text='Each metric\'s last value, by key, as a point is sent ("NaN", '
        '"Infinity"): a runs table in one request.'
    )
    reward_config = RewardConfigNameField(
        slug_field="name",
        queryset=RewardConfig.objects.all(),
        required=False,
        allow_null=True,
        help_text="Name of a stored reward configuration (see /rewards/).",
    )

    class Meta:
        model = Run
        read_only_fields = [
            "created_at",
            "updated_at",
            "started_at",
            "finished_at",
            "last_step",
            "last_metric_at",
        ]
        fields = [
            *["id", "name", "status", "config", "reward_config", "model_name", "owner", "team"],
            *["tags", "notes", "summary"],
            *read_only_fields,
        ]

    @extend_schema_field(
        {
            "type": "object",
            "additionalProperties": {
                "oneOf": [
                    {"type": "number"},
                    {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]},
                ]
            },
        }
    )
    def get_summary(self, run: Run) -> dict:
        return {series.key: encode_value(series.last_value) for series in run.series.all()}

    def to_representation(self, instance: Run) -> dict:
        """The config as the JSON value it was sent as (an object reads as one, not as its
        text); no config: null."""
        data = super().to_representation(instance)
        data["config"] = reads.config_value(instance.config)
        return data

    def validate_config(self, value):
        if self.instance is not None:
            raise ValidationError("the config of an existing run cannot change (reproducibility)")
        return "" if value is None else value

    def validate_reward_config(self, value):
        if self.instance is not None and value != self.instance.reward_config:
            raise ValidationError("the reward of an existing run cannot change (reproducibility)")
        return value

    def validate_team(self, value: str) -> str:
        if self.instance is not None:
            raise ValidationError("a run cannot move to another team")
        return value

    def create(self, validated_data: dict) -> Run:
        user = self.context["request"].user
        team_name = validated_data.pop("team", {}).get("name")
        try:
            team = check_team_for_new_run(user, team_name)
        except ValueError as exc:
            raise ValidationError({"team": str(exc).split(": ", 1)[1]}) from None
        return services.do_create_run(owner=user, team=team, **validated_data)

    def update(self, instance: Run, validated_data: dict) -> Run:
        validated_data.pop("reward_config", None)  # validated as unchanged
        return services.do_update_run(instance, **validated_data)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "number"},
            {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]},
        ],
        "nullable": True,
    }
)
class PointValueField(serializers.JSONField):
    """A metric's value (runs.ingest.parse_value reads it)."""


CONTROL_CHARACTERS = r"\u0000-\u001f\u007f-\u009f"
KEY_PATTERN = rf"^[^{CONTROL_CHARACTERS}]*[^\s{CONTROL_CHARACTERS}][^{CONTROL_CHARACTERS}]*$"
"""What `runs.ingest.parse_key` refuses that a schema can say: a control character, a blank
key (it refuses other unprintable characters too, such as a line separator)."""


class PointSerializer(serializers.Serializer):
    """Documents a point for the schema; validation is `runs.ingest.parse_batch` (speed)."""

    step = serializers.IntegerField(min_value=0, max_value=MAX_STEP)
    key = serializers.CharField(
        max_length=MAX_KEY_LENGTH,
        validators=[RegexValidator(KEY_PATTERN)],
        help_text="Printable text, not blank, such as `rewards/mean`.",
    )
    value = PointValueField(help_text='A number, null (NaN), "NaN", "Infinity" or "-Infinity".')


class BatchSerializer(serializers.Serializer):
    points = serializers.ListField(
        child=PointSerializer(), min_length=1, max_length=settings.METRICS_MAX_BATCH_POINTS
    )


MIN_MAX_POINTS, MAX_MAX_POINTS = 10, 1_000_000
RUN_STATUSES = [choice.value for choice in RunStatus]


def run_links(run_id: str) -> dict:
    """The links of an answer that names a run (`run_id`, a runtime expression): what a
    trainer does next with it."""
    return {
        "GetRun": link("api_runs_retrieve", "The run.", id=run_id),
        "UpdateRun": link("api_runs_partial_update", "Its status, tags or notes.", id=run_id),
        "GetMetrics": link("api_runs_metrics_retrieve", "Its metrics.", id=run_id),
        "PostMetrics": link("api_runs_metrics_create", "More metrics.", id=run_id),
    }


class TeamScopedViewSet(viewsets.GenericViewSet):
    """Shared policy: a user sees only their teams' runs (staff all); others are 404."""

    lookup_value_regex = "[0-9]{1,18}"  # an id a database key holds; other text is a 404

    def get_queryset(self):
        return services.visible_runs(self.request.user)


@extend_schema_view(
    create=extend_schema(extensions=links(201, **run_links("$response.body#/id"))),
    retrieve=extend_schema(extensions=links(200, **run_links("$response.body#/id"))),
    partial_update=extend_schema(extensions=links(200, **run_links("$response.body#/id"))),
)
class RunViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    TeamScopedViewSet,
):
    serializer_class = RunSerializer
    http_method_names = ["get", "post", "patch", "head", "options"]

    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, description="Text in the name, model, notes, tags, owner."),
            OpenApiParameter(
                "status", {"type": "string", "enum": ["", *RUN_STATUSES]}, description="Empty: any."
            ),
            OpenApiParameter("team", str, description="A team's name."),
        ],
        extensions=links(200, **run_links("$response.body#/results/0/id")),
    )
    def list(self, request, *args, **kwargs):
        status_ = request.query_params.get("status", "")
        if status_ and status_ not in RUN_STATUSES:
            raise ValidationError(
                {"status": [f"status: {status_[:40]!r} is not one of {', '.join(RUN_STATUSES)}"]}
            )
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        params = self.request.query_params
        return services.search_runs(
            super().get_queryset(),
            text=params.get("q", ""),
            status=params.get("status", ""),
            team=params.get("team", ""),
        ).prefetch_related(  # the summary's last values: one query per page
            Prefetch("series", queryset=MetricSeries.objects.only("run_id", "key", "last_value"))
        )

    @extend_schema(
        methods=["GET"],
        parameters=[
            OpenApiParameter(
                "key", str, many=True, description="Metric key; repeat; all if absent."
            ),
            OpenApiParameter(
                "max_points",
                {"type": "integer", "minimum": MIN_MAX_POINTS, "maximum": MAX_MAX_POINTS},
                description="Downsample longer series (extremes kept).",
            ),
        ],
        responses=inline_serializer(
            "Series", {"run": serializers.IntegerField(), "series": serializers.DictField()}
        ),
    )
    @extend_schema(
        methods=["POST"],
        request=BatchSerializer,
        responses={
            200: inline_serializer(
                "IngestResult",
                {
                    "points": serializers.IntegerField(),
                    "inserted": serializers.IntegerField(),
                    "keys": serializers.IntegerField(),
                    "last_step": serializers.IntegerField(),
                },
            )
        },
        extensions=links(200, **run_links("$request.path.id")),
    )
    @action(
        detail=True,
        methods=["get", "post"],
        url_path="metrics",
        parser_classes=[BatchJSONParser],
        renderer_classes=[SeriesJSONRenderer],
    )
    def metrics(self, request, pk=None):
        if request.method == "POST":
            return self._ingest(request, pk)
        run = self.get_object()
        max_points = _int_param(
            request, "max_points", settings.METRICS_DEFAULT_MAX_POINTS, MIN_MAX_POINTS,
            MAX_MAX_POINTS,
        )  # fmt: skip
        keys = request.query_params.getlist("key") or None
        series = reads.read_metrics(run, keys, max_points)
        return Response({"run": run.pk, "max_points": max_points, "series": series})

    def _ingest(self, request, pk):
        # An unknown run and another team's run answer alike, so a write reveals nothing.
        if not pk.isdigit() or not self.get_queryset().filter(pk=pk).exists():
            return Response(
                {"index": None, "field": "run", "error": f"unknown run {pk}"},
                status=status.HTTP_404_NOT_FOUND,
            )
        try:
            result = services.do_ingest_metrics(int(pk), request.data)
        except BatchError as exc:
            return Response(exc.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response(result.__dict__)


def _int_param(request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: f"{raw!r} is not an integer"}) from None
    if not low <= value <= high:
        raise ValidationError({name: f"must be between {low} and {high}"})
    return value
