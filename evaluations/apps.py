from functools import partial

from django.apps import AppConfig

from foundation import queueing


class EvaluationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "evaluations"

    def ready(self):
        """Tell foundation.queueing which of this app's jobs wait on which queue."""
        from evaluations.reads import queued_evaluations  # models: once ready

        for queue in ("eval", "timing"):  # generating, or scoring uploads only
            queueing.register(queue, partial(queued_evaluations, queue=queue))
