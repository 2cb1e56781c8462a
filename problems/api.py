"""REST API of the problem set: built problems a trainer can be scored on, and a split as a
prompt dataset (problems/exports.py)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError

from lm.base_models import BASE_MODELS, TINY
from problems import exports, reads
from problems.models import Problem

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
