"""Teams and who sees what: every row of work (runs, evaluations, reward configurations,
judge batches, scoring jobs) belongs to a team; a user sees the rows of the teams they are a
member of, staff see all, an anonymous user none.

The Team table keeps the `runs` app label (runs_team, and its migrations in runs/migrations):
it moved here from runs/models.py without a schema change."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import QuerySet

from foundation.inputs import InputError


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teams", blank=True)

    class Meta:
        app_label = "runs"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


def team_scoped(rows: QuerySet, user) -> QuerySet:
    """The rows (of a model with a `team`) of the user's teams; all for staff; none for an
    anonymous user."""
    if not user.is_authenticated:
        return rows.none()
    if user.is_staff:
        return rows
    return rows.filter(team__members=user)


def user_teams(user) -> QuerySet[Team]:
    if user.is_staff:
        return Team.objects.all()
    return Team.objects.filter(members=user)


def check_team_for_new_run(user, team_name: str | None, default: Team | None = None) -> Team:
    """The team new work goes to: the named one; else `default` (the team of the run or
    evaluation it is about); else the user's only team."""
    teams = user_teams(user)
    if not team_name and default is not None:
        return default
    if team_name:
        team = teams.filter(name=team_name).first()
        if team is None:
            raise InputError("team", f"you are not a member of a team named {team_name!r}")
        return team
    mine = list(teams[:2])
    if len(mine) != 1:
        raise InputError(
            "team", "name the team, you belong to " + ("none" if not mine else "several")
        )
    return mine[0]
