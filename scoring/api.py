"""POST /api/scoring/ and GET /api/scoring/<id>/?wait=SECONDS: scoring for any trainer, the
contract of issue 18 (declarations around scoring/services.py)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.authentication import BasicAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation import inputs
from foundation.schema import closed, link, links
from scoring import protocols, services


@closed(oneOf=[{"required": ["programs"]}, {"required": ["completions"]}])
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


@closed()
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


KIND_HELP = "all_negative, all_positive or mixed (null: a job scored before kinds were kept)."


class ScoredGroupSerializer(serializers.Serializer):
    problem = serializers.CharField()
    samples = SampleSerializer(many=True)
    worker = serializers.CharField(
        allow_null=True, help_text="The timing worker that scored the group."
    )
    kind = serializers.CharField(allow_null=True, help_text=KIND_HELP)


@closed()
class GatherRequestSerializer(serializers.Serializer):
    """Documents the request; validation is services.check_gather_request (names a field)."""

    reward_config = serializers.CharField(max_length=100, help_text="A stored configuration.")
    problem = serializers.CharField(max_length=120, help_text="A built problem's slug.")
    completions = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        min_length=1,
        help_text="Completions of one group (one, as a per-sample reward call sends).",
    )
    group = serializers.CharField(
        max_length=200,
        help_text="The client's name for the group: samples of one prompt (verl's uid).",
    )
    group_size = serializers.IntegerField(
        min_value=1,
        max_value=settings.CODEOPT_SCORING_MAX_PROGRAMS,
        help_text="Samples that complete the group (verl's rollout.n): it is scored then.",
    )
    window_s = serializers.FloatField(
        min_value=0,
        max_value=settings.CODEOPT_GATHER_MAX_WINDOW_S,
        required=False,
        help_text=f"Seconds the group waits for its samples from the first one's arrival "
        f"(default {settings.CODEOPT_GATHER_WINDOW_S}); then it is scored as it is.",
    )


class GroupAboutSerializer(serializers.Serializer):
    kind = serializers.CharField(allow_null=True, help_text=KIND_HELP)
    size = serializers.IntegerField(help_text="Samples the group was scored with.")
    job = serializers.IntegerField(help_text="The scoring job that scored it.")


class GatheredSampleSerializer(SampleSerializer):
    group = GroupAboutSerializer()


class GatheredSerializer(serializers.Serializer):
    samples = GatheredSampleSerializer(many=True)


@closed()
class OpenRLHFRequestSerializer(serializers.Serializer):
    """OpenRLHF's remote reward request (scoring/protocols.py)."""

    query = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        min_length=1,
        help_text="Prompt and response decoded together.",
    )
    prompts = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False), min_length=1
    )
    labels = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        min_length=1,
        help_text="The problems' slugs (the dataset's label column).",
    )


class OpenRLHFAnswerSerializer(serializers.Serializer):
    rewards = serializers.ListField(child=serializers.FloatField())
    scores = serializers.ListField(
        child=serializers.FloatField(), help_text="1 for a positive reward, else 0."
    )
    extra_logs = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField()),
        help_text=", ".join(f"codeopt/{name}" for name in protocols.OPENRLHF_LOGS),
    )


class TokenAsBasicPasswordScheme(OpenApiAuthenticationExtension):
    """The schema's word for TokenAsBasicPassword: HTTP Basic, the token as the password."""

    target_class = "scoring.api.TokenAsBasicPassword"
    name = "tokenAsBasicPassword"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "basic",
            "description": "Any user name; your API token as the password.",
        }


class TokenAsBasicPassword(BasicAuthentication):
    """HTTP Basic with the API token as the password (any user name), for a trainer that
    can carry credentials only in its URL: OpenRLHF's --reward.remote_url
    http://codeopt:TOKEN@host/api/scoring/openrlhf/?... (aiohttp sends them as Basic)."""

    def authenticate_credentials(self, userid, password, request=None):
        return TokenAuthentication().authenticate_credentials(password)


NOT_SCORED = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="The group got no scores (its job failed, in the sandbox when `sandbox` is "
    "true, or it was not scored in time): no reward is made up. `job` names the job.",
)


def _not_scored(exc: services.GatherFailed) -> Response:
    body = {"detail": str(exc), "sandbox": exc.sandbox, "job": exc.job_id}
    return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)


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
        extensions=links(
            202, GetScoringJob=link("api_scoring_retrieve", "The job.", id="$response.body#/id")
        ),
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

    @extend_schema(
        request=GatherRequestSerializer,
        responses={200: GatheredSerializer, 503: NOT_SCORED},
        description="Samples of one group sent alone or a few at a time (verl's per-sample "
        "reward calls): they join their group, which is scored once it holds `group_size` "
        "samples or `window_s` has passed; the request answers then, within "
        f"{settings.CODEOPT_GATHER_ANSWER_S} s.",
    )
    @action(detail=False, methods=["post"], url_path="samples")
    def samples(self, request):
        if isinstance(request.data, dict):
            _whole(request.data, "group_size")
        sent, options = services.samples_of(request.data)
        try:
            scored = services.do_score_gathered(request.user, sent, options)
        except services.GatherFailed as exc:
            return _not_scored(exc)
        return Response({"samples": scored})

    @extend_schema(
        request=OpenRLHFRequestSerializer,
        responses={200: OpenRLHFAnswerSerializer, 503: NOT_SCORED},
        parameters=[
            OpenApiParameter("reward_config", str, required=True),
            OpenApiParameter(
                "group_size", int, required=True, description="OpenRLHF's n_samples_per_prompt."
            ),
            OpenApiParameter(
                "window_s", float, description="Seconds a group waits for its samples."
            ),
        ],
        description="OpenRLHF's remote reward protocol (--reward.remote_url): samples of one "
        "prompt and label are gathered into one group.",
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="openrlhf",
        authentication_classes=[TokenAuthentication, TokenAsBasicPassword],
    )
    def openrlhf(self, request):
        samples = protocols.openrlhf_samples(request.data)
        params = request.query_params
        options = {
            "reward_config": params.get("reward_config"),
            "group_size": inputs.number(
                "group_size", params.get("group_size"), low=1, high=None, whole=True
            ),
            "window_s": params.get("window_s") or None,
        }
        sent = [
            {"problem": s.problem, "group": s.group, "completion": s.completion} for s in samples
        ]
        names = {"problem": "labels", "completions": "query", "group": "prompts"}
        try:
            scored = services.do_score_gathered(request.user, sent, options, names=names)
        except services.GatherFailed as exc:
            return _not_scored(exc)
        return Response(protocols.openrlhf_answer(scored))
