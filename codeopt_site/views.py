"""Views of the whole site. /healthz: up or down for anyone (a load balancer, a monitor); the
details for signed-in users only, since they show the deployment (worker hostnames, queue
depths, the sandbox's set-up, error texts). The 404 handler and /favicon.ico."""

from __future__ import annotations

from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from django.views.defaults import page_not_found
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

from workers.process.health import check_all


@extend_schema(
    responses={
        200: inline_serializer("Health", {"status": serializers.CharField()}),
        503: inline_serializer("Unhealthy", {"status": serializers.CharField()}),
    },
    description="Up or down for anyone; signed in, the whole report.",
)
@api_view(["GET"])
@permission_classes([AllowAny])
def healthz(request):
    """200 when the database, broker and channel layer work, 503 when one does not; signed in
    (session or API token) the body is the whole report, otherwise only its `status`."""
    signed_in = request.user.is_authenticated
    healthy, report = check_all(details=signed_in)
    body = {"ok": healthy, **report} if signed_in else {"status": report["status"]}
    return JsonResponse(body, status=200 if healthy else 503)


def not_found(request, exception=None):
    """404: JSON under /api/ (what the schema documents), the HTML page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return page_not_found(request, exception)


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """Any path under /api/ that names no resource, with any method: a JSON 404."""
    return JsonResponse({"detail": "Not found."}, status=404)  # as handler404 answers


@require_safe
def favicon(request):
    """/favicon.ico: where a browser looks for the icon of a page that names none (a JSON
    page such as /healthz, a download): the site's icon, not a 404."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
