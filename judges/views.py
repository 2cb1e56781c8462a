"""Judging pages: start a batch (from a run, an evaluation or a pairs file), follow it, see
its category breakdown beside the paper's and the judges' agreement, review every diff and
correct its category."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from evaluations.models import Evaluation
from evaluations.reads import visible_evaluations
from foundation import inputs, jsonlines
from foundation.tenancy import check_team_for_new_run, user_teams
from judges import reads, services
from judges.categories import CATEGORIES, DEFINITIONS, VERDICTS
from judges.llm import LLMSettings
from judges.models import JudgeBatch, JudgePair


def _batch(user, batch_id: int) -> JudgeBatch:
    batch = reads.visible_batches(user).filter(pk=batch_id).first()
    if batch is None:
        raise Http404("No such judge batch")
    return batch


@login_required
def judges_page(request):
    llm = LLMSettings.from_env()
    values = {
        "evaluation": request.GET.get("evaluation", ""),
        "run": request.GET.get("run", ""),
        "baseline": "human",
        "judge": ["analyzer", "llm"] if llm else ["analyzer"],
        "name": "",
        "team": "",
        "measure": "on",
    }
    error = ""
    if request.method == "POST":
        values = {
            k: request.POST.get(k, "")
            for k in ("evaluation", "run", "baseline", "baseline_evaluation", "name", "team")
        }
        values["judge"] = request.POST.getlist("judge")
        values["measure"] = request.POST.get("measure", "off")
        try:
            upload = jsonlines.read_upload(request.FILES.get("pairs"), "pairs")
            if not values["judge"]:
                raise ValueError("judge: choose the analyzer, the LLM judge or both")
            checked = services.check_judge_request(request.user, values, upload)
            evaluation_team = checked.evaluation.team if checked.evaluation else None
            team = check_team_for_new_run(request.user, values["team"] or None, evaluation_team)
            batch = services.do_create_batch(request.user, team, checked)
            return redirect("judge-batch", batch_id=batch.pk)
        except ValueError as exc:
            error = str(exc)
    evaluations = visible_evaluations(request.user).filter(status=Evaluation.Status.DONE)[:100]
    return render(
        request,
        "judges/judges.html",
        {
            "error": error,
            "values": values,
            "evaluations": evaluations,
            "runs": sorted({e.run for e in evaluations if e.run}, key=lambda r: -r.pk),
            "teams": user_teams(request.user),
            "llm": llm,
            "definitions": [(c, DEFINITIONS[c]) for c in CATEGORIES],
        },
        status=400 if error else 200,
    )


@login_required
def judges_data(request):
    return JsonResponse({"batches": reads.batch_rows(request.user)})


@login_required
def batch_page(request, batch_id: int):
    batch = _batch(request.user, batch_id)
    filters = {k: request.GET.get(k, "").strip() for k in ("problem", "category", "judge")}
    page, rows = reads.review_page(
        batch,
        filters,
        inputs.number("page", request.GET.get("page"), low=1, high=None, default=1, whole=True),
        corrected=inputs.record_id("corrected", request.GET.get("corrected")),
    )
    query = {k: v for k, v in filters.items() if v}
    return render(
        request,
        "judges/batch.html",
        {
            "batch": batch,
            "rows": rows,
            "filters": filters,
            "problems": sorted(set(batch.pairs.values_list("problem_slug", flat=True))),
            "categories": CATEGORIES,
            "verdicts": VERDICTS,
            "judge_names": ("analyzer", "llm", "human"),
            "page": page,
            "matching": page.paginator.count,
            "filter_query": urlencode(query),
            "here": urlencode({**query, "page": page.number}),
            "chart": {
                "breakdown": reads.breakdown(batch),
                "agreement": reads.agreement(batch),
                "truth": reads.against_truth(batch),
            },
            "css": reads.highlight_css(),
        },
    )


@login_required
def batch_labels(request, batch_id: int):
    """The batch's human labels as JSON lines (a labelled pairs file: judges.reads.human_labels),
    downloaded."""
    batch = _batch(request.user, batch_id)
    body = "".join(json.dumps(row) + "\n" for row in reads.human_labels(batch))
    response = HttpResponse(body, content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="judge-batch-{batch.pk}-labels.jsonl"'
    return response


@login_required
@require_POST
def label_pair(request, pair_id: int):
    pair = JudgePair.objects.select_related("batch").filter(pk=pair_id).first()
    if pair is None or not reads.visible_batches(request.user).filter(pk=pair.batch_id).exists():
        raise Http404("No such pair")
    try:
        services.do_label(
            pair, request.user, request.POST.get("category", ""), request.POST.get("rationale", "")
        )
    except ValueError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    # back to the same filters and page: only a query string is taken from the form
    kept = QueryDict(request.POST.get("view", ""))
    back = {k: kept[k] for k in ("problem", "category", "judge", "page") if kept.get(k)}
    query = f"?{urlencode({**back, 'corrected': pair.pk})}"
    return redirect(reverse("judge-batch", args=[pair.batch_id]) + query + f"#pair-{pair.pk}")
