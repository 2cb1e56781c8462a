"""REST API for judge batches: the Judges pages' actions as declarations around
judges.services (start a batch, label a pair) and judges.reads (the batches table, the
breakdown, agreement and accuracy charts, the reviewed pairs, the labels file), with the same
team scoping (reads.visible_batches) and the same checks as the page's form."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, renderers, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response

from foundation import inputs
from foundation.api_support import (
    REFUSED,
    SHOWN_STATUS,
    FiniteFloat,
    StrictBoolean,
    StrictNumber,
    StrictText,
    answer_beats,
    checked_body,
    record_id,
    refused,
)
from foundation.jobs import shown_status
from foundation.schema import closed, link, links
from foundation.tenancy import check_team_for_new_run
from judges import reads, services, views
from judges.categories import CATEGORIES, VERDICTS
from judges.models import JudgeBatch, JudgePair

JUDGE_NAMES = ", ".join(reads.JUDGE_ORDER) + "."
VERDICT_NAMES = ", ".join(VERDICTS) + "."
# (response strings that take a few values are text with the values named: as enums, the
# schema would name the same choice sets twice)
LABELS_MEDIA_TYPE = "application/x-ndjson"


class InputErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(required=False, help_text="A pairs file's line.")
    problem = serializers.CharField(required=False, help_text="An evaluation's problem.")
    error = serializers.CharField()


class JudgeBatchSerializer(serializers.ModelSerializer):
    """A batch as the Judges page's table shows it (judges.reads.batch_rows: the same keys),
    with what it was asked."""

    status = serializers.SerializerMethodField(help_text=SHOWN_STATUS)
    error = serializers.SerializerMethodField()
    judges = serializers.ListField(child=serializers.CharField(), help_text="analyzer, llm.")
    pairs = serializers.IntegerField(
        source="pair_count", help_text="Pairs stored: judged, within noise and slower."
    )
    progress_text = serializers.CharField()
    team = serializers.CharField(source="team.name")
    owner = serializers.CharField(source="owner.username")
    input_errors = InputErrorSerializer(
        many=True, help_text="Lines of the pairs file, or problems of the evaluation, left out."
    )

    class Meta:
        model = JudgeBatch
        fields = [
            "id", "name", "status", "stage", "judges", "progress_done", "progress_total",
            "pairs", "error", "created_at", "progress_text", "started_at", "finished_at",
            "team", "owner", "evaluation", "baseline_evaluation", "pairs_file", "llm_model",
            "tie_band", "measure", "input_errors",
        ]  # fmt: skip
        read_only_fields = fields

    def get_status(self, batch) -> str:
        return shown_status(batch, answer_beats(self.context))[0]

    def get_error(self, batch) -> str:
        return shown_status(batch, answer_beats(self.context))[1]


class TruthSerializer(serializers.Serializer):
    judge = serializers.CharField(help_text=JUDGE_NAMES)
    pairs = serializers.IntegerField(help_text="Judged pairs with a ground truth.")
    correct = serializers.IntegerField()
    accuracy = serializers.FloatField()
    unclear = serializers.IntegerField()
    matrix = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Rows: the truth, columns: the judge's verdict, in `verdicts` order.",
    )


class AgreementSerializer(serializers.Serializer):
    first = serializers.CharField(help_text=JUDGE_NAMES)
    second = serializers.CharField(help_text=JUDGE_NAMES)
    pairs = serializers.IntegerField()
    agreement = serializers.FloatField()
    matrix = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))


class JudgeBatchDetailSerializer(JudgeBatchSerializer):
    """A batch with the charts of its page: each judge's category breakdown beside the
    paper's, the agreement between judges and each judge's accuracy against the ground
    truth (when the pairs carry one)."""

    verdicts = serializers.SerializerMethodField(help_text="The order of every matrix.")
    breakdown = serializers.SerializerMethodField(
        help_text="judges.reads.breakdown: pair kinds, the paper's shares, and per judge its "
        "categories, shares, errors, cost and latency."
    )
    agreement = serializers.SerializerMethodField()
    truth = serializers.SerializerMethodField(help_text="Per judge, its accuracy.")

    class Meta(JudgeBatchSerializer.Meta):
        fields = [*JudgeBatchSerializer.Meta.fields, "verdicts", "breakdown", "agreement", "truth"]
        read_only_fields = fields

    def get_verdicts(self, batch) -> list[str]:
        return list(VERDICTS)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_breakdown(self, batch) -> dict:
        return reads.breakdown(batch)

    @extend_schema_field(AgreementSerializer(many=True))
    def get_agreement(self, batch) -> list:
        return reads.agreement(batch)

    @extend_schema_field(TruthSerializer(many=True))
    def get_truth(self, batch) -> list:
        return reads.against_truth(batch)


class VerdictSerializer(serializers.Serializer):
    category = serializers.CharField(allow_null=True, help_text=VERDICT_NAMES)
    secondary = serializers.CharField(allow_null=True)
    rationale = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    error = serializers.CharField()
    raw = serializers.CharField(help_text="An LLM's replies when none was valid.")
    cached = serializers.BooleanField()
    by = serializers.CharField(help_text="Who labelled it (a person's label).")


class JudgePairSerializer(serializers.Serializer):
    """A pair as the batch page reviews it (judges.reads.pair_rows), with both programs."""

    pair = serializers.IntegerField(help_text="The pair's id (POST …/judge-pairs/{id}/label/).")
    problem = serializers.CharField()
    kind = serializers.ChoiceField(choices=JudgePair.Kind.values)
    baseline_label = serializers.CharField()
    optimized_label = serializers.CharField()
    baseline_s = FiniteFloat(allow_null=True)
    optimized_s = FiniteFloat(allow_null=True)
    speedup = FiniteFloat(allow_null=True)
    baseline_exponent = FiniteFloat(allow_null=True)
    optimized_exponent = FiniteFloat(allow_null=True)
    evidence = serializers.DictField(
        allow_null=True,
        help_text="What was measured on the problem's generator (judges.reads.evidence_view); "
        "null: not measured, see evidence_note.",
    )
    evidence_note = serializers.CharField()
    category = serializers.CharField(
        allow_null=True,
        help_text="The person's label, else the LLM's, else the analyzer's "
        f"verdict: {VERDICT_NAMES}",
    )
    rationale = serializers.CharField()
    human = serializers.CharField(allow_null=True, help_text="A person's label (null: none yet).")
    truth = serializers.CharField(allow_null=True, help_text="The pairs file's ground truth.")
    judges = serializers.DictField(child=VerdictSerializer(), help_text="Each judge's verdict.")
    baseline = serializers.CharField()
    optimized = serializers.CharField()


def pair_rows(batch: JudgeBatch, filters: dict | None = None) -> list[dict]:
    """judges.reads.pair_rows, each with the person's label, the ground truth and both
    programs (one query for all)."""
    rows = reads.pair_rows(batch, filters)
    code = {
        pk: (baseline, optimized, truth)
        for pk, baseline, optimized, truth in batch.pairs.filter(
            pk__in=[row["pair"] for row in rows]
        ).values_list("pk", "baseline", "optimized", "true_category")
    }
    for row in rows:
        row["baseline"], row["optimized"], truth = code[row["pair"]]
        row["truth"] = truth or None
        row["human"] = (row["judges"].get("human") or {}).get("category")
    return rows


@closed()
class JudgeBatchRequestSerializer(serializers.Serializer):
    """Read strictly, then checked by services.check_judge_request as the Judges page's
    form: an evaluation (or a run's latest) against the median human or the starting model,
    or a pairs file."""

    evaluation = record_id(required=False, help_text="A finished evaluation to judge.")
    run = record_id(required=False, help_text="Or a run: its latest finished evaluation.")
    baseline = serializers.ChoiceField(
        choices=["human", "start"],
        required=False,
        help_text="human: the median human reference (default); start: the starting model's "
        "evaluation (`baseline_evaluation`, or the run's step 0).",
    )
    baseline_evaluation = record_id(required=False)
    pairs = StrictText(
        required=False,
        trim_whitespace=False,
        help_text="Or a pairs file's text: JSON lines {problem, baseline, optimized, and "
        "optionally baseline_s, optimized_s, statement, category (the ground truth)}.",
    )
    pairs_file = StrictText(
        required=False, max_length=255, help_text="Its name (default: pairs.jsonl)."
    )
    judge = serializers.ListField(
        child=serializers.ChoiceField(choices=services.JUDGES),
        required=False,
        min_length=1,
        max_length=len(services.JUDGES),
        help_text="Default: the analyzer, and the LLM too when an endpoint is configured.",
    )
    measure = StrictBoolean(
        required=False, help_text="Measure each pair's evidence first (default true)."
    )
    tie_band = StrictNumber(required=False, min_value=0, max_value=0.99)
    name = StrictText(required=False, max_length=200)
    team = StrictText(
        required=False, max_length=100, help_text="Default: the evaluation's, or your only."
    )


REQUEST_FIELDS = tuple(JudgeBatchRequestSerializer().fields)


def _pairs_upload(values: dict) -> tuple[str, str] | None:
    """(file name, text) of the pairs sent, bounded as an uploaded file is; None: none."""
    text = values.pop("pairs", None)
    name = values.pop("pairs_file", "") or "pairs.jsonl"
    if text is None:
        return None
    size = len(text.encode())
    if size > settings.CODEOPT_MAX_UPLOAD_BYTES:
        raise inputs.InputError(
            "pairs", f"{size:,} bytes; at most {settings.CODEOPT_MAX_UPLOAD_BYTES:,} per upload"
        )
    inputs.lines_within("pairs", text, max_lines=settings.CODEOPT_MAX_UPLOAD_LINES)
    return name, text


class AnyAccepted(BaseContentNegotiation):
    """The labels file is the page's answer whatever the client accepts (a client asking
    for application/x-ndjson is not refused 406); an error is JSON."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


PAIR_FILTERS = [
    OpenApiParameter("problem", str, description="Only this problem's pairs."),
    OpenApiParameter(
        "category",
        str,
        enum=list(VERDICTS),
        description="Only this category (the `judge`'s verdict, or the shown one).",
    ),
    OpenApiParameter(
        "judge",
        str,
        enum=list(reads.JUDGE_ORDER),
        description="Only the pairs this judge gave a verdict on.",
    ),
]


def _choice(params, name: str, choices) -> str:
    value = params.get(name, "").strip()
    if value and value not in choices:
        raise inputs.InputError(name, f"{value[:40]!r} is not one of {', '.join(choices)}")
    return value


class JudgeBatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Judge batches of your teams (staff: all), newest first; others are 404."""

    lookup_value_regex = "[0-9]{1,18}"

    def get_queryset(self):
        return reads.visible_batches(self.request.user).annotate(pair_count=Count("pairs"))

    def get_serializer_class(self):
        return JudgeBatchDetailSerializer if self.action == "retrieve" else JudgeBatchSerializer

    @extend_schema(
        request=JudgeBatchRequestSerializer,
        responses={201: JudgeBatchSerializer, 400: REFUSED},
        extensions=links(
            201,
            GetJudgeBatch=link(
                "api_judge_batches_retrieve", "Its progress and results.", id="$response.body#/id"
            ),
            ListJudgePairs=link(
                "api_judge_batches_pairs_list", "Its pairs.", id="$response.body#/id"
            ),
            ExportJudgeLabels=link(
                "api_judge_batches_export_retrieve", "Its labels file.", id="$response.body#/id"
            ),
        ),
        description="Start a batch as the Judges page's form does: an evaluation (or a run's "
        "latest) against the median human or the starting model, or a pairs file; queued on "
        "`judge`.",
    )
    def create(self, request):
        values = checked_body(JudgeBatchRequestSerializer, request.data)
        try:
            upload = _pairs_upload(values)
            checked = services.check_judge_request(request.user, values, upload)
            evaluation_team = checked.evaluation.team if checked.evaluation else None
            team = check_team_for_new_run(request.user, values.get("team"), evaluation_team)
        except ValueError as exc:
            return refused(exc, REQUEST_FIELDS)
        batch = services.do_create_batch(request.user, team, checked)
        batch = self.get_queryset().get(pk=batch.pk)
        return Response(JudgeBatchSerializer(batch).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=PAIR_FILTERS,
        responses={200: JudgePairSerializer(many=True)},
        extensions=links(
            200,
            LabelJudgePair=link(
                "api_judge_pairs_label_create",
                "Label the first pair listed.",
                id="$response.body#/results/0/pair",
            ),
        ),
        description="The batch's pairs as its page reviews them (problem, then id), paged: "
        "each with every judge's verdict, the shown category, the evidence and both programs.",
    )
    @action(detail=True, methods=["get"])
    def pairs(self, request, pk=None):
        batch = self.get_object()
        params = request.query_params
        filters = {
            "problem": params.get("problem", "").strip(),
            "category": _choice(params, "category", VERDICTS),
            "judge": _choice(params, "judge", reads.JUDGE_ORDER),
        }
        rows = pair_rows(batch, filters)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(JudgePairSerializer(page, many=True).data)

    @extend_schema(
        responses={(200, LABELS_MEDIA_TYPE): OpenApiResponse(OpenApiTypes.STR)},
        description="The batch's human labels as a labelled pairs file (JSON lines, the Judges "
        "page's download: judges.reads.human_labels), which a batch can judge again.",
    )
    @action(
        detail=True,
        methods=["get"],
        pagination_class=None,
        renderer_classes=[renderers.JSONRenderer],
        content_negotiation_class=AnyAccepted,
    )
    def export(self, request, pk=None):
        batch = self.get_object()  # yours, or a 404 before the page's view is asked
        return views.batch_labels(request._request, batch.pk)


@closed()
class LabelRequestSerializer(serializers.Serializer):
    category = serializers.ChoiceField(choices=CATEGORIES, help_text="The pair's category.")
    rationale = StrictText(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Why (kept up to 2,000 characters).",
    )


class JudgePairViewSet(viewsets.GenericViewSet):
    """Pairs of the batches of your teams; others are 404."""

    serializer_class = LabelRequestSerializer
    lookup_value_regex = "[0-9]{1,18}"

    def get_queryset(self):
        visible = reads.visible_batches(self.request.user)
        return JudgePair.objects.filter(batch__in=visible).select_related("batch")

    @extend_schema(
        request=LabelRequestSerializer,
        responses={200: JudgePairSerializer, 400: REFUSED},
        description="A person's category for the pair, as the batch page's correction does "
        "(replacing their earlier one): it enters the agreement and the labels file.",
    )
    @action(detail=True, methods=["post"])
    def label(self, request, pk=None):
        pair = self.get_object()
        values = checked_body(LabelRequestSerializer, request.data)
        try:
            services.do_label(pair, request.user, values["category"], values.get("rationale", ""))
        except ValueError as exc:
            return refused(exc, tuple(LabelRequestSerializer().fields))
        (row,) = [
            r for r in pair_rows(pair.batch, {"problem": pair.problem_slug}) if r["pair"] == pair.pk
        ]
        return Response(JudgePairSerializer(row).data)
