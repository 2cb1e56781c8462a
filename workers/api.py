"""REST API of the timing workers: jobs that failed in the sandbox, and retrying them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.schema import ObjectSchema
from workers import reads, retry


class SandboxFailureViewSet(viewsets.ViewSet):
    """GET: the jobs you can see that failed in the sandbox (timing, scoring, evaluation).
    POST {kind}/{id}/retry/: queue one again."""

    schema = ObjectSchema()  # the list is one object, {"failures": [...]}

    @extend_schema(
        responses=inline_serializer("SandboxFailures", {"failures": serializers.ListField()})
    )
    def list(self, request):
        return Response({"failures": reads.sandbox_failures(request.user)})

    @extend_schema(
        request=None,
        responses=inline_serializer(
            "Retried", {"kind": serializers.CharField(), "id": serializers.CharField()}
        ),
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
