"""POST /api/scoring/ and GET /api/scoring/<id>/?wait=SECONDS: scoring for any trainer, the
contract of issue 18 (declarations around scoring/services.py)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from foundation import inputs
from scoring import services


class GroupSerializer(serializers.Serializer):
    problem = serializers.CharField(max_length=120, help_text="A built problem's slug.")
    programs = serializers.ListField(
        child=serializers.CharField(allow_null=True, trim_whitespace=False),
        required=False,
        min_length=1,
        help_text="Python programs; null: no program (scored as a format failure).",
    )
    completions = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        required=False,
        min_length=1,
        help_text="Instead of programs: completions, the program extracted as our trainer does "
        "(up to the closing ``` fence; none: FORMAT).",
    )


class ScoringRequestSerializer(serializers.Serializer):
    """Documents the request; validation is services.check_scoring_request (names a field)."""

    reward_config = serializers.CharField(max_length=100, help_text="A stored configuration.")
    groups = serializers.ListField(child=GroupSerializer(), min_length=1)
    run = serializers.IntegerField(min_value=1, max_value=inputs.MAX_ID, required=False)
    step = serializers.IntegerField(min_value=0, max_value=inputs.MAX_ID, required=False)
    policy_version = serializers.IntegerField(min_value=0, max_value=inputs.MAX_ID, required=False)
    tie_band = serializers.FloatField(
        min_value=0, max_value=100, required=False, help_text="Percentile points (default 5)."
    )
    request_key = serializers.CharField(
        max_length=100,
        required=False,
        help_text=(
            "A key of the client's choosing, unique per request: the same request sent again "
            "with it (a retry after a lost answer) answers the job the first one queued."
        ),
    )


class QueuedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


class SampleSerializer(serializers.Serializer):
    reward = serializers.FloatField()
    verdict = serializers.CharField()
    correct = serializers.BooleanField()
    speed_percentile = serializers.FloatField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True)
    program = serializers.CharField(allow_null=True)


class ScoredGroupSerializer(serializers.Serializer):
    problem = serializers.CharField()
    samples = SampleSerializer(many=True)
    worker = serializers.CharField(
        allow_null=True, help_text="The timing worker that scored the group."
    )


class ScoringJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    progress = serializers.FloatField()
    stage = serializers.CharField()
    error = serializers.CharField()
    reward_config = serializers.CharField()
    run = serializers.IntegerField(allow_null=True)
    step = serializers.IntegerField(allow_null=True)
    policy_version = serializers.IntegerField(allow_null=True)
    queue_wait_s = serializers.FloatField(allow_null=True)
    staleness = serializers.FloatField(allow_null=True)
    groups = ScoredGroupSerializer(many=True)
    group_kinds = serializers.DictField(child=serializers.FloatField(), allow_null=True)
    sandbox = serializers.DictField(allow_null=True)


def _whole(data: dict, name: str) -> None:
    """JSON numbers only for the whole-number fields (the input policy reads text too)."""
    value = data.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise inputs.InputError(name, f"must be a whole number, not {type(value).__name__}")


class ScoringViewSet(viewsets.GenericViewSet):
    """Scoring jobs: yours, and those of your teams' runs; others are 404."""

    lookup_value_regex = "[0-9]{1,18}"
    # what OPTIONS describes for POST (DRF's metadata asks the view for a serializer)
    serializer_class = ScoringRequestSerializer

    def get_queryset(self):
        return services.visible_scoring_jobs(self.request.user)

    @extend_schema(
        request=ScoringRequestSerializer,
        responses={
            202: QueuedSerializer,
            429: OpenApiResponse(
                OpenApiTypes.OBJECT, description="Too many jobs queued or running."
            ),
        },
    )
    def create(self, request):
        data = request.data
        if isinstance(data, dict):
            for name in ("run", "step", "policy_version"):
                _whole(data, name)
            if data.get("tie_band") is not None and not isinstance(data["tie_band"], int | float):
                raise inputs.InputError("tie_band", "must be a number")
        try:
            job = services.do_submit_scoring(request.user, data)
        except services.RunNotFound as exc:
            return Response({"run": [str(exc)]}, status=status.HTTP_404_NOT_FOUND)
        except services.TooManyInFlight as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        return Response({"id": job.pk, "status": job.status}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "wait",
                {"type": "number", "minimum": 0, "maximum": settings.CODEOPT_SCORING_MAX_WAIT_S},
                description="Seconds to wait for the job to end (long-poll); 0: answer at once.",
            )
        ],
        responses=ScoringJobSerializer,
    )
    def retrieve(self, request, pk=None):
        wait = inputs.number(
            "wait",
            request.query_params.get("wait"),
            low=0,
            high=settings.CODEOPT_SCORING_MAX_WAIT_S,
            default=0.0,
        )
        job = services.wait_for_job(self.get_object(), wait)
        return Response(services.scoring_answer(job))
