"""The Celery app. Queues (CELERY_TASK_ROUTES): `default`, `timing`, `gpu`, `judge`. Tasks are
in each app's `tasks.py`, found by autodiscovery; they keep the names they had when they all
lived in workers/tasks.py ("workers.<task>"), so queued messages and routes still match."""

import os

from celery import Celery
from celery.signals import worker_init

from codeopt_site.startup import check_worker_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")

app = Celery("codeopt")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()  # every installed app's tasks.py
# A worker exits, naming the variable, when it cannot reach its database or broker, before
# it takes a message it could only lose (codeopt_site.startup).
worker_init.connect(check_worker_start, weak=False)
