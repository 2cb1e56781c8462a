from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from codeopt_site import api_docs, pages
from codeopt_site.views import api_not_found, favicon, healthz, not_found
from evaluations import views as evaluation_views
from evaluations.api import EvaluationViewSet
from foundation import inputs
from judges import views as judge_views
from judges.api import JudgeBatchViewSet, JudgePairViewSet
from problems import views as problem_views
from problems.api import DatasetBuildViewSet, ProblemViewSet
from rewards import views as reward_views
from rewards.api import RewardConfigViewSet, SimulationViewSet
from runs import views as run_views
from runs.api import RunViewSet
from scoring.api import ScoringViewSet
from training import views as training_views
from training.api import SampleViewSet
from training.runs_api import TrainingViewSet
from workers import views as worker_views
from workers.api import SandboxFailureViewSet, TimingJobViewSet


class IdConverter:
    """A stored row's id in a path: digits a database key can hold (a longer number is a
    404, not an overflow in the query)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        if int(value) > inputs.MAX_ID:
            raise ValueError(value)
        return int(value)

    def to_url(self, value) -> str:
        return str(value)


register_converter(IdConverter, "id")


class ApiRouter(DefaultRouter):
    """DRF's router, whose root (/api/) links only the collections a GET can read: a
    viewset without `list` (scoring: POST a job, GET one by id) would be a link answering
    405 to the GET it invites."""

    def get_api_root_view(self, api_urls=None):
        list_name = self.routes[0].name  # the list route's name, "{basename}-list"
        readable = {
            prefix: list_name.format(basename=basename)
            for prefix, viewset, basename in self.registry
            if hasattr(viewset, "list")
        }
        return self.APIRootView.as_view(api_root_dict=readable)


router = ApiRouter()
router.register("runs", RunViewSet, basename="api-run")
router.register("problems", ProblemViewSet, basename="api-problem")
router.register("scoring", ScoringViewSet, basename="api-scoring")
router.register("sandbox-failures", SandboxFailureViewSet, basename="api-sandbox-failure")
router.register("evaluations", EvaluationViewSet, basename="api-evaluation")
router.register("judge-batches", JudgeBatchViewSet, basename="api-judge-batch")
router.register("judge-pairs", JudgePairViewSet, basename="api-judge-pair")
router.register("reward-configs", RewardConfigViewSet, basename="api-reward-config")
router.register("reward-simulations", SimulationViewSet, basename="api-reward-simulation")
router.register("dataset-builds", DatasetBuildViewSet, basename="api-dataset-build")
router.register("samples", SampleViewSet, basename="api-sample")
router.register("training", TrainingViewSet, basename="api-training")
router.register("timing-jobs", TimingJobViewSet, basename="api-timing-job")

urlpatterns = [
    path("", pages.run_list, name="run-list"),
    path("runs/live.json", pages.run_list_live, name="run-list-live"),
    path("runs/compare/", run_views.run_compare, name="run-compare"),
    path("runs/<id:run_id>/", pages.run_detail, name="run-detail"),
    path("runs/<id:run_id>/progress/", pages.run_progress, name="run-progress"),
    path("timing/", worker_views.timing_page, name="timing"),
    path("timing/data.json", worker_views.timing_data, name="timing-data"),
    path("timing/retry/<str:kind>/<str:job_id>/", worker_views.timing_retry, name="timing-retry"),
    path("training/", training_views.training_page, name="training"),
    path("runs/<id:run_id>/stop/", training_views.training_stop, name="training-stop"),
    path("runs/<id:run_id>/samples/", training_views.run_samples, name="run-samples"),
    path("problems/", problem_views.problem_list, name="problem-list"),
    path("problems/<slug:slug>/", problem_views.problem_detail, name="problem-detail"),
    path("dataset/", problem_views.dataset_page, name="dataset"),
    path("dataset/builds.json", problem_views.dataset_data, name="dataset-data"),
    path("dataset/calibration/", problem_views.calibration_page, name="calibration"),
    path("rewards/", reward_views.rewards_page, name="rewards"),
    path("rewards/simulations.json", reward_views.simulations_data, name="rewards-simulations"),
    path(
        "rewards/configs/<id:config_id>/recommend/",
        reward_views.recommend,
        name="rewards-recommend",
    ),
    path("evaluations/", evaluation_views.evaluations_page, name="evaluations"),
    path("evaluations/data.json", evaluation_views.evaluations_data, name="evaluations-data"),
    path("evaluations/export.csv", evaluation_views.evaluations_csv, name="evaluations-csv"),
    path("judges/", judge_views.judges_page, name="judges"),
    path("judges/data.json", judge_views.judges_data, name="judges-data"),
    path("judges/<id:batch_id>/", judge_views.batch_page, name="judge-batch"),
    path("judges/<id:batch_id>/labels.jsonl", judge_views.batch_labels, name="judge-labels"),
    path("judges/pairs/<id:pair_id>/label/", judge_views.label_pair, name="judge-label"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # the docs pages with a way back to the dashboard, every asset served here (templates/api)
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="api/redoc.html"),
        name="api-redoc",
    ),
    path("api/redoc/redoc.standalone.js", api_docs.redoc_bundle, name="api-redoc-bundle"),
    # any other path under /api/, any method: a JSON 404, in debug mode too (Django's debug
    # 404 page is HTML, and handler404 only answers with DEBUG off)
    re_path(r"^api/", api_not_found, name="api-not-found"),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
]

handler404 = not_found
