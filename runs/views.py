"""Pages: authenticate, pick what the user may see, render. Charts load data from the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from foundation import inputs
from runs import reads, services


@login_required
def run_compare(request):
    raw = request.GET.get("ids", "")
    ids = inputs.record_ids("ids", raw)
    if not ids:  # reached from the navigation or a bare link: say how to pick runs
        return render(request, "runs/run_compare.html", {"runs": [], "compared": []})
    runs = list(
        services.visible_runs(request.user).select_related("reward_config").filter(pk__in=ids)
    )
    if not runs or len(runs) != len(set(ids)):
        raise Http404("No such run")
    differences = reads.config_differences(runs)
    context = {
        "runs": runs,
        "compared": reads.compared_runs(runs),
        "differences": differences,
        "differing_keys": [row["key"] for row in differences],
    }
    return render(request, "runs/run_compare.html", context)
