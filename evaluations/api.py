"""REST API for evaluations: the Evaluations page's actions as declarations around
evaluations.services (start, cancel) and evaluations.reads (list, detail, compare), with the
same team scoping (reads.visible_evaluations) and the same field checks."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from evaluations import metrics, reads, services
from evaluations.models import Evaluation
from foundation import inputs
from foundation.api_support import REFUSED, refused
from foundation.schema import closed, link, links
from foundation.tenancy import check_team_for_new_run


class IntervalSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True, help_text="95% interval (null: none).")
    high = serializers.FloatField(allow_null=True)


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    text = serializers.CharField()


def _share(results: dict, key: str) -> float | None:
    return (results.get(key) or {}).get("share")


class EvaluationSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    n_problems = serializers.SerializerMethodField()
    p_tau = serializers.SerializerMethodField(
        help_text="{τ: {value, low, high}}: the share of problems solved within τ% of the "
        "fastest human program, with its 95% interval."
    )
    beats_fastest_human = serializers.SerializerMethodField()
    complexity_improved = serializers.SerializerMethodField()
    interval_warning = serializers.SerializerMethodField()

    class Meta:
        model = Evaluation
        fields = [
            "id", "name", "status", "stage", "error", "source", "run", "step", "model",
            "split", "problem_slugs", "n", "temperature", "seed", "max_new_tokens", "taus",
            "complexity", "created_at", "started_at", "finished_at", "progress", "n_problems",
            "p_tau", "beats_fastest_human", "complexity_improved", "interval_warning",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, evaluation) -> dict:
        return {
            "done": evaluation.progress_done,
            "total": evaluation.progress_total,
            "text": evaluation.progress_text,
        }

    def get_n_problems(self, evaluation) -> int | None:
        return (evaluation.results or {}).get("n_problems")

    @extend_schema_field(serializers.DictField(child=IntervalSerializer()))
    def get_p_tau(self, evaluation) -> dict:
        row = reads.headline(evaluation)
        found = {}
        for tau in (evaluation.results or {}).get("p_tau") or {}:
            low, high = row.get(f"p{tau}_ci") or (None, None)
            found[tau] = {"value": row.get(f"p{tau}"), "low": low, "high": high}
        return found

    def get_beats_fastest_human(self, evaluation) -> float | None:
        return _share(evaluation.results or {}, "beats_fastest_human")

    def get_complexity_improved(self, evaluation) -> float | None:
        return _share(evaluation.results or {}, "complexity_improved")

    def get_interval_warning(self, evaluation) -> str:
        if evaluation.status != Evaluation.Status.DONE:
            return ""
        return metrics.few_problems_warning((evaluation.results or {}).get("n_problems"))


@closed()
class EvaluationRequestSerializer(serializers.Serializer):
    """Documents the request; validation is services.check_evaluation_request (names a
    field), as the Evaluations page's form."""

    source = serializers.ChoiceField(
        choices=Evaluation.Source.values,
        help_text="run: a training run's checkpoint; model: a base model; completions: "
        "programs you send (JSON lines in `completions`).",
    )
    run = serializers.IntegerField(required=False, min_value=1, help_text="With source=run.")
    step = serializers.IntegerField(
        required=False, min_value=0, help_text="The checkpoint (default: the latest)."
    )
    model = serializers.CharField(required=False, help_text="With source=model: tiny, a named "
                                  "base model or a path.")  # fmt: skip
    completions = serializers.CharField(
        required=False, help_text="With source=completions: JSON lines {problem, program}."
    )
    split = serializers.ChoiceField(choices=list(reads.SPLITS), required=False)
    problems = serializers.ListField(child=serializers.CharField(), required=False)
    n = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_SAMPLES)
    temperature = serializers.FloatField(required=False, min_value=0.01, max_value=5.0)
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1)
    max_new_tokens = serializers.IntegerField(required=False, min_value=8, max_value=4096)
    taus = serializers.ListField(child=serializers.FloatField(), required=False)
    complexity = serializers.BooleanField(required=False)
    name = serializers.CharField(required=False, max_length=200)
    team = serializers.CharField(required=False, help_text="Default: the run's, or your only.")


REQUEST_FIELDS = tuple(EvaluationRequestSerializer().fields)


class EvaluationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Evaluations of your teams (staff: all), newest first; others are 404."""

    serializer_class = EvaluationSerializer
    lookup_value_regex = "[0-9]{1,18}"

    def get_queryset(self):
        queryset = reads.visible_evaluations(self.request.user).order_by("-pk")
        if self.action != "list":
            return queryset
        params = self.request.query_params
        if "run" in params:
            run = inputs.record_id("run", params["run"])
            if run is None:
                raise inputs.InputError("run", "a run's id, or leave it out for every run")
            queryset = queryset.filter(run_id=run)
        if "status" in params:
            state = params["status"]
            if state not in Evaluation.Status.values:
                raise inputs.InputError("status", f"one of {', '.join(Evaluation.Status.values)}")
            queryset = queryset.filter(status=state)
        return queryset

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "run",
                {"type": "integer", "minimum": 1, "maximum": inputs.MAX_ID},
                description="Only this run's evaluations.",
            ),
            OpenApiParameter("status", str, enum=list(Evaluation.Status.values)),
        ]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=EvaluationRequestSerializer,
        responses={201: EvaluationSerializer, 400: REFUSED},
        extensions=links(
            201,
            GetEvaluation=link("api_evaluations_retrieve", "Its detail.", id="$response.body#/id"),
            CancelEvaluation=link(
                "api_evaluations_cancel_create", "Cancel it while queued.", id="$response.body#/id"
            ),
        ),
        description="Start an evaluation, as the Evaluations page's form does: queued on "
        "`eval` when it generates, on `timing` when it only scores.",
    )
    def create(self, request):
        values = dict(inputs.json_object(request.data, REQUEST_FIELDS))
        if isinstance(values.get("taus"), list):
            values["taus"] = ",".join(str(t) for t in values["taus"])
        upload = None
        if values.get("source") == Evaluation.Source.COMPLETIONS:
            text = values.get("completions")
            if not isinstance(text, str) or not text.strip():
                raise inputs.InputError("completions", "JSON lines {problem, program}")
            upload = ("completions", text)
        try:
            checked = services.check_evaluation_request(request.user, values, upload)
            run_team = checked.run.team if checked.run is not None else None
            team = check_team_for_new_run(request.user, values.get("team") or None, run_team)
        except ValueError as exc:
            return refused(exc)
        evaluation = services.do_create_evaluation(request.user, team, checked)
        body = EvaluationSerializer(evaluation).data
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses={
            200: EvaluationSerializer,
            409: OpenApiResponse(OpenApiTypes.OBJECT, description="It has already started."),
        },
        description="Cancel a queued evaluation: it ends failed, 'cancelled by …', and can "
        "be retried like any failed one. One that started is not stopped (409).",
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        evaluation = self.get_object()
        if not services.do_cancel_evaluation(evaluation, request.user):
            evaluation.refresh_from_db()
            detail = f"evaluation {evaluation.pk} is {evaluation.status}: only a queued one"
            return Response({"detail": detail}, status=status.HTTP_409_CONFLICT)
        evaluation.refresh_from_db()
        return Response(EvaluationSerializer(evaluation).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "ids",
                {"type": "string", "pattern": r"^[1-9][0-9]{0,17}(,[1-9][0-9]{0,17}){0,49}$"},
                required=True,
                description="Evaluation ids, at most 50: 3,5,8.",
            )
        ],
        responses={
            200: OpenApiTypes.OBJECT,
            400: REFUSED,
            404: OpenApiResponse(OpenApiTypes.OBJECT, description="An id you cannot see."),
        },
        description="The comparison the page shows: headline rows, pτ over every τ with "
        "intervals, and the win-rate matrix of those done.",
    )
    @action(detail=False, methods=["get"])
    def compare(self, request):
        raw = request.query_params.get("ids", "")
        try:
            if not inputs.record_ids("ids", raw):
                raise inputs.InputError("ids", "choose at least one evaluation")
            chosen = reads.chosen(request.user, raw, "ids")
        except reads.NotVisible as exc:  # a missing resource
            return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
        except ValueError as exc:
            return refused(exc)
        return Response(reads.comparison(chosen))
