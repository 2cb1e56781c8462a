from django.apps import AppConfig

from foundation import queueing


class TimingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "timing"

    def ready(self):
        """Tell foundation.queueing which of this app's jobs wait on which queue."""
        from timing.reads import queued_timing_jobs  # models: once ready

        queueing.register("timing", queued_timing_jobs)
