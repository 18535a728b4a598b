from django.apps import AppConfig


class BisectsConfig(AppConfig):
    # Not "bisect": that name is Python's standard-library module.
    name = "bisects"
    verbose_name = "Bisect jobs"
