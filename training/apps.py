from django.apps import AppConfig

from foundation import queueing


class TrainingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "training"

    def ready(self):
        """Tell foundation.queueing which of this app's jobs wait on which queue."""
        from training.reads import queued_training_runs  # models: once ready

        queueing.register("gpu", queued_training_runs)
