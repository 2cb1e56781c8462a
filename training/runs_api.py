"""REST API for training runs (/api/training/): the Training page's form and a run page's stop
button as declarations around training.services (check_train_request, do_start_training,
do_request_stop, do_resume_training) and training.reads (the progress the run page shows),
with the same team scoping (runs.services.visible_runs) and the same checks."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation import inputs
from foundation.api_support import REFUSED, refused, within
from foundation.queueing import Queues
from foundation.schema import closed, link, links
from foundation.tenancy import check_team_for_new_run
from foundation.typed import INT_TUPLE, STR_TUPLE, bounds_of, field_kinds
from runs.models import Run
from runs.services import visible_runs
from training import reads
from training import services as training_services
from training.config import REQUIRED_HINTS, TrainConfig

CONFIG_KINDS, _ = field_kinds(TrainConfig)
CONFIG_FIELDS = tuple(CONFIG_KINDS)
REQUIRED_CONFIG_FIELDS = ("model",)
"""The form's rule for the API too: the model is chosen, never assumed (REQUIRED_HINTS); the
other fields left out keep their defaults."""
NAME_CHARS = Run._meta.get_field("name").max_length


def _config_schema() -> dict:
    """TrainConfig as a JSON schema: each field's type and bounds (foundation.typed), unknown
    fields refused. Rules across fields and open intervals stay with TrainConfig.check."""
    kinds = {
        int: {"type": "integer"},
        float: {"type": "number"},
        bool: {"type": "boolean"},
        str: {"type": "string", "minLength": 1},
        STR_TUPLE: {"type": "array", "items": {"type": "string", "minLength": 1}},
        INT_TUPLE: {"type": "array", "items": {"type": "integer"}, "minItems": 1},
    }
    properties = {}
    for name, kind in CONFIG_KINDS.items():
        schema = dict(kinds[kind])
        low, high = bounds_of(TrainConfig).get(name, (None, None))
        if low is not None:
            schema["minimum"] = low
        if high is not None:
            schema["maximum"] = high
        properties[name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": list(REQUIRED_CONFIG_FIELDS),
        "additionalProperties": False,
        "description": "training.config.TrainConfig (docs: the Training page's form); a field "
        "left out keeps its default.",
    }


@extend_schema_field(_config_schema())
class TrainConfigField(serializers.JSONField):
    pass


@closed()
class TrainingRequestSerializer(serializers.Serializer):
    """Documents the request; validation is the Training form's (TrainConfig.from_dict,
    services.check_train_request, check_team_for_new_run), each refusal naming its field."""

    config = TrainConfigField()
    name = serializers.CharField(
        required=False, allow_blank=True, max_length=NAME_CHARS, help_text="Default: grpo-<reward>."
    )
    team = serializers.CharField(
        required=False, allow_blank=True, max_length=100, help_text="Default: your only team."
    )


REQUEST_FIELDS = tuple(TrainingRequestSerializer().fields)


class TrainingProgressSerializer(serializers.Serializer):
    """training.reads.progress: what the run page shows."""

    steps_done = serializers.IntegerField(help_text="Optimizer steps done, as every page says.")
    steps_total = serializers.IntegerField(allow_null=True, help_text="Null: not known here.")
    external = serializers.BooleanField(help_text="Trained elsewhere, scored here.")
    done = serializers.IntegerField(help_text="Counted in the stage (problems, steps).")
    total = serializers.IntegerField(help_text="0: nothing counted.")
    share = serializers.FloatField(allow_null=True, help_text="0 to 1: the page's bar.")
    remaining_s = serializers.FloatField(allow_null=True, help_text="The stage's estimate.")
    text = serializers.CharField(
        allow_blank=True,
        help_text="The run page's progress line: running, the stage with its count and "
        "estimate; queued, what it waits for on its queue; ended, empty.",
    )


@extend_schema_field({"$ref": "#/components/schemas/RunStatusEnum"})
class RunStatusField(serializers.CharField):
    """A run's status, as /api/runs/ documents it (one enum in the schema, not a second
    copy that drf-spectacular would have to rename)."""


class TrainingRunSerializer(serializers.ModelSerializer):
    status = RunStatusField()
    team = serializers.CharField(source="team.name")
    owner = serializers.CharField(source="owner.username")
    reward_config = serializers.CharField(source="reward_config.name", allow_null=True)
    step = serializers.IntegerField(source="training.steps_done", help_text="Steps done.")
    steps = serializers.IntegerField(
        source="training.steps_total",
        allow_null=True,
        help_text="The step cap (a cap with max_minutes too); null: not known here.",
    )
    stage = serializers.CharField(source="training.stage")
    progress = serializers.SerializerMethodField()
    stop_requested = serializers.BooleanField(source="training.stop_requested")
    attempts = serializers.IntegerField(source="training.attempts", help_text="Deliveries.")
    error = serializers.CharField(source="training.error")
    external = serializers.BooleanField(
        source="training.external",
        help_text="Trained elsewhere, its programs scored here: no stop, no resume.",
    )
    checkpoints = serializers.SerializerMethodField(help_text="Steps with a checkpoint.")
    config = serializers.JSONField(source="training.config")
    run_url = serializers.HyperlinkedIdentityField(
        view_name="api-run-detail", help_text="The run: /api/runs/{id}/ (its metrics below it)."
    )

    class Meta:
        model = Run
        fields = [
            "id", "name", "status", "team", "owner", "model_name", "reward_config", "step",
            "steps", "stage", "progress", "stop_requested", "attempts", "error",
            "external", "checkpoints", "config", "created_at", "started_at",
            "finished_at", "run_url",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(TrainingProgressSerializer)
    def get_progress(self, run) -> dict:
        return reads.progress(run, self.context["queues"])

    def get_checkpoints(self, run) -> list[int]:
        if run.training.external:
            return []  # no folder of its own
        return sorted(training_services.checkpoint_steps(run.training))


CONFLICT = OpenApiResponse(OpenApiTypes.OBJECT, description="{detail}: why not, in its state.")


def _checked_request(user, data) -> tuple:
    """(name, team, TrainConfig, RewardConfig) of a request, checked as the Training page's
    form checks it; InputError naming the field (`config.<field>` for the config's)."""
    values = inputs.json_object(data, REQUEST_FIELDS)
    if "config" not in values:
        raise inputs.InputError("config", "required: a TrainConfig object")
    config = inputs.json_object(values["config"], CONFIG_FIELDS, where="config")
    for name in REQUIRED_CONFIG_FIELDS:
        if name not in config:
            raise inputs.InputError(f"config.{name}", f"required ({REQUIRED_HINTS[name]})")
    name = inputs.text("name", values.get("name", ""), max_chars=NAME_CHARS).strip()
    team = inputs.text("team", values.get("team", ""), max_chars=100).strip()
    try:
        checked, reward = training_services.check_train_request(config)
    except ValueError as exc:
        raise within(exc, "config", CONFIG_FIELDS) from None
    team_row = check_team_for_new_run(user, team or None)
    return name or f"grpo-{checked.reward_config}", team_row, checked, reward


class TrainingViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Training runs of your teams (staff: all), newest first, by their run's id; another
    team's are 404."""

    serializer_class = TrainingRunSerializer
    lookup_value_regex = "[0-9]{1,18}"

    def get_queryset(self):
        return (
            visible_runs(self.request.user)
            .filter(training__isnull=False)
            .select_related("training", "reward_config")
            .order_by("-created_at", "-pk")
        )

    def get_serializer_context(self):
        # the queues are read once per answer, for every queued run in it (the run page's)
        return {**super().get_serializer_context(), "queues": Queues(self.request.user)}

    def _answer(self, run: Run, code: int = status.HTTP_200_OK) -> Response:
        run = self.get_queryset().get(pk=run.pk)  # as stored now, with its training
        return Response(self.get_serializer(run).data, status=code)

    @extend_schema(
        request=TrainingRequestSerializer,
        responses={201: TrainingRunSerializer, 400: REFUSED},
        extensions=links(
            201,
            GetTraining=link("api_training_retrieve", "Its status.", id="$response.body#/id"),
            StopTraining=link(
                "api_training_stop_create", "Stop it after its step.", id="$response.body#/id"
            ),
            ResumeTraining=link(
                "api_training_resume_create",
                "Queue it again once stopped.",
                id="$response.body#/id",
            ),
        ),
        description="Start a training run, as the Training page's form does: queued on `gpu`. "
        "A refused field is named, `config.<field>` for the config's.",
    )
    def create(self, request):
        try:
            name, team, config, reward = _checked_request(request.user, request.data)
        except ValueError as exc:
            return refused(exc)
        run = training_services.do_start_training(
            owner=request.user, team=team, name=name, config=config, reward=reward
        )
        return self._answer(run, status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses={200: TrainingRunSerializer, 409: CONFLICT},
        description="Stop the run after its current step, with a checkpoint (the run page's "
        "button). One that has ended, or trains elsewhere, is a 409.",
    )
    @action(detail=True, methods=["post"])
    def stop(self, request, pk=None):
        run = self.get_object()
        try:
            training_services.check_stoppable(run)
        except training_services.WrongState as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        training_services.do_request_stop(run)
        return self._answer(run)

    @extend_schema(
        request=None,
        responses={202: TrainingRunSerializer, 409: CONFLICT},
        description="Queue a stopped or failed run again: it resumes from its newest "
        "checkpoint. One queued, running or finished, or without a checkpoint, is a 409.",
    )
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        run = self.get_object()
        try:
            training_services.do_resume_training(run)
        except training_services.WrongState as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return self._answer(run, status.HTTP_202_ACCEPTED)
