"""The Celery app. Queues (CELERY_TASK_ROUTES): `default`, `timing`, `gpu`, `judge`. Tasks are
in each app's `tasks.py`, found by autodiscovery, each named after its app ("training.train");
the names they had before ("training.train") stay registered as aliases for one release, so
messages already queued are still taken (foundation.sending.job_task(aliases=)).

foundation.sending sends through `celery.current_app`: the app below, made current when it is
created (Django imports this package with its settings), so the ground floor imports no
project package."""

import os

from celery import Celery
from celery.signals import worker_init

from foundation.startup import check_worker_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")

app = Celery("codeopt")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()  # every installed app's tasks.py
# A worker exits, naming the variable, when it cannot reach its database or broker, before
# it takes a message it could only lose (foundation.startup).
worker_init.connect(check_worker_start, weak=False)
