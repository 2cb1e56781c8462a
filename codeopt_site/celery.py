"""The Celery app. Queues: `default` now; `timing`, `gpu` and `judge` come with their issues."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")

app = Celery("codeopt")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"])
