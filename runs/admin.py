from django.contrib import admin

from foundation.tenancy import Team
from runs.models import Run


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    filter_horizontal = ["members"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "status", "team", "owner", "last_step", "created_at"]
    list_filter = ["status", "team"]
    search_fields = ["name", "model_name", "notes"]
