"""REST API for reward configurations and simulations: the Rewards page's forms as
declarations around rewards.services (save a configuration, recommend it, queue a
simulation) and rewards.reads (the configurations table, the simulations table, the charts'
results), with the same checks. Configurations and simulations are shared by every team, as
on the page; only staff and the members of its team may change a configuration (403)."""

from __future__ import annotations

import yaml
from django.db.models import Count
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.api_support import (
    REFUSED,
    JobRowSerializer,
    StrictBoolean,
    StrictInteger,
    StrictNumber,
    StrictText,
    answer_beats,
    checked_body,
    refused,
)
from foundation.schema import closed, link, links
from rewards import reads, services
from rewards.models import RewardConfig, Simulation
from rewards.simulator import RANK_AGAINST

FORBIDDEN = OpenApiResponse(
    OpenApiTypes.OBJECT, description="Not a member of its team (a built-in one: not staff)."
)


# -- configurations ---------------------------------------------------------------------------


class RewardConfigSerializer(serializers.ModelSerializer):
    """A configuration as the Rewards page's table shows it."""

    team = serializers.CharField(source="team.name", allow_null=True, default=None)
    fields = serializers.DictField(help_text="rewards.engine.RewardConfig's fields but the name.")
    design = serializers.SerializerMethodField(help_text="A phrase per design stage it sets.")
    run_count = serializers.IntegerField(help_text="Training runs that use it.")
    may_change = serializers.SerializerMethodField(help_text="Whether you may change it.")
    ranked = serializers.SerializerMethodField(
        help_text="Its score in the newest ranking of the design space (null: not ranked)."
    )

    class Meta:
        model = RewardConfig
        fields = [
            "id", "name", "team", "description", "fields", "design", "recommended",
            "recommended_by", "recommended_at", "created_by", "created_at", "updated_at",
            "run_count", "may_change", "ranked",
        ]  # fmt: skip
        read_only_fields = fields

    def get_design(self, config) -> list[str]:
        return reads.design_summary(config.fields)

    def get_may_change(self, config) -> bool:
        user = self.context["request"].user
        if "teams" not in self.context:  # once per answer
            self.context["teams"] = set(user.teams.values_list("pk", flat=True))
        return user.is_staff or config.team_id in self.context["teams"]

    @extend_schema_field({"type": "object", "nullable": True, "additionalProperties": True})
    def get_ranked(self, config) -> dict | None:
        if "ranking" not in self.context:
            ranking = reads.latest_ranking()
            self.context["ranking"] = {s["name"]: s for s in ranking.scores} if ranking else {}
        return self.context["ranking"].get(config.name)


@closed()
class RewardConfigRequestSerializer(serializers.Serializer):
    """Read strictly, then checked as the Rewards page's configuration form
    (services.check_config_form, check_config_team)."""

    name = StrictText(max_length=100, help_text="A new name (a saved one changes by PATCH).")
    fields = serializers.DictField(
        required=False,
        help_text="rewards.engine.RewardConfig's fields but the name (as the form's box): "
        '{"speed_bar": 30, "combination": "binary"}; left out, the defaults.',
    )
    description = StrictText(required=False, allow_blank=True, max_length=2000)
    team = StrictText(
        required=False,
        max_length=100,
        help_text="Who may change it: your "
        "only team by default; staff who name none save a shared one.",
    )


@closed()
class RewardConfigChangeSerializer(serializers.Serializer):
    fields = serializers.DictField(
        required=False,
        help_text="Every field but the name, replacing the stored ones; refused while a "
        "training run uses it.",
    )
    description = StrictText(
        required=False, allow_blank=True, max_length=2000, help_text="Empty: kept."
    )


@closed()
class RecommendRequestSerializer(serializers.Serializer):
    recommended = StrictBoolean(help_text="true recommends it for training, false withdraws.")


CONFIG_FIELDS = tuple(RewardConfigRequestSerializer().fields)
CHANGE_FIELDS = tuple(RewardConfigChangeSerializer().fields)


def _fields_text(fields: dict) -> str:
    """The fields as the form's box holds them, YAML, for the form's check to read: dumped by
    the same library that reads them back unchanged (a JSON dump would not be: YAML 1.1
    reads 1e+119 as text, and a surrogate pair's escapes as two lone surrogates)."""
    return yaml.safe_dump(fields, sort_keys=False)


class RewardConfigViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Every reward configuration (shared by all teams, as on the Rewards page), the
    recommended first."""

    serializer_class = RewardConfigSerializer
    lookup_value_regex = "[0-9]{1,18}"

    def get_queryset(self):
        return RewardConfig.objects.annotate(run_count=Count("runs")).select_related("team")

    def _answer(self, row: RewardConfig, code: int = 200) -> Response:
        row = self.get_queryset().get(pk=row.pk)
        return Response(self.get_serializer(row).data, status=code)

    @extend_schema(
        request=RewardConfigRequestSerializer,
        responses={201: RewardConfigSerializer, 400: REFUSED},
        extensions=links(
            201,
            GetRewardConfig=link(
                "api_reward_configs_retrieve", "Its detail.", id="$response.body#/id"
            ),
            ChangeRewardConfig=link(
                "api_reward_configs_partial_update", "Change it.", id="$response.body#/id"
            ),
            RecommendRewardConfig=link(
                "api_reward_configs_recommend_create", "Recommend it.", id="$response.body#/id"
            ),
        ),
        description="Save a new configuration, as the Rewards page's form does; a name "
        "already saved is refused (change that one with PATCH).",
    )
    def create(self, request):
        values = checked_body(RewardConfigRequestSerializer, request.data)
        try:
            config = services.check_config_form(
                values["name"], _fields_text(values.get("fields", {}))
            )
            if RewardConfig.objects.filter(name=config.name).exists():
                return Response(
                    {"name": [f"{config.name!r} is saved already: PATCH it to change it"]},
                    status=400,
                )
            team = services.check_config_team(request.user, values.get("team", ""))
            row = services.do_save_config(
                config,
                description=values.get("description", "").strip(),
                user=request.user.username,
                actor=request.user,
                team=team,
            )
        except ValueError as exc:
            return refused(exc, CONFIG_FIELDS, inner="fields")
        return self._answer(row, status.HTTP_201_CREATED)

    @extend_schema(
        request=RewardConfigChangeSerializer,
        responses={200: RewardConfigSerializer, 400: REFUSED, 403: FORBIDDEN},
        description="Change its fields or description, as saving it again from the page "
        "does: only its team's members or staff; its fields stay while a run uses it.",
    )
    def partial_update(self, request, pk=None):
        row = self.get_object()
        values = checked_body(RewardConfigChangeSerializer, request.data)
        try:
            config = (
                services.check_config_form(row.name, _fields_text(values["fields"]))
                if "fields" in values
                else row.engine_config()
            )
            row = services.do_save_config(
                config,
                description=values.get("description", "").strip(),
                user=request.user.username,
                actor=request.user,
            )  # PermissionDenied: a 403 naming who may
        except ValueError as exc:
            return refused(exc, CHANGE_FIELDS, inner="fields")
        return self._answer(row)

    @extend_schema(
        request=RecommendRequestSerializer,
        responses={200: RewardConfigSerializer, 400: REFUSED, 403: FORBIDDEN},
        description="Recommend it for training (or withdraw), as the page's button does.",
    )
    @action(detail=True, methods=["post"])
    def recommend(self, request, pk=None):
        row = self.get_object()
        values = checked_body(RecommendRequestSerializer, request.data)
        services.do_set_recommended(
            row.pk, values["recommended"], user=request.user.username, actor=request.user
        )
        return self._answer(row)


# -- simulations ------------------------------------------------------------------------------


class SimulationSerializer(JobRowSerializer):
    """A simulation as the Rewards page's table shows it: rewards.reads.simulation_row."""

    configs = serializers.IntegerField(help_text="Configurations simulated.")
    noise_cvs = serializers.ListField(child=serializers.FloatField())
    group_size = serializers.IntegerField()
    problems = serializers.IntegerField(allow_null=True, help_text="Problems used, once done.")
    rank_against = serializers.ChoiceField(choices=RANK_AGAINST)
    wall_seconds = serializers.FloatField(allow_null=True)

    def to_representation(self, simulation):
        return reads.simulation_row(simulation, answer_beats(self.context))


class NoiseResultSerializer(serializers.Serializer):
    noise_cv = serializers.FloatField()
    monotonicity = serializers.FloatField(allow_null=True)
    signal_density = serializers.FloatField()
    all_negative_rate = serializers.FloatField()
    curve = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        help_text="Mean reward per quality decile (null: no reference there).",
    )
    wrong_paid_share = serializers.FloatField()
    concordance = serializers.FloatField(allow_null=True)


class ConfigResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    by_noise = NoiseResultSerializer(many=True)
    flags = serializers.ListField(child=serializers.CharField())
    warnings = serializers.ListField(child=serializers.CharField())
    flagged = serializers.BooleanField()
    verdict = serializers.CharField(
        help_text="What the page says of it: worth training, use with care, discard."
    )


def _when(moment) -> str | None:
    return moment.isoformat() if moment else None  # as the row's created_at


class SimulationDetailSerializer(SimulationSerializer):
    """With what it was asked and the results the page plots: per configuration and noise
    level the reward curve, monotonicity, signal density, all-negative rate."""

    config_names = serializers.ListField(child=serializers.CharField())
    problem_slugs = serializers.ListField(child=serializers.CharField())
    split = serializers.CharField()
    seed = serializers.IntegerField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    problems_used = serializers.ListField(
        child=serializers.ListField(child=serializers.JSONField()),
        help_text="[[slug, references, tests, test kind], ...]",
    )
    skipped = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="[[slug, why], ...]"
    )
    results = ConfigResultSerializer(many=True)

    def to_representation(self, simulation):
        chart = reads.simulation_chart_data(simulation)  # what the page plots
        return {
            **super().to_representation(simulation),
            "config_names": [c["name"] for c in simulation.configs],
            "problem_slugs": simulation.problem_slugs,
            "split": simulation.split,
            "seed": simulation.seed,
            "started_at": _when(simulation.started_at),
            "finished_at": _when(simulation.finished_at),
            "problems_used": simulation.problems_used,
            "skipped": simulation.skipped,
            "results": [
                {**result, "verdict": reads.verdict(result)[1]} for result in chart["results"]
            ],
        }


@closed()
class SimulationRequestSerializer(serializers.Serializer):
    """Read strictly, then checked by services.check_simulation_request as the Rewards
    page's simulation form."""

    configs = serializers.ListField(
        child=StrictText(max_length=100), min_length=1, help_text="Saved configurations' names."
    )
    noise_cvs = serializers.ListField(
        child=StrictNumber(min_value=0, max_value=services.MAX_NOISE_CV),
        required=False,
        min_length=1,
        max_length=services.MAX_NOISE_LEVELS,
        help_text="Timing noise levels (coefficient of variation); default 0, 0.05, 0.2.",
    )
    group_size = StrictInteger(
        required=False, min_value=1, max_value=services.MAX_GROUP_SIZE, help_text="Default 16."
    )
    problems = serializers.ListField(
        child=StrictText(),
        required=False,
        help_text="Slugs (default: every problem with stored runtimes).",
    )
    split = serializers.ChoiceField(
        choices=list(services.SPLITS), required=False, allow_blank=True, help_text="Empty: any."
    )
    rank_against = serializers.ChoiceField(
        choices=list(RANK_AGAINST),
        required=False,
        help_text="references (default), or own_outputs: the negative control.",
    )


SIMULATION_FIELDS = tuple(SimulationRequestSerializer().fields)
SIMULATION_ARGUMENTS = {
    "configs": "config_names",
    "noise_cvs": "noise_cvs",
    "group_size": "group_size",
    "problems": "problem_slugs",
    "split": "split",
    "rank_against": "rank_against",
}
"""services.check_simulation_request's argument for each request field (the rest default)."""


class SimulationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Every simulation (shared, as on the Rewards page), newest first."""

    queryset = Simulation.objects.all()
    lookup_value_regex = "[0-9]{1,18}"

    def get_serializer_class(self):
        return SimulationDetailSerializer if self.action == "retrieve" else SimulationSerializer

    @extend_schema(
        request=SimulationRequestSerializer,
        responses={201: SimulationSerializer, 400: REFUSED},
        extensions=links(
            201,
            GetRewardSimulation=link(
                "api_reward_simulations_retrieve", "Its results.", id="$response.body#/id"
            ),
        ),
        description="Queue a simulation as the Rewards page's form does (the `default` queue).",
    )
    def create(self, request):
        values = checked_body(SimulationRequestSerializer, request.data)
        if "noise_cvs" in values:  # as the form's box holds them, for the form's check
            values["noise_cvs"] = ",".join(str(level) for level in values["noise_cvs"])
        given = {SIMULATION_ARGUMENTS[name]: value for name, value in values.items()}
        try:
            checked = services.check_simulation_request(**given)
        except ValueError as exc:
            return refused(exc, SIMULATION_FIELDS, renamed={"noise_cv": "noise_cvs"})
        simulation = services.do_create_simulation(**checked, started_by=request.user.username)
        return Response(SimulationSerializer(simulation).data, status=status.HTTP_201_CREATED)
