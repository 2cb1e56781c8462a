"""REST API of the timing workers: the Timing page's jobs (workers.reads, the rows its table
shows) and jobs that failed in the sandbox, and retrying them (workers.retry, its button)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.schema import ObjectSchema, link, links
from timing.models import TimingJob
from workers import reads, retry

UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


class SandboxFailureSerializer(serializers.Serializer):
    """One row of workers.reads.sandbox_failures."""

    kind = serializers.ChoiceField(choices=[*reads.JOB_KINDS])
    id = serializers.CharField()
    what = serializers.CharField()
    error = serializers.CharField()
    failed_at = serializers.DateTimeField(allow_null=True)
    retry_url = serializers.CharField()


class SandboxFailureViewSet(viewsets.ViewSet):
    """GET: the jobs you can see that failed in the sandbox (timing, scoring, evaluation).
    POST {kind}/{id}/retry/: queue one again."""

    schema = ObjectSchema()  # the list is one object, {"failures": [...]}

    @extend_schema(
        responses=inline_serializer(
            "SandboxFailures", {"failures": SandboxFailureSerializer(many=True)}
        ),
        extensions=links(
            200,
            RetryFailure=link(
                "api_sandbox_failures_retry_create",
                "Queue the newest failure again.",
                kind="$response.body#/failures/0/kind",
                job_id="$response.body#/failures/0/id",
            ),
        ),
    )
    def list(self, request):
        return Response({"failures": reads.sandbox_failures(request.user)})

    @extend_schema(
        request=None,
        responses={
            202: inline_serializer(
                "Retried",
                {
                    "kind": serializers.CharField(),
                    "id": serializers.CharField(),
                    "status": serializers.ChoiceField(choices=["queued"]),
                },
            ),
            404: OpenApiResponse(
                OpenApiTypes.OBJECT, description="No such job of that kind that you can see."
            ),
            409: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="The job did not fail in the sandbox (queued again already, done).",
            ),
        },
    )
    @action(detail=False, methods=["post"], url_path=r"(?P<kind>[a-z]+)/(?P<job_id>[^/]+)/retry")
    def retry(self, request, kind: str, job_id: str):
        try:
            retry.do_retry_job(request.user, kind, job_id)
        except LookupError as exc:
            return Response({"error": str(exc)}, status=status.HTTP_404_NOT_FOUND)
        except ValueError as exc:
            return Response({"error": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({"kind": kind, "id": job_id, "status": "queued"}, status=202)


class TimingJobSerializer(serializers.Serializer):
    """One row of the Timing page's table of jobs (workers.reads.timing_job_rows)."""

    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=TimingJob.Kind.values)
    owner = serializers.CharField()
    package = serializers.CharField(help_text="The problem, or the package's folder name.")
    language = serializers.CharField()
    modes = serializers.CharField(help_text="Comma-separated timing modes.")
    status = serializers.ChoiceField(
        choices=[*TimingJob.Status.values, "lost"],
        help_text="lost: running on a worker gone silent (a live worker sends it again).",
    )
    progress_done = serializers.IntegerField()
    progress_total = serializers.IntegerField()
    attempts = serializers.IntegerField()
    worker = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    queue_wait_s = serializers.FloatField(
        allow_null=True, help_text="Seconds queued before a worker took it (null: not yet)."
    )
    duration_s = serializers.FloatField(allow_null=True)
    error = serializers.CharField(allow_blank=True, help_text="Its first 300 characters.")
    verdict = serializers.CharField(allow_null=True)
    speed_percentile = serializers.FloatField(allow_null=True)
    executions = serializers.IntegerField(allow_null=True)
    cpu_cvs = serializers.ListField(child=serializers.FloatField())
    jitter = serializers.DictField(child=serializers.FloatField(allow_null=True))
    sandbox_errors = serializers.IntegerField(allow_null=True)
    retry_url = serializers.CharField(
        allow_null=True, help_text="The page's retry; null unless it failed in the sandbox."
    )


class TimingJobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The timing jobs the Timing page shows: yours (staff: all), newest first, each as its
    table's row; another's is 404. POST {id}/retry/: the page's Retry button."""

    serializer_class = TimingJobSerializer
    lookup_value_regex = UUID_PATTERN

    def get_queryset(self):
        return reads.timing_jobs(self.request.user)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(reads.timing_job_rows(page))

    @extend_schema(
        extensions=links(
            200,
            RetryTimingJob=link(
                "api_timing_jobs_retry_create",
                "Queue it again, once failed in the sandbox.",
                id="$response.body#/id",
            ),
        )
    )
    def retrieve(self, request, *args, **kwargs):
        (row,) = reads.timing_job_rows([self.get_object()])
        return Response(row)

    @extend_schema(
        request=None,
        responses={
            202: TimingJobSerializer,
            409: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="It did not fail in the sandbox (queued again already, done).",
            ),
        },
        description="Queue again a job that failed in the sandbox, as the Timing page's "
        "Retry button does (workers.retry.do_retry_job, the same checks).",
    )
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        job = self.get_object()
        try:
            retry.do_retry_job(request.user, "timing", job.pk)
        except LookupError as exc:  # gone meanwhile
            return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        (row,) = reads.timing_job_rows([self.get_queryset().get(pk=job.pk)])
        return Response(row, status=status.HTTP_202_ACCEPTED)
