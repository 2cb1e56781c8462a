"""REST API of the timing workers: jobs that failed in the sandbox, and retrying them."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.schema import ObjectSchema, link, links
from workers import reads, retry


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
