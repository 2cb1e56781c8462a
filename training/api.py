"""REST API for a run's rollout samples (the Samples page's rows): declarations around
runs.services.visible_runs, the same team scoping as the pages."""

from __future__ import annotations

from django.db.models import Max
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, viewsets

from foundation import inputs
from runs.services import visible_runs
from training.models import RolloutSample


class RolloutSampleSerializer(serializers.ModelSerializer):
    problem = serializers.CharField(source="problem.slug", help_text="The problem's slug.")

    class Meta:
        model = RolloutSample
        fields = [
            "step", "problem", "group", "index", "completion", "program", "reward", "verdict",
            "correct", "speed_percentile", "policy_version", "tokens", "truncated",
        ]  # fmt: skip
        read_only_fields = fields


class SampleViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Rollout samples of one run you can see, at one step (default: its latest), in
    (group, index) order; another team's run has none."""

    serializer_class = RolloutSampleSerializer

    def get_queryset(self):
        params = self.request.query_params
        run = inputs.record_id("run", params.get("run"))
        if run is None:
            raise inputs.InputError("run", "required: the run whose samples to list")
        samples = RolloutSample.objects.filter(
            training__run__in=visible_runs(self.request.user), training__run_id=run
        ).select_related("problem")
        if params.get("step") == "":
            raise inputs.InputError("step", "a whole number >= 0, or leave it out for the latest")
        step = inputs.number("step", params.get("step"), low=0, high=inputs.MAX_ID, whole=True)
        if step is None:
            step = samples.aggregate(latest=Max("step"))["latest"]
        return samples.filter(step=step).order_by("group", "index")

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "run",
                {"type": "integer", "minimum": 1, "maximum": inputs.MAX_ID},
                required=True,
                description="The run's id.",
            ),
            OpenApiParameter(
                "step",
                {"type": "integer", "minimum": 0, "maximum": inputs.MAX_ID},
                description="The step (default: the latest).",
            ),
        ]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)
