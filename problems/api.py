"""REST API of the problem set: built problems a trainer can be scored on, a split as a
prompt dataset (problems/exports.py), and the Dataset page's builds (declarations around
problems.services.check_build_request / do_create_build and problems.reads.build_row; shared by
every team, as on the page)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from foundation.api_support import (
    JobRowSerializer,
    StrictInteger,
    StrictNumber,
    StrictText,
    answer_beats,
    checked_body,
    refused,
)
from foundation.schema import closed, link, links
from foundation.typed import bounds_of, field_kinds
from lm.base_models import BASE_MODELS, TINY
from problems import exports, reads, services
from problems.models import DatasetBuild, Problem
from problems.pipeline import PipelineConfig
from problems.views import BUILD_FORM_FIELDS

PROMPT_MODELS = [TINY, *BASE_MODELS]

SPLITS = ["train", "test"]
FILTERS = [
    OpenApiParameter("split", {"type": "string", "enum": ["", *SPLITS]}, description="Empty: any."),
    OpenApiParameter(
        "dataset", str, description="The problems' source (`code_contests`, a Kattis source)."
    ),
]


class ProblemSerializer(serializers.ModelSerializer):
    has_optimization_tests = serializers.BooleanField(read_only=True)
    has_references = serializers.BooleanField(read_only=True)

    class Meta:
        model = Problem
        fields = [
            *["slug", "title", "statement", "time_limit_s", "memory_limit_mb", "split"],
            *["source", "tags", "has_optimization_tests", "has_references"],
        ]
        read_only_fields = fields


def _choice(request, name: str, choices, default: str) -> str:
    value = request.query_params.get(name, default)
    if value not in choices:
        raise ValidationError(
            {name: [f"{name}: {value[:40]!r} is not one of {', '.join(choices)}"]}
        )
    return value


class ProblemViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """GET: the built problems (paged). GET export/: a split as a prompt dataset."""

    serializer_class = ProblemSerializer
    lookup_field = "slug"

    def get_queryset(self):
        params = self.request.query_params
        split = _choice(self.request, "split", ["", *SPLITS], "")
        return reads.built_problems(split, params.get("dataset", ""))

    @extend_schema(parameters=FILTERS)
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        parameters=[
            *FILTERS,
            OpenApiParameter(
                "shape",
                {"type": "string", "enum": [*exports.SHAPES]},
                description="trl, verl or openrlhf.",
            ),
            OpenApiParameter(
                "model",
                {"type": "string", "enum": [*PROMPT_MODELS]},
                description="The model the prompts are written for: a named instruct model's "
                "chat format, or plain text (tiny, local folders; the default).",
            ),
            OpenApiParameter(
                "file_format",
                {"type": "string", "enum": [*exports.FILE_FORMATS]},
                description="JSON lines (default) or Parquet.",
            ),
        ],
        responses={
            (200, exports.MEDIA_TYPES["jsonl"]): OpenApiResponse(OpenApiTypes.STR),
            (200, exports.MEDIA_TYPES["parquet"]): OpenApiResponse(OpenApiTypes.BINARY),
        },
    )
    @action(detail=False, methods=["get"], url_path="export", pagination_class=None)
    def export(self, request):
        shape = _choice(request, "shape", exports.SHAPES, "trl")
        file_format = _choice(request, "file_format", exports.FILE_FORMATS, "jsonl")
        model = _choice(request, "model", PROMPT_MODELS, TINY)
        body = exports.encode(reads.prompt_rows(self.get_queryset(), model), shape, file_format)
        answer = HttpResponse(body, content_type=exports.MEDIA_TYPES[file_format])
        split = request.query_params.get("split") or "all"
        answer["Content-Disposition"] = f'attachment; filename="codeopt-{split}.{file_format}"'
        return answer


# -- dataset builds ---------------------------------------------------------------------------


class DatasetBuildSerializer(JobRowSerializer):
    """A build as the Dataset page's table shows it: problems.reads.build_row."""

    executions = serializers.IntegerField(help_text="Sandboxed program runs so far.")
    wall_seconds = serializers.FloatField(allow_null=True)
    problems = serializers.IntegerField(allow_null=True, help_text="Problems named (null: all).")
    funnel = serializers.ListField(
        child=serializers.ListField(child=serializers.JSONField()),
        help_text="[[stage, problems that passed it], ...], once done.",
    )
    generator_funnel = serializers.DictField(
        help_text="Per generator source: proposed, valid, problems per stage because of it."
    )

    def to_representation(self, build):
        return reads.build_row(build, answer_beats(self.context))


class OutcomeSerializer(serializers.Serializer):
    problem = serializers.CharField()
    stage_reached = serializers.IntegerField(help_text="Stages passed, of 5.")
    kept = serializers.BooleanField()
    reason = serializers.CharField(help_text="Why it stopped (empty: kept).")
    discrimination = serializers.FloatField(
        allow_null=True, help_text="Slowest / fastest correct reference (null: not measured)."
    )


class DatasetBuildDetailSerializer(DatasetBuildSerializer):
    """With what it ran on and each problem's outcome (the page's table of problems)."""

    config = serializers.DictField(help_text="problems.pipeline.PipelineConfig, as run.")
    problem_slugs = serializers.ListField(child=serializers.CharField())
    anchor_costs = serializers.DictField(child=serializers.FloatField())
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    outcomes = OutcomeSerializer(many=True)

    def to_representation(self, build):
        outcomes = build.problems.select_related("problem").order_by("problem__slug")
        return {
            **super().to_representation(build),
            "config": build.config,
            "problem_slugs": build.problem_slugs,
            "anchor_costs": build.anchor_costs,
            "started_at": build.started_at.isoformat() if build.started_at else None,
            "finished_at": build.finished_at.isoformat() if build.finished_at else None,
            "outcomes": [
                {
                    "problem": outcome.problem.slug,
                    "stage_reached": outcome.stage_reached,
                    "kept": outcome.kept,
                    "reason": outcome.reason,
                    "discrimination": ((outcome.report or {}).get("discrimination") or {}).get(
                        "ratio"
                    ),
                }
                for outcome in outcomes
            ],
        }


def _config_field(name: str) -> serializers.Field:
    """A request field of the Dataset page's form: PipelineConfig's type and bounds."""
    kind = field_kinds(PipelineConfig)[0][name]
    low, high = bounds_of(PipelineConfig)[name]
    field_class = StrictInteger if kind is int else StrictNumber
    default = getattr(PipelineConfig(), name)
    return field_class(
        required=False, min_value=low, max_value=high, help_text=f"Default {default}."
    )


DatasetBuildRequestSerializer = closed()(
    serializers.SerializerMetaclass(
        "DatasetBuildRequestSerializer",
        (serializers.Serializer,),
        {
            "__module__": __name__,
            "__doc__": "Read strictly, then checked by services.check_build_request as the "
            "Dataset page's form (its fields: problems.pipeline.PipelineConfig's).",
            "problems": serializers.ListField(
                child=StrictText(), required=False, help_text="Slugs (default: every problem)."
            ),
            **{name: _config_field(name) for name in BUILD_FORM_FIELDS},
        },
    )
)
BUILD_FIELDS = tuple(DatasetBuildRequestSerializer().fields)


class DatasetBuildViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Every dataset build (shared, as on the Dataset page), newest first."""

    queryset = DatasetBuild.objects.all()
    lookup_value_regex = "[0-9]{1,18}"

    def get_serializer_class(self):
        return DatasetBuildDetailSerializer if self.action == "retrieve" else DatasetBuildSerializer

    @extend_schema(
        request=DatasetBuildRequestSerializer,
        responses={
            201: DatasetBuildSerializer,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description="A field refused."),
        },
        extensions=links(
            201,
            GetDatasetBuild=link(
                "api_dataset_builds_retrieve",
                "Its progress, funnel and outcomes.",
                id="$response.body#/id",
            ),
        ),
        description="Queue a build as the Dataset page's form does (the `timing` workers).",
    )
    def create(self, request):
        values = checked_body(DatasetBuildRequestSerializer, request.data)
        slugs = values.pop("problems", [])
        try:
            config, slugs = services.check_build_request(values, slugs)
        except ValueError as exc:
            return refused(exc, BUILD_FIELDS)
        build = services.do_create_build(config, slugs, started_by=request.user.username)
        return Response(DatasetBuildSerializer(build).data, status=status.HTTP_201_CREATED)
