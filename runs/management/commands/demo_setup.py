"""Create the demo user, team and API token (idempotent) and print how to log in."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from foundation.tenancy import Team

DEMO_USER = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_TEAM = "demo"


class Command(BaseCommand):
    help = "Create the demo user (demo / demo-password), its team and its API token."

    def add_arguments(self, parser):
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000", help="Where the server listens."
        )

    def handle(self, *args, url: str, **options):
        user, created = get_user_model().objects.get_or_create(username=DEMO_USER)
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        team, _ = Team.objects.get_or_create(name=DEMO_TEAM)
        team.members.add(user)
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(
            f"\n  codeopt demo: open {url}/\n"
            f"  log in as   : {DEMO_USER} / {DEMO_PASSWORD}\n"
            f"  API token   : {token.key}  (python manage.py drf_create_token USER makes more)\n"
        )
