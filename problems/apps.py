from django.apps import AppConfig

from foundation import queueing


class ProblemsConfig(AppConfig):
    name = "problems"

    def ready(self):
        """Tell foundation.queueing which of this app's jobs wait on which queue."""
        from problems.reads import queued_dataset_builds  # models: once ready

        queueing.register("timing", queued_dataset_builds)
