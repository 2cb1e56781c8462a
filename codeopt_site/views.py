from django.http import JsonResponse

from workers.health import check_all


def healthz(request):
    healthy, report = check_all()
    return JsonResponse({"ok": healthy, **report}, status=200 if healthy else 503)
