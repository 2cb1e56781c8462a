from django.apps import AppConfig

from foundation import queueing


class ScoringConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"

    def ready(self):
        """Tell foundation.queueing which of this app's jobs wait on which queue."""
        from scoring.services import queued_scoring_jobs  # models: once ready

        queueing.register("timing", queued_scoring_jobs)
