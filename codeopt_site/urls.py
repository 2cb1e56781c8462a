from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from codeopt_site.views import healthz
from evaluations import views as evaluation_views
from judges import views as judge_views
from problems import views as problem_views
from rewards import views as reward_views
from runs import views as run_views
from runs.api import RunViewSet
from workers import views as worker_views

router = DefaultRouter()
router.register("runs", RunViewSet, basename="run")

urlpatterns = [
    path("", run_views.run_list, name="run-list"),
    path("runs/compare/", run_views.run_compare, name="run-compare"),
    path("runs/<int:run_id>/", run_views.run_detail, name="run-detail"),
    path("timing/", worker_views.timing_page, name="timing"),
    path("timing/data.json", worker_views.timing_data, name="timing-data"),
    path("training/", worker_views.training_page, name="training"),
    path("runs/<int:run_id>/stop/", worker_views.training_stop, name="training-stop"),
    path("runs/<int:run_id>/samples/", worker_views.run_samples, name="run-samples"),
    path("problems/", problem_views.problem_list, name="problem-list"),
    path("problems/<slug:slug>/", problem_views.problem_detail, name="problem-detail"),
    path("dataset/", problem_views.dataset_page, name="dataset"),
    path("dataset/builds.json", problem_views.dataset_data, name="dataset-data"),
    path("dataset/calibration/", problem_views.calibration_page, name="calibration"),
    path("rewards/", reward_views.rewards_page, name="rewards"),
    path("rewards/simulations.json", reward_views.simulations_data, name="rewards-simulations"),
    path(
        "rewards/configs/<int:config_id>/recommend/",
        reward_views.recommend,
        name="rewards-recommend",
    ),
    path("evaluations/", evaluation_views.evaluations_page, name="evaluations"),
    path("evaluations/data.json", evaluation_views.evaluations_data, name="evaluations-data"),
    path("evaluations/export.csv", evaluation_views.evaluations_csv, name="evaluations-csv"),
    path("judges/", judge_views.judges_page, name="judges"),
    path("judges/data.json", judge_views.judges_data, name="judges-data"),
    path("judges/<int:batch_id>/", judge_views.batch_page, name="judge-batch"),
    path("judges/pairs/<int:pair_id>/label/", judge_views.label_pair, name="judge-label"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
