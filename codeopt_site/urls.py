from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from codeopt_site.views import healthz
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
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
